import { randomUUID } from "node:crypto";
import { pipeline, Readable } from "node:stream";
import { createGzip } from "node:zlib";
import type { Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError } from "../../lib/errors.ts";
import type { ExportWindow } from "../../lib/pagination.ts";
import { nextBatchRows } from "./export-batches.ts";
import {
  type ExportResource,
  type ExportSnapshot,
  encodeSnapshot,
  startOf,
  windowOf,
} from "./export-position.ts";
import type { ExportLease, ExportPool, ExportSlotRepo } from "./exports-repo.ts";

/** A slot's lease; renewed every third of it while the export runs, so only a dead process's slot lapses. */
export const EXPORT_LEASE_MS = 60_000;
/** Retry-After of the 429 past a concurrency bound: a 1,000,000-record export takes about 10 s. */
export const EXPORT_RETRY_AFTER_SECONDS = 5;
/** Rows of an export's first batch, read before the answer starts: small, whatever the records weigh. */
const FIRST_BATCH_ROWS = 100;
/**
 * gzip level 1: JSON Lines still shrink to about a fifth, at several times the speed of the
 * default level 6, which would make the compression, not the database, the export's limit.
 */
const GZIP_LEVEL = 1;

/** The bounds of bulk exports (config EXPORT_*), each a level one tenant controls, and the process's own. */
export interface ExportLimits {
  /** Running at once per app installation or key pair, over every process. */
  perHolder: number;
  /** Per store, over every process and every installation and key pair of the store. */
  perStore: number;
  /** Per merchant account, over every store it owns and every process. */
  perAccount: number;
  /** Running in this process, whoever runs them. */
  perProcess: number;
  /** Most records read per statement (a resource may ask for fewer). */
  batchRows: number;
  /** About how many characters of JSON Lines one batch may hold: fewer rows when records are large. */
  batchChars: number;
  /** An export whose client takes nothing for this long is cut (it resumes with its snapshot). */
  idleMs: number;
}

/** What one export request needs from its route: where, for whom, and how to read a batch. */
export interface ExportRequest<T extends { id: string }> {
  resource: ExportResource;
  /** The store exported; its owner's account is a bound too. */
  store: Pick<Store, "id" | "owner_account_id">;
  /** Whose per-holder bound it counts against: `install:<id>` or `apikey:<key id>`. */
  holder: string;
  query: {
    updatedSince?: string | undefined;
    snapshot?: string | undefined;
    after?: string | undefined;
    locationId?: string | undefined;
  };
  gzip: boolean;
  /** One batch, each record exactly as the resource's list shows it to this caller. */
  read(window: ExportWindow): Promise<T[]>;
  /** Throws once the credential that started the export may no longer read (revoked, expired). */
  stillAllowed(): Promise<void>;
  /** Most records per batch for this resource (the configured default when absent). */
  batchRows?: number;
  /**
   * How a batch is written (the dashboard's CSV download: rows of its columns); JSON Lines, a
   * record per line, when absent. The batching and the bounds are the same whatever the format.
   */
  format?: ExportFormat<T>;
}

/** A format of an export's body other than JSON Lines: what starts it, and a batch's text. */
export interface ExportFormat<T> {
  /** Written first, even when nothing follows (a CSV file's header). */
  head: string;
  encode(batch: readonly T[]): string;
}

export interface StartedExport {
  /** The body: JSON Lines, gzipped when asked; it ends after the last record, or is destroyed on failure. */
  body: Readable;
  snapshot: ExportSnapshot;
  /** The `X-Export-Snapshot` token to resume with. */
  token: string;
}

const LEVEL_WORDS: Record<string, string> = {
  install: "app installation",
  apikey: "key pair",
  dashboard: "signed-in merchant",
  store: "store",
  account: "merchant account (over all its stores)",
};

function tooMany(max: number, level: string): AppError {
  return new AppError("RATE_LIMITED", {
    message: `At most ${max} exports run at once per ${LEVEL_WORDS[level] ?? level}: wait for one to finish.`,
    headers: { "retry-after": String(EXPORT_RETRY_AFTER_SECONDS) },
  });
}

/**
 * Bulk exports: each request streams the records after its position in id order, one batch at a
 * time, read only when the client has taken the previous one. The body is a stream with no buffer
 * of its own (highWaterMark 0): a batch is read when the response has written out the one before
 * (its socket drained), so a client that stops reading holds at most the one batch its socket
 * already took, and nothing more is read for it; a batch is about `batchChars` characters whatever
 * the records weigh. Before each batch the credential is checked again, so a revocation stops
 * what follows it. An export whose client takes nothing for `idleMs` is cut.
 *
 * Bounded at every level a tenant controls, over every process (slots in the database,
 * exports-repo.ts: per holder, per store, per account), then per process (in memory): each place is
 * reserved first and the request refused past the bound, so a burst is counted one by one.
 */
export function createExportService(deps: {
  slots: Pick<ExportSlotRepo, "claim" | "renew" | "release">;
  clock: Clock;
  limits: ExportLimits;
  /** Where a slot that could not be given back is reported (its lease lapses anyway). */
  onReleaseError?: (error: unknown) => void;
}) {
  const { clock, limits } = deps;
  const running = new Set<Readable>();
  /** This process's exports, counted from the moment one is reserved (before its slots are claimed). */
  let reserved = 0;

  async function claimSlots(request: ExportRequest<{ id: string }>, now: Date): Promise<ExportLease> {
    const [level = ""] = request.holder.split(":");
    const pools: ExportPool[] = [
      { pool: request.holder, max: limits.perHolder },
      { pool: `store:${request.store.id}`, max: limits.perStore },
      { pool: `account:${request.store.owner_account_id}`, max: limits.perAccount },
    ];
    const claimed = await deps.slots.claim({
      pools,
      exportId: randomUUID(),
      now,
      leaseUntil: new Date(now.getTime() + EXPORT_LEASE_MS),
    });
    if ("lease" in claimed) return claimed.lease;
    const full = claimed.full.pool === request.holder ? level : claimed.full.pool.split(":")[0]!;
    throw tooMany(claimed.full.max, full);
  }

  async function start<T extends { id: string }>(request: ExportRequest<T>): Promise<StartedExport> {
    const now = clock.now();
    // 400s first: a request that cannot run takes no slot.
    const { snapshot, after } = startOf(request.resource, request.query, now);
    // The tenant's bounds first: a tenant's burst then holds at most its own bound's worth of this
    // process's places, even for the moment of its claims, and never crowds out other tenants.
    const held = await claimSlots(request, now);
    // Reserve, then check: the count includes this export before anything else is awaited.
    reserved++;
    const maxRows = Math.min(request.batchRows ?? limits.batchRows, limits.batchRows);
    let rows = Math.min(FIRST_BATCH_ROWS, maxRows);
    let first: T[];
    try {
      if (reserved > limits.perProcess) throw tooMany(limits.perProcess, "process");
      // Read before answering: a database that fails now gets the error envelope, not a cut stream.
      first = await request.read(windowOf(snapshot, after, rows));
    } catch (error) {
      reserved--;
      await release(held);
      throw error;
    }
    const renewal = setInterval(() => {
      deps.slots.renew(held, new Date(clock.now().getTime() + EXPORT_LEASE_MS)).catch(() => {
        // The next batch's read meets the same database; the lease has 40 s left meanwhile.
      });
    }, EXPORT_LEASE_MS / 3);
    renewal.unref();

    let pending: T[] | null = first;
    /** The format's head, until it is written with the first batch. */
    let head = request.format?.head ?? "";
    let position = after;
    let reading = false;
    /** When the client last took something (the response asked for the next batch). */
    let lastTaken = performance.now();

    /** Reads, checks and pushes the next batch; the stream calls it only once the last one was taken. */
    async function pushNext(): Promise<void> {
      if (reading) return;
      reading = true;
      lastTaken = performance.now();
      try {
        let batch = pending;
        pending = null;
        const asked = rows;
        if (!batch) {
          // The credential is checked again before every batch: once it is revoked, nothing more
          // is read, and what reaches the client after it is what its socket already held.
          await request.stillAllowed();
          batch = await request.read(windowOf(snapshot, position, asked));
        }
        if (source.destroyed) return;
        if (batch.length === 0) {
          if (head) source.push(head);
          source.push(null);
          return;
        }
        let text = head;
        head = "";
        if (request.format) text += request.format.encode(batch);
        else for (const record of batch) text += `${JSON.stringify(record)}\n`;
        position = batch[batch.length - 1]!.id;
        rows = nextBatchRows(
          { rows: batch.length, chars: text.length },
          { maxRows, targetChars: limits.batchChars },
        );
        source.push(text);
        // A short batch was the last.
        if (batch.length < asked) source.push(null);
      } catch (error) {
        source.destroy(error as Error);
      } finally {
        reading = false;
      }
    }

    // highWaterMark 0: nothing is read ahead into the stream; read() comes only from a consumer
    // that has written out everything it was given (see the service's comment).
    const source = new Readable({
      highWaterMark: 0,
      read() {
        void pushNext();
      },
    });
    running.add(source);
    const idle = setInterval(
      () => {
        if (!reading && performance.now() - lastTaken >= limits.idleMs)
          source.destroy(new Error("The export's client took nothing for too long."));
      },
      Math.max(250, Math.min(5000, limits.idleMs / 4)),
    );
    idle.unref();
    let finished = false;
    // Once, from whichever comes first: the last line, or the stream's destruction (a client that
    // left, a failed read, an idle client, shutdown), even before anything was read.
    const finish = () => {
      if (finished) return;
      finished = true;
      clearInterval(renewal);
      clearInterval(idle);
      pending = null;
      // Counted as running until its leases are given back: `running()` reaching 0 means every
      // slot is free in the database too, and no export starts here in the meantime past the
      // process's bound.
      void release(held).finally(() => {
        running.delete(source);
        reserved--;
      });
    };
    source.once("close", finish);
    let body: Readable = source;
    if (request.gzip) {
      const gzip = createGzip({ level: GZIP_LEVEL });
      // Either side failing or closing early destroys the other (and so ends the export).
      pipeline(source, gzip, () => {});
      body = gzip;
    }
    return { body, snapshot, token: encodeSnapshot(snapshot) };
  }

  async function release(lease: ExportLease) {
    try {
      await deps.slots.release(lease);
    } catch (error) {
      deps.onReleaseError?.(error);
    }
  }

  return {
    start,
    /** The bounds it applies (the routes' documentation states them). */
    limits,
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
