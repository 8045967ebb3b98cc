import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createWakeups } from "./wakeups.ts";

/** A subscription that counts what was opened and stopped. */
function counting() {
  const counts = { subscribed: 0, stopped: 0 };
  let notify: () => void = () => {};
  const subscribe = async (onEvent: () => void) => {
    counts.subscribed++;
    notify = onEvent;
    return async () => {
      counts.stopped++;
    };
  };
  return { counts, subscribe, notify: () => notify() };
}

describe("listen wake-ups", () => {
  it("subscribes once for every waiter, wakes them all on an event, and times out without one", async () => {
    const s = counting();
    const wakeups = createWakeups(s.subscribe);
    const a = wakeups.wait(60_000);
    const b = wakeups.wait(60_000);
    await new Promise((r) => setImmediate(r));
    s.notify();
    assert.deepEqual(await Promise.all([a, b]), [true, true]);
    assert.equal(await wakeups.wait(1), false);
    assert.equal(s.counts.subscribed, 1);
    await wakeups.close();
    assert.equal(s.counts.stopped, 1);
  });

  it("a wait given up through its signal resolves false at once and is not woken later", async () => {
    const s = counting();
    const wakeups = createWakeups(s.subscribe);
    const stop = new AbortController();
    const waiting = wakeups.wait(60_000, stop.signal);
    stop.abort();
    assert.equal(await waiting, false);
    assert.equal(await wakeups.wait(60_000, AbortSignal.abort()), false, "already aborted");
    await wakeups.close();
  });

  it("close wakes every waiter and stops the listener; a wait after it never subscribes again", async () => {
    const s = counting();
    const wakeups = createWakeups(s.subscribe);
    const waiting = wakeups.wait(60_000);
    await wakeups.close();
    assert.equal(await waiting, true);
    assert.equal(wakeups.closed, true);
    // A stream that was finishing a query when the server closed waits once more: no new listener
    // (on PostgreSQL, a connection nothing would end, which kept the process alive).
    assert.equal(await wakeups.wait(60_000), true);
    assert.deepEqual(s.counts, { subscribed: 1, stopped: 1 });
  });
});
