import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createAccessCache } from "./access-cache.ts";

function fakeTime() {
  let t = 1000;
  const sleeps: number[] = [];
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
    sleeps,
    // A timer that fires 1 ms early against the clock, as the event loop's cached time can.
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms - 1;
    },
  };
}

describe("access token cache", () => {
  it("trusts an entry for ttlMs from the start of the read that verified it, not from when it was stored", () => {
    const time = fakeTime();
    const cache = createAccessCache<string>({ ttlMs: 500, now: time.now, sleep: time.sleep });
    const started = time.now();
    time.advance(200); // the read took 200 ms
    cache.set("t", "ctx", Number.MAX_SAFE_INTEGER, started);
    assert.equal(cache.get("t", time.now())?.value, "ctx");
    time.advance(299);
    assert.equal(cache.get("t", time.now())?.value, "ctx");
    time.advance(1);
    assert.equal(cache.get("t", time.now()), undefined, "500 ms after the read began");
  });

  it("revoked() forgets every entry and answers only once ttlMs has passed on the clock, even with early timers", async () => {
    const time = fakeTime();
    const cache = createAccessCache<string>({ ttlMs: 500, now: time.now, sleep: time.sleep });
    const readStarted = time.now();
    cache.set("t", "ctx", Number.MAX_SAFE_INTEGER, readStarted);
    const committed = time.now();
    await cache.revoked();
    assert.equal(cache.get("t", readStarted), undefined, "forgotten at once on this instance");
    assert.ok(time.now() - committed >= 500, `answered after ${time.now() - committed} ms`);
    // What another instance holds: an entry whose read began before the commit is no longer trusted.
    const other = createAccessCache<string>({ ttlMs: 500, now: time.now, sleep: time.sleep });
    other.set("t", "ctx", Number.MAX_SAFE_INTEGER, committed);
    assert.equal(other.get("t", time.now()), undefined);
  });

  it("keeps at most maxEntries, dropping the oldest", () => {
    const time = fakeTime();
    const cache = createAccessCache<number>({ ttlMs: 500, maxEntries: 2, now: time.now });
    for (const [i, key] of ["a", "b", "c"].entries()) cache.set(key, i, Number.MAX_SAFE_INTEGER, time.now());
    assert.equal(cache.get("a", time.now()), undefined);
    assert.equal(cache.get("c", time.now())?.value, 2);
  });

  it("with ttlMs 0 remembers nothing and revocations do not wait", async () => {
    const time = fakeTime();
    const cache = createAccessCache<string>({ ttlMs: 0, now: time.now, sleep: time.sleep });
    cache.set("t", "ctx", Number.MAX_SAFE_INTEGER, time.now());
    assert.equal(cache.get("t", time.now()), undefined);
    await cache.revoked();
    assert.deepEqual(time.sleeps, []);
  });
});
