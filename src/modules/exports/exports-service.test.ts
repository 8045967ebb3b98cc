import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { setImmediate as tick } from "node:timers/promises";
import { AppError } from "../../lib/errors.ts";
import type { ExportWindow } from "../../lib/pagination.ts";
import type { ExportPool } from "./exports-repo.ts";
import { createExportService, type ExportLimits, type ExportRequest } from "./exports-service.ts";

/**
 * The export stream's flow control, on a stand-in for the client's socket: a writable that takes
 * a chunk only when the test lets it (as a socket whose peer stopped reading), so what the export
 * reads, holds and pushes while its client is paused is counted exactly.
 */

const LIMITS: ExportLimits = {
  perHolder: 2,
  perStore: 4,
  perAccount: 8,
  perProcess: 3,
  batchRows: 100,
  batchChars: 1_000_000,
  idleMs: 60_000,
};
const STORE = { id: "store_a", owner_account_id: "acct_a" };
const RECORDS = 1000;
/** Each record about 300 characters: a batch of 100 is more than the 16 KiB a socket buffers. */
const FILLER = "f".repeat(280);

/** Slots that always have room, keeping what is held (the database's part is test/bulk-export.test.ts). */
function freeSlots() {
  const held = new Set<string>();
  return {
    held,
    claim: async (input: { pools: readonly ExportPool[]; exportId: string }) => {
      held.add(input.exportId);
      return { lease: { exportId: input.exportId } };
    },
    renew: async () => true,
    release: async (lease: { exportId: string }) => {
      held.delete(lease.exportId);
    },
  };
}

/** A store of RECORDS records; counts every batch read and the records it returned. */
function source() {
  const reads: ExportWindow[] = [];
  let revoked = false;
  const request: ExportRequest<{ id: string; n: number; filler: string }> = {
    resource: "products",
    store: STORE,
    holder: "apikey:mpk_a",
    query: {},
    gzip: false,
    async read(window) {
      reads.push(window);
      const start = window.after === null ? 0 : Number(window.after.slice(5)) + 1;
      const end = Math.min(RECORDS, start + window.limit);
      return Array.from({ length: end - start }, (_, i) => ({
        id: `prod_${String(start + i).padStart(6, "0")}`,
        n: start + i,
        filler: FILLER,
      }));
    },
    async stillAllowed() {
      if (revoked) throw new AppError("INVALID_CREDENTIALS");
    },
  };
  return {
    request,
    reads,
    revoke: () => {
      revoked = true;
    },
  };
}

/** A socket whose peer reads only when told: `take(n)` lets n more chunks through. */
function pausedClient() {
  const chunks: string[] = [];
  let allowance = 0;
  let waiting: (() => void) | null = null;
  const sink = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString("utf8"));
      if (allowance > 0) {
        allowance--;
        done();
      } else waiting = done;
    },
  });
  return {
    sink,
    chunks,
    take(n: number) {
      allowance += n;
      if (waiting && allowance > 0) {
        allowance--;
        const done = waiting;
        waiting = null;
        done();
      }
    },
    lines: () => chunks.join("").split("\n").filter(Boolean).length,
  };
}

/** Lets the stream and its reads run until nothing more happens (reads resolve at once here). */
async function settle() {
  for (let i = 0; i < 20; i++) await tick();
}

describe("export stream: flow control", () => {
  it("reads the next batch only when the client has taken the last one: a paused client holds one batch", async () => {
    const slots = freeSlots();
    const service = createExportService({ slots, clock: { now: () => new Date() }, limits: LIMITS });
    const s = source();
    const started = await service.start(s.request);
    assert.equal(s.reads.length, 1, "the first batch is read before the answer starts");
    const client = pausedClient();
    started.body.pipe(client.sink);
    await settle();
    // The client took nothing yet: its socket holds the first batch, and nothing more is read.
    assert.equal(client.chunks.length, 1);
    assert.equal(s.reads.length, 1, "no batch read ahead for a paused client");
    for (let taken = 1; taken <= 3; taken++) {
      client.take(1);
      await settle();
      assert.equal(client.chunks.length, taken + 1);
      assert.equal(s.reads.length, taken + 1, "one batch read per batch taken");
    }
    // Draining to the end: every record exactly once, in order, then the stream ends.
    const ended = new Promise((resolve) => client.sink.on("finish", resolve));
    client.take(1_000);
    await ended;
    const ids = client.chunks
      .join("")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).n as number);
    assert.deepEqual(
      ids,
      Array.from({ length: RECORDS }, (_, i) => i),
    );
    await settle();
    assert.equal(service.running(), 0);
    assert.equal(slots.held.size, 0, "its slots are given back");
  });

  it("checks the credential before every batch: after a revocation nothing more is read or sent", async () => {
    const service = createExportService({
      slots: freeSlots(),
      clock: { now: () => new Date() },
      limits: LIMITS,
    });
    const s = source();
    const started = await service.start(s.request);
    const client = pausedClient();
    const failed = new Promise<Error>((resolve) => started.body.on("error", resolve));
    started.body.pipe(client.sink);
    client.take(2);
    await settle();
    const sent = client.chunks.length;
    const read = s.reads.length;
    s.revoke();
    client.take(1_000);
    assert.equal((await failed).constructor, AppError, "the body is destroyed with the refusal");
    await settle();
    assert.equal(s.reads.length, read, "no batch read after the revocation");
    assert.equal(client.chunks.length, sent, "nothing written after the revocation");
  });

  it("sizes batches by characters, not rows: large records come fewer at a time", async () => {
    const service = createExportService({
      slots: freeSlots(),
      clock: { now: () => new Date() },
      limits: { ...LIMITS, batchRows: 2000, batchChars: 100_000 },
    });
    const s = source();
    const big = "x".repeat(5_000);
    const read = s.request.read.bind(s.request);
    s.request.read = async (window) => (await read(window)).map((r) => ({ ...r, big }));
    const started = await service.start(s.request);
    const client = pausedClient();
    started.body.pipe(client.sink);
    client.take(3);
    await settle();
    // First batch 100 rows (its start), then ~100,000 characters of 5,340-character records: 18.
    assert.deepEqual(
      s.reads.map((w) => w.limit),
      [100, 18, 18, 18],
    );
    assert.ok(Math.max(...client.chunks.slice(1).map((c) => c.length)) <= 100_000);
    started.body.destroy();
  });

  it("cuts an export whose client takes nothing for idleMs, and gives its slots back", async () => {
    const slots = freeSlots();
    const service = createExportService({
      slots,
      clock: { now: () => new Date() },
      limits: { ...LIMITS, idleMs: 300 },
    });
    const s = source();
    const started = await service.start(s.request);
    const client = pausedClient();
    const failed = new Promise<Error>((resolve) => started.body.on("error", resolve));
    started.body.pipe(client.sink);
    assert.match((await failed).message, /took nothing/);
    await settle();
    assert.equal(service.running(), 0);
    assert.equal(slots.held.size, 0);
  });

  it("runs at most perProcess exports in this process, counted one by one in a burst; a refused one gives its tenant slots back", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slots = freeSlots();
    const claim = slots.claim;
    // Claims wait at the gate: the burst is counted while none has its slots yet.
    slots.claim = async (input) => {
      await gate;
      return claim(input);
    };
    const service = createExportService({ slots, clock: { now: () => new Date() }, limits: LIMITS });
    const burst = Array.from({ length: 6 }, () => service.start(source().request).catch((e: unknown) => e));
    release();
    const results = await Promise.all(burst);
    const refused = results.filter((r) => r instanceof AppError);
    assert.equal(results.length - refused.length, LIMITS.perProcess);
    for (const r of refused) {
      assert.equal((r as AppError).code, "RATE_LIMITED");
      assert.match((r as AppError).message, /per process/);
      assert.equal((r as AppError).headers?.["retry-after"], "5");
    }
    for (const r of results)
      if (!(r instanceof AppError)) (r as { body: { destroy(): void } }).body.destroy();
    await settle();
    assert.equal(service.running(), 0);
    assert.equal(slots.held.size, 0, "the refused ones' slots were given back too");
    // Freed: the next one runs.
    const next = await service.start(source().request);
    next.body.destroy();
  });
});
