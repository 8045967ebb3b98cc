import { randomUUID } from "node:crypto";
import { pipeline, Readable } from "node:stream";
import { createGzip } from "node:zlib";
import type { Clock } from "../../lib/clock.ts";
import { AppError } from "../../lib/errors.ts";
import type { ExportWindow } from "../../lib/pagination.ts";
import {
  type ExportResource,
  type ExportSnapshot,
  encodeSnapshot,
  startOf,
  windowOf,
} from "./export-position.ts";
import type { ExportSlot, ExportSlotRepo } from "./exports-repo.ts";

/** A slot's lease; renewed every third of it while the export runs, so only a dead process's slot lapses. */
export const EXPORT_LEASE_MS = 60_000;
/** How often a running export checks that its credential is still valid (revoked, expired, uninstalled). */
export const EXPORT_RECHECK_MS = 1000;
/** Retry-After of the 429 past the concurrency bound: a 1,000,000-record export takes about 10 s. */
export const EXPORT_RETRY_AFTER_SECONDS = 5;
/**
 * gzip level 1: JSON Lines still shrink to about a fifth, at several times the speed of the
 * default level 6, which would make the compression, not the database, the export's limit.
 */
const GZIP_LEVEL = 1;

/** What one export request needs from its route: where, for whom, and how to read a batch. */
export interface ExportRequest<T extends { id: string }> {
  resource: ExportResource;
  storeId: string;
  /** Whose concurrency bound it counts against: `install:<id>` or `apikey:<key id>`. */
  holder: string;
  query: { updatedSince?: string | undefined; snapshot?: string | undefined; after?: string | undefined };
  gzip: boolean;
  /** One batch, each record exactly as the resource's list shows it to this caller. */
  read(window: ExportWindow): Promise<T[]>;
  /** Throws once the credential that started the export may no longer read (revoked, expired). */
  stillAllowed(): Promise<void>;
  /** Records per batch (the resource's own, or the configured default). */
  batchRows?: number;
}

export interface StartedExport {
  /** The body: JSON Lines, gzipped when asked; it ends after the last record, or is destroyed on failure. */
  body: Readable;
  snapshot: ExportSnapshot;
  /** The `X-Export-Snapshot` token to resume with. */
  token: string;
}

/**
 * Bulk exports: each request streams the records after its position in id order, in batches,
 * with backpressure (a batch is read only when the client has taken the previous one, plus one
 * read ahead), so memory does not grow with the store. Bounded per installation or key pair by
 * slots shared by every process (exports-repo.ts).
 */
export function createExportService(deps: {
  slots: Pick<ExportSlotRepo, "claim" | "renew" | "release">;
  clock: Clock;
  maxConcurrent: number;
  batchRows: number;
  /** Where a slot that could not be given back is reported (its lease lapses anyway). */
  onReleaseError?: (error: unknown) => void;
}) {
  const { clock } = deps;
  const running = new Set<Readable>();

  async function start<T extends { id: string }>(request: ExportRequest<T>): Promise<StartedExport> {
    const now = clock.now();
    // 400s first: a request that cannot run takes no slot.
    const { snapshot, after } = startOf(request.resource, request.query, now);
    const slot = await deps.slots.claim({
      storeId: request.storeId,
      holder: request.holder,
      exportId: randomUUID(),
      max: deps.maxConcurrent,
      now,
      leaseUntil: new Date(now.getTime() + EXPORT_LEASE_MS),
    });
    if (!slot)
      throw new AppError("RATE_LIMITED", {
        message: `At most ${deps.maxConcurrent} exports run at once per app installation or key pair: wait for one to finish.`,
        headers: { "retry-after": String(EXPORT_RETRY_AFTER_SECONDS) },
      });
    const limit = request.batchRows ?? deps.batchRows;
    let first: T[];
    try {
      // Read before answering: a database that fails now gets the error envelope, not a cut stream.
      first = await request.read(windowOf(snapshot, after, limit));
    } catch (error) {
      await release(slot);
      throw error;
    }
    const renewal = setInterval(() => {
      deps.slots.renew(slot, new Date(clock.now().getTime() + EXPORT_LEASE_MS)).catch(() => {
        // The next batch's read meets the same database; the lease has 40 s left meanwhile.
      });
    }, EXPORT_LEASE_MS / 3);
    renewal.unref();

    async function* lines(): AsyncGenerator<string> {
      let batch = first;
      let checked = performance.now();
      try {
        while (batch.length > 0) {
          const last = batch[batch.length - 1]!.id;
          // The next batch is read while this one is written; a short batch was the last.
          const next = batch.length === limit ? request.read(windowOf(snapshot, last, limit)) : null;
          // Awaited below; this only keeps a client that leaves first from leaving it unhandled.
          next?.catch(() => {});
          let text = "";
          for (const record of batch) text += `${JSON.stringify(record)}\n`;
          yield text;
          if (!next) return;
          if (performance.now() - checked >= EXPORT_RECHECK_MS) {
            await request.stillAllowed();
            checked = performance.now();
          }
          batch = await next;
        }
      } finally {
        finish();
      }
    }

    const source = Readable.from(lines(), { objectMode: false });
    running.add(source);
    let finished = false;
    // Once, from whichever comes first: the last line, or the stream's destruction (a client that
    // left, a failed read, shutdown), even before the generator ever ran.
    const finish = () => {
      if (finished) return;
      finished = true;
      clearInterval(renewal);
      running.delete(source);
      void release(slot);
    };
    source.once("close", finish);
    let body: Readable = source;
    if (request.gzip) {
      const gzip = createGzip({ level: GZIP_LEVEL });
      // Either side failing or closing early destroys the other (and so ends the generator).
      pipeline(source, gzip, () => {});
      body = gzip;
    }
    return { body, snapshot, token: encodeSnapshot(snapshot) };
  }

  async function release(slot: ExportSlot) {
    try {
      await deps.slots.release(slot);
    } catch (error) {
      deps.onReleaseError?.(error);
    }
  }

  return {
    start,
    /** Exports running in this process. */
    running: () => running.size,
    /**
     * Server shutdown: every running export stops now (the client resumes from its last line on
     * another process). Its response is cut, not ended, so the client cannot take it for complete.
     */
    closeAll(): void {
      for (const source of running) source.destroy(new Error("The server is shutting down."));
    },
  };
}
export type ExportService = ReturnType<typeof createExportService>;
