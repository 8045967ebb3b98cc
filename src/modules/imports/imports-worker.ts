import type { Logger } from "pino";
import type { ImportService } from "./imports-service.ts";

/** How often an idle worker looks for a queued run (a run queued here is started at once by poke). */
const POLL_MS = 2000;
/** After a failed turn (the database away), the wait before the next. */
const FAILURE_BACKOFF_MS = 5000;

/**
 * The worker's loop of CSV imports (RUN_MODE worker or all): claims a queued run (or one whose
 * worker died) and applies it to its end, then the next; sleeps when there is none. One run at a
 * time per process: imports are rare and each is bounded, and the batches of one run are the
 * database's work, which a second run in parallel would only share.
 */
export function createImportWorker(deps: {
  imports: Pick<ImportService, "work">;
  logger: Pick<Logger, "warn">;
}) {
  let stopped = true;
  let wake: (() => void) | null = null;
  let loop: Promise<void> | null = null;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  async function run() {
    while (!stopped) {
      try {
        if (await deps.imports.work({ afterBatch: () => stopped })) continue;
        await sleep(POLL_MS);
      } catch (error) {
        deps.logger.warn(
          { err: error },
          "CSV import: a batch failed; the run is taken up again after its lease",
        );
        await sleep(FAILURE_BACKOFF_MS);
      }
    }
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      loop = run();
    },
    /** A run was queued: look now instead of at the next poll. */
    poke() {
      wake?.();
    },
    /** Stops after the batch in progress (its run is taken up again, by this or another worker, from the next). */
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}
