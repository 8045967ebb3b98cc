import type { FastifyBaseLogger } from "fastify";
import { isDatabaseUnavailable } from "../../../lib/availability.ts";
import { type BackoffOptions, backoffDelayMs } from "../../../lib/backoff.ts";
import type { Clock } from "../../../lib/clock.ts";
import type { Completion } from "./delivery-repo.ts";

/** Completions recorded per statement at most. */
export const COMPLETION_BATCH = 500;

/** A finished attempt waiting to be recorded. */
export interface PendingCompletion {
  completion: Completion;
  /** When its lease began (ms): after leaseMs from here another worker may own the delivery. */
  claimedAt: number;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Collects finished attempts and records them in the background, all that are waiting in one
 * statement (at most `batchSize`): one write at a time, the next batch collecting while one is
 * written, so a slot is free as soon as the receiver has answered.
 *
 * An outcome is worth keeping through a database outage (else the delivery is sent again when its
 * lease ends, and the attempt log misses it): a batch is retried, after a growing pause, while the
 * database is unavailable and its leases last; after that another worker may own the delivery and
 * the fenced update would be refused anyway. Any other failure, or one once `retrying()` says no
 * (the worker stops), drops the batch with an error logged: those deliveries are attempted again
 * when their leases end.
 */
export function createCompletionBatcher(deps: {
  /** Writes one batch; throws when it could not. */
  record(batch: Completion[]): Promise<void>;
  clock: Clock;
  leaseMs: number;
  /** Pause before writing a failed batch again, doubling up to its cap. */
  backoff: BackoffOptions;
  /** Whether a batch that failed for want of the database may wait for it (false once stopping). */
  retrying(): boolean;
  logger: Pick<FastifyBaseLogger, "warn" | "error">;
  /** Waits `ms` before a failed batch is tried again (a timer; tests pass their own). */
  wait?(ms: number): Promise<void>;
  batchSize?: number;
}) {
  const { clock, logger } = deps;
  const batchSize = deps.batchSize ?? COMPLETION_BATCH;
  const wait = deps.wait ?? pause;
  let waiting: PendingCompletion[] = [];
  let flushing: Promise<void> | null = null;

  async function flush() {
    let failures = 0;
    while (waiting.length) {
      const batch = waiting.slice(0, batchSize);
      waiting = waiting.slice(batch.length);
      try {
        await deps.record(batch.map((b) => b.completion));
        failures = 0;
      } catch (error) {
        failures++;
        const delayMs = backoffDelayMs(failures, deps.backoff);
        const nowMs = clock.now().getTime();
        // Only what is still ours after the pause: a lease that ends meanwhile is another worker's.
        const retry =
          isDatabaseUnavailable(error) && deps.retrying()
            ? batch.filter((b) => b.claimedAt + deps.leaseMs - nowMs > delayMs)
            : [];
        if (retry.length < batch.length)
          logger.error(
            {
              err: error,
              deliveries: batch.filter((b) => !retry.includes(b)).map((b) => b.completion.delivery.id),
            },
            "delivery attempt failed to record; it is attempted again when its lease ends",
          );
        if (retry.length === 0) continue;
        logger.warn(
          { deliveries: retry.length, retryInMs: delayMs, error: (error as Error).message },
          "database unavailable; recording the delivery attempts again later",
        );
        waiting = [...retry, ...waiting];
        await wait(delayMs);
      }
    }
  }

  function flushSoon() {
    if (flushing) return;
    flushing = flush().finally(() => {
      flushing = null;
      if (waiting.length) flushSoon();
    });
  }

  return {
    /** Queues a finished attempt; a write starts now unless one is under way (it takes this one next). */
    add(item: PendingCompletion) {
      waiting.push(item);
      flushSoon();
    },
    /** Attempts waiting to be written (not counting the batch being written). */
    get waiting() {
      return waiting.length;
    },
    /** Until everything added so far is written (or dropped). */
    async idle() {
      while (flushing) await flushing;
    },
  };
}
export type CompletionBatcher = ReturnType<typeof createCompletionBatcher>;
