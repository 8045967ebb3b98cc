import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DeliveryStatus } from "../../../contracts/index.ts";
import { createCompletionBatcher, type PendingCompletion } from "./completion-batcher.ts";
import type { Completion } from "./delivery-repo.ts";

const refused = () =>
  Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

const completion = (id: string): Completion => ({
  delivery: { store_id: "store_1", id, subscription_id: "whs_1", attempts: 1, lease_token: "lease" },
  startedAt: new Date(0),
  durationMs: 1,
  statusCode: 200,
  error: null,
  responseBody: "ok",
  next: { status: DeliveryStatus.delivered },
  now: new Date(0),
});

/**
 * A batcher on a manual clock whose writes are answered by the test (each record() call waits
 * for `answer`), and whose pauses move the clock instead of waiting.
 */
function setup(options: { batchSize?: number; leaseMs?: number } = {}) {
  let nowMs = 0;
  const calls: Array<{ ids: string[]; answer: (error?: Error) => void }> = [];
  const pauses: number[] = [];
  const logs: Array<{ level: string; fields: Record<string, unknown> }> = [];
  let retrying = true;
  const batcher = createCompletionBatcher({
    record: (batch) =>
      new Promise<void>((resolve, reject) =>
        calls.push({
          ids: batch.map((c) => c.delivery.id),
          answer: (error) => (error ? reject(error) : resolve()),
        }),
      ),
    clock: { now: () => new Date(nowMs) },
    leaseMs: options.leaseMs ?? 60_000,
    backoff: { firstMs: 100, maxMs: 1000, random: () => 0.5 },
    retrying: () => retrying,
    logger: {
      warn: (fields: Record<string, unknown>) => logs.push({ level: "warn", fields }),
      error: (fields: Record<string, unknown>) => logs.push({ level: "error", fields }),
    } as never,
    async wait(ms) {
      pauses.push(ms);
      nowMs += ms;
    },
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
  });
  const add = (id: string, claimedAt = 0) =>
    batcher.add({ completion: completion(id), claimedAt } satisfies PendingCompletion);
  /** Until the batcher has made its `n`th write call. */
  const nthCall = async (n: number) => {
    for (let i = 0; i < 100 && calls.length < n; i++) await Promise.resolve();
    assert.equal(calls.length, n, `write ${n} made`);
    return calls[n - 1]!;
  };
  return {
    batcher,
    add,
    calls,
    nthCall,
    pauses,
    logs,
    stop: () => {
      retrying = false;
    },
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

describe("completion batcher: batches", () => {
  it("writes at once, and everything added meanwhile in the next statement", async () => {
    const t = setup();
    t.add("a");
    const first = await t.nthCall(1);
    assert.deepEqual(first.ids, ["a"]);
    t.add("b");
    t.add("c");
    assert.equal(t.batcher.waiting, 2, "one write at a time");
    first.answer();
    const second = await t.nthCall(2);
    assert.deepEqual(second.ids, ["b", "c"]);
    second.answer();
    await t.batcher.idle();
    assert.equal(t.calls.length, 2);
  });

  it("never more than batchSize per statement, in the order they finished", async () => {
    const t = setup({ batchSize: 2 });
    t.add("a");
    const first = await t.nthCall(1);
    for (const id of ["b", "c", "d", "e", "f"]) t.add(id);
    first.answer();
    const writes: string[][] = [first.ids];
    for (let n = 2; n <= 4; n++) {
      const call = await t.nthCall(n);
      writes.push(call.ids);
      call.answer();
    }
    await t.batcher.idle();
    assert.deepEqual(writes, [["a"], ["b", "c"], ["d", "e"], ["f"]]);
  });
});

describe("completion batcher: the database goes away", () => {
  it("writes a batch again after a growing pause while the database is unavailable, then goes on", async () => {
    const t = setup();
    t.add("a");
    (await t.nthCall(1)).answer(refused());
    (await t.nthCall(2)).answer(refused());
    const third = await t.nthCall(3);
    assert.deepEqual(third.ids, ["a"]);
    third.answer();
    await t.batcher.idle();
    assert.deepEqual(t.pauses, [100, 200]);
    assert.equal(t.logs.filter((l) => l.level === "error").length, 0, "an outage is not an error");
    assert.deepEqual(
      t.logs.map((l) => l.fields.retryInMs),
      [100, 200],
    );
  });

  it("drops what would outlive its lease during the pause, with an error naming it; keeps the rest first in line", async () => {
    const t = setup({ leaseMs: 1000 });
    t.add("old", 0);
    t.add("young", 800);
    const first = await t.nthCall(1);
    t.advance(950);
    t.add("later", 950);
    // At 950 with a 100 ms pause: "old" has 50 ms of lease left, "young" 850.
    first.answer(refused());
    const second = await t.nthCall(2);
    assert.deepEqual(second.ids, ["young", "later"]);
    second.answer();
    await t.batcher.idle();
    const errors = t.logs.filter((l) => l.level === "error");
    assert.deepEqual(
      errors.map((l) => l.fields.deliveries),
      [["old"]],
    );
  });

  it("any other failure drops the batch at once (its leases end and it is attempted again)", async () => {
    const t = setup();
    t.add("a");
    (await t.nthCall(1)).answer(new Error("syntax error at or near"));
    await t.batcher.idle();
    assert.equal(t.calls.length, 1);
    assert.deepEqual(t.pauses, []);
    assert.deepEqual(
      t.logs.map((l) => [l.level, l.fields.deliveries]),
      [["error", ["a"]]],
    );
  });

  it("once stopping, a batch is not kept waiting for the database", async () => {
    const t = setup();
    t.add("a");
    const first = await t.nthCall(1);
    t.stop();
    first.answer(refused());
    await t.batcher.idle();
    assert.equal(t.calls.length, 1);
    assert.equal(t.logs.filter((l) => l.level === "error").length, 1);
  });
});
