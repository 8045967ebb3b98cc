import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryWindowStore, decide } from "./sliding-window.ts";

describe("sliding window (memory store)", () => {
  it("accepts `limit` hits in any window and refuses the next", async () => {
    const store = createMemoryWindowStore();
    for (let i = 0; i < 180; i++) assert.equal((await store.hit("k", 180, 60_000, 1000 + i)).allowed, true);
    const refused = await store.hit("k", 180, 60_000, 1500);
    assert.equal(refused.allowed, false);
    assert.equal(refused.count, 180);
    const d = decide(refused, 180, 60_000, 1500);
    assert.deepEqual(d, { allowed: false, limit: 180, remaining: 0, resetSeconds: 60 });
  });

  it("frees slots one by one as the oldest hits leave the window (no boundary burst)", async () => {
    const store = createMemoryWindowStore();
    await store.hit("k", 2, 60_000, 0);
    await store.hit("k", 2, 60_000, 30_000);
    assert.equal((await store.hit("k", 2, 60_000, 59_999)).allowed, false);
    assert.equal((await store.hit("k", 2, 60_000, 60_000)).allowed, true);
    assert.equal((await store.hit("k", 2, 60_000, 60_001)).allowed, false);
    assert.equal((await store.hit("k", 2, 60_000, 90_000)).allowed, true);
  });

  it("keeps keys apart and reports remaining capacity", async () => {
    const store = createMemoryWindowStore();
    await store.hit("a", 3, 1000, 0);
    const b = await store.hit("b", 3, 1000, 0);
    assert.deepEqual(decide(b, 3, 1000, 0), { allowed: true, limit: 3, remaining: 2, resetSeconds: 0 });
    assert.equal((await store.peek("a", 1000, 10)).count, 1);
    await store.clear("a");
    assert.equal((await store.peek("a", 1000, 10)).count, 0);
  });

  it("takes a hit of some cost whole or not at all, and says when there is room for it", async () => {
    const store = createMemoryWindowStore();
    assert.equal((await store.hit("k", 10, 60_000, 0, 4)).allowed, true);
    assert.equal((await store.hit("k", 10, 60_000, 10_000, 4)).allowed, true);
    const refused = await store.hit("k", 10, 60_000, 20_000, 4);
    // 2 more must leave: the first batch's, at 0.
    assert.deepEqual(refused, { allowed: false, count: 8, oldestMs: 0, roomAtMs: 0 });
    // Capacity is left (2), but not enough: the wait is until the first batch leaves, not 0.
    assert.deepEqual(decide(refused, 10, 60_000, 20_000), {
      allowed: false,
      limit: 10,
      remaining: 2,
      resetSeconds: 40,
    });
    assert.equal((await store.hit("k", 10, 60_000, 20_000, 2)).allowed, true, "a smaller one fits");
    // Full (4 at 0, 4 at 10 s, 2 at 20 s): 6 must leave for a cost of 6, the 6th oldest at 10 s.
    assert.equal((await store.hit("k", 10, 60_000, 30_000, 6)).roomAtMs, 10_000);
    assert.equal((await store.hit("k", 10, 60_000, 60_000, 4)).allowed, true, "the first batch left");
    assert.equal((await store.peek("k", 60_000, 60_000)).count, 10);
    const tooBig = await store.hit("k", 10, 60_000, 60_000, 11);
    assert.equal(tooBig.allowed, false);
    assert.equal(tooBig.roomAtMs, null, "more than the limit never fits");
  });

  it("stays exact over a long log as hits leave the front (compaction included)", async () => {
    const store = createMemoryWindowStore();
    for (let t = 0; t < 5000; t++) {
      const state = await store.hit("k", Number.POSITIVE_INFINITY, 100, t);
      assert.equal(state.count, Math.min(t + 1, 100));
      assert.equal(state.oldestMs, Math.max(0, t - 99));
    }
    assert.deepEqual(await store.peek("k", 100, 5049), { count: 50, oldestMs: 4950 });
    assert.deepEqual(await store.peek("k", 100, 6000), { count: 0, oldestMs: null });
  });

  it("keeps each hit's member through compaction, so a release still takes out the right one", async () => {
    const store = createMemoryWindowStore();
    const members: string[] = [];
    for (let t = 0; t < 300; t++) members.push((await store.reserve("k", 1000, 100, t)).member!);
    // The front has aged out and been compacted several times; t = 250 is still in the window.
    await store.release("k", members[250]!);
    assert.deepEqual(await store.peek("k", 100, 299), { count: 99, oldestMs: 200 });
    await store.release("k", members[200]!);
    assert.deepEqual(await store.peek("k", 100, 299), { count: 98, oldestMs: 201 });
    // Aged out before its release: nothing else goes with it.
    await store.release("k", members[10]!);
    assert.equal((await store.peek("k", 100, 299)).count, 98);
  });
});
