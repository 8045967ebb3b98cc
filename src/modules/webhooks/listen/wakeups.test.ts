import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createWakeups } from "./wakeups.ts";

/** A subscription that counts what was opened and stopped. */
function counting() {
  const counts = { subscribed: 0, stopped: 0 };
  let notify: (storeId: string) => void = () => {};
  const subscribe = async (onEvent: (storeId: string) => void) => {
    counts.subscribed++;
    notify = onEvent;
    return async () => {
      counts.stopped++;
    };
  };
  return { counts, subscribe, notify: (storeId: string) => notify(storeId) };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("listen wake-ups", () => {
  it("subscribes once for every waiter, wakes the waiters of the event's store only, and times out without one", async () => {
    const s = counting();
    const wakeups = createWakeups(s.subscribe);
    const a = wakeups.wait("store_a", 60_000);
    const a2 = wakeups.wait("store_a", 60_000);
    const stop = new AbortController();
    let bWoken: boolean | null = null;
    const b = wakeups.wait("store_b", 60_000, stop.signal).then((w) => {
      bWoken = w;
    });
    await tick();
    s.notify("store_a");
    assert.deepEqual(await Promise.all([a, a2]), [true, true]);
    await tick();
    assert.equal(bWoken, null, "another store's waiter sleeps on");
    assert.equal(wakeups.waiting, 1);
    stop.abort();
    await b;
    assert.equal(bWoken, false);
    assert.equal(await wakeups.wait("store_a", 1), false);
    assert.equal(s.counts.subscribed, 1);
    assert.equal(wakeups.waiting, 0, "nothing is left behind");
    await wakeups.close();
    assert.equal(s.counts.stopped, 1);
  });

  it("a notification without a store (an older sender, a listener that reconnected) wakes every waiter", async () => {
    const s = counting();
    const wakeups = createWakeups(s.subscribe);
    const waits = [wakeups.wait("store_a", 60_000), wakeups.wait("store_b", 60_000)];
    await tick();
    s.notify("");
    assert.deepEqual(await Promise.all(waits), [true, true]);
    await wakeups.close();
  });

  it("a waiter that goes costs the others nothing: 1,000 waiters of one store, 999 abandoned, one woken", async () => {
    const s = counting();
    const wakeups = createWakeups(s.subscribe);
    const controllers = Array.from({ length: 1000 }, () => new AbortController());
    const waits = controllers.map((c) => wakeups.wait("store_a", 60_000, c.signal));
    for (const c of controllers.slice(1)) c.abort();
    assert.equal(wakeups.waiting, 1, "each abandoned wait removed itself");
    s.notify("store_a");
    const results = await Promise.all(waits);
    assert.equal(results.filter(Boolean).length, 1);
    await wakeups.close();
  });

  it("a wait given up through its signal resolves false at once and is not woken later", async () => {
    const s = counting();
    const wakeups = createWakeups(s.subscribe);
    const stop = new AbortController();
    const waiting = wakeups.wait("store_a", 60_000, stop.signal);
    stop.abort();
    assert.equal(await waiting, false);
    assert.equal(await wakeups.wait("store_a", 60_000, AbortSignal.abort()), false, "already aborted");
    await wakeups.close();
  });

  it("close wakes every waiter and stops the listener; a wait after it never subscribes again", async () => {
    const s = counting();
    const wakeups = createWakeups(s.subscribe);
    const waiting = wakeups.wait("store_a", 60_000);
    await wakeups.close();
    assert.equal(await waiting, true);
    assert.equal(wakeups.closed, true);
    // A stream that was finishing a query when the server closed waits once more: no new listener
    // (on PostgreSQL, a connection nothing would end, which kept the process alive).
    assert.equal(await wakeups.wait("store_a", 60_000), true);
    assert.deepEqual(s.counts, { subscribed: 1, stopped: 1 });
  });

  it("an event between a stream's read and its wait wakes it at once; ready() resolves once listening", async () => {
    const s = counting();
    const wakeups = createWakeups(s.subscribe);
    await wakeups.ready();
    assert.equal(s.counts.subscribed, 1);
    const seen = wakeups.generation("store_a"); // noted before the read
    s.notify("store_a"); // committed while the stream was reading
    assert.equal(await wakeups.wait("store_a", 60_000, undefined, seen), true);
    assert.equal(wakeups.waiting, 0, "no waiter or timer left behind");
    // Another store's event, or none, leaves the wait to its timer.
    const quiet = wakeups.generation("store_a");
    s.notify("store_b");
    assert.equal(await wakeups.wait("store_a", 10, undefined, quiet), false);
    // A notification for every store counts for each.
    const before = wakeups.generation("store_a");
    s.notify("");
    assert.equal(await wakeups.wait("store_a", 60_000, undefined, before), true);
    await wakeups.close();
  });
});
