import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createFallbackWindowStore, type FallbackEvent } from "./fallback-window-store.ts";
import { createRateLimiter } from "./limiters.ts";
import { createMemoryWindowStore, type SlidingWindowStore } from "./sliding-window.ts";

/** A shared store that can be taken down: while down every call fails like a Redis time-out. */
function fakeShared() {
  const inner = createMemoryWindowStore();
  const state = { down: false, calls: 0, pings: 0 };
  const guard = () => {
    state.calls++;
    if (state.down) throw new Error("Command timed out");
  };
  const store: SlidingWindowStore = {
    async hit(...args) {
      guard();
      return inner.hit(...args);
    },
    async reserve(...args) {
      guard();
      return inner.reserve(...args);
    },
    async release(...args) {
      guard();
      return inner.release(...args);
    },
    async peek(...args) {
      guard();
      return inner.peek(...args);
    },
    async clear(key) {
      guard();
      return inner.clear(key);
    },
  };
  const ping = async () => {
    state.pings++;
    if (state.down) throw new Error("Command timed out");
    return "PONG";
  };
  return { store, ping, state, inner };
}

function setup(probeIntervalMs = 3_600_000) {
  let nowMs = 1_000_000;
  const clock = {
    now: () => new Date(nowMs),
    advance(ms: number) {
      nowMs += ms;
    },
  };
  const shared = fakeShared();
  const events: FallbackEvent[] = [];
  let fallbacks = 0;
  /** The memory store of each outage, newest last. */
  const memories: SlidingWindowStore[] = [];
  const store = createFallbackWindowStore({
    primary: shared.store,
    ping: shared.ping,
    clock,
    probeIntervalMs,
    onChange: (event) => events.push(event),
    onFallback: () => fallbacks++,
    createFallback: () => {
      const memory = createMemoryWindowStore();
      memories.push(memory);
      return memory;
    },
  });
  const limiter = createRateLimiter({ store, clock }, 3, 60_000);
  return { clock, shared, store, events, limiter, fallbacks: () => fallbacks, memories };
}

describe("fallback window store (circuit around the shared store)", () => {
  it("uses the shared store while it answers, and nothing else", async () => {
    const { shared, store, events, limiter, fallbacks } = setup();
    for (let i = 0; i < 3; i++) assert.equal((await limiter.consume("k")).allowed, true);
    assert.equal((await limiter.consume("k")).allowed, false);
    assert.equal(shared.state.calls, 4);
    assert.equal(store.degraded(), false);
    assert.deepEqual(events, []);
    assert.equal(fallbacks(), 0);
    store.close();
  });

  it("answers from memory when the shared store fails, opening the circuit once for many failures", async () => {
    const { shared, store, events, limiter, fallbacks } = setup();
    shared.state.down = true;
    // Ten requests fail at the same moment: no error reaches them, one transition is reported.
    const decisions = await Promise.all(Array.from({ length: 10 }, (_, i) => limiter.consume(`k${i}`)));
    assert.ok(decisions.every((d) => d.allowed && d.remaining === 2));
    assert.equal(store.degraded(), true);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0], { degraded: true, error: new Error("Command timed out") });
    assert.equal(fallbacks(), 10);
    store.close();
  });

  it("does not call the shared store at all while open, and still enforces the limit in memory", async () => {
    const { shared, store, limiter } = setup();
    shared.state.down = true;
    await limiter.consume("k");
    const callsWhenOpened = shared.state.calls;
    assert.equal((await limiter.consume("k")).allowed, true);
    assert.equal((await limiter.consume("k")).allowed, true);
    const refused = await limiter.consume("k");
    assert.deepEqual(refused, { allowed: false, limit: 3, remaining: 0, resetSeconds: 60 });
    assert.equal(shared.state.calls, callsWhenOpened, "no request waits on a store known to be down");
    store.close();
  });

  it("closes after a successful probe (not before), reporting the outage's length, with fresh counters next time", async () => {
    const { clock, shared, store, events, limiter } = setup();
    shared.state.down = true;
    for (let i = 0; i < 3; i++) await limiter.consume("k");
    clock.advance(12_500);
    await store.probe();
    assert.equal(store.degraded(), true, "a failed probe keeps the circuit open");
    shared.state.down = false;
    assert.equal(store.degraded(), true, "recovery is noticed by a probe, not by a request");
    await store.probe();
    assert.equal(store.degraded(), false);
    assert.deepEqual(events.at(-1), { degraded: false, downMs: 12_500, fallbackOperations: 3 });
    assert.equal(events.length, 2);
    // Back on the shared store, which never saw the outage's hits.
    const calls = shared.state.calls;
    assert.equal((await limiter.consume("k")).remaining, 2);
    assert.equal(shared.state.calls, calls + 1);
    // A second outage starts its memory counts from zero and is reported once again.
    shared.state.down = true;
    assert.equal((await limiter.consume("k")).remaining, 2);
    assert.equal(events.length, 3);
    store.close();
  });

  it("probes once at a time, however many ask", async () => {
    const { shared, store } = setup();
    shared.state.down = true;
    await store.peek("k", 1000, 0);
    const pings = shared.state.pings;
    await Promise.all([store.probe(), store.probe(), store.probe()]);
    assert.equal(shared.state.pings, pings + 1);
    store.close();
  });

  it("reports readiness without I/O while open, and opens the circuit when a readiness ping fails", async () => {
    const { shared, store, events } = setup();
    assert.equal(await store.healthy(), true);
    shared.state.down = true;
    assert.equal(await store.healthy(), false);
    assert.equal(store.degraded(), true);
    assert.equal(events.length, 1);
    const pings = shared.state.pings;
    assert.equal(await store.healthy(), false);
    assert.equal(shared.state.pings, pings, "no ping while open");
    store.close();
  });

  it("reserves and releases on the shared store while it answers", async () => {
    const { shared, store } = setup();
    const held = await store.reserve("k", 2, 60_000, 0);
    assert.equal(held.allowed, true);
    assert.equal((await shared.inner.peek("k", 60_000, 0)).count, 1);
    await store.release("k", held.member!);
    assert.equal((await shared.inner.peek("k", 60_000, 0)).count, 0);
    store.close();
  });

  it("makes a release that reaches the other store than its reservation harmless", async () => {
    const { shared, store, memories } = setup();
    // Reserved on the shared store, released after the circuit opened: memory does not know the
    // member, nothing fails, and the shared store keeps the entry until it ages out.
    const onShared = await store.reserve("k", 2, 60_000, 0);
    shared.state.down = true;
    await store.reserve("k", 2, 60_000, 0);
    assert.equal(store.degraded(), true);
    await store.release("k", onShared.member!);
    assert.equal((await memories[0]!.peek("k", 60_000, 0)).count, 1, "the outage's own entry stays");
    assert.equal((await shared.inner.peek("k", 60_000, 0)).count, 1, "an extra count...");
    assert.equal((await shared.inner.peek("k", 60_000, 60_000)).count, 0, "...that ages out");

    // Reserved in memory during the outage, released after it ended: unknown to the shared store.
    const inMemory = await store.reserve("m", 2, 60_000, 0);
    shared.state.down = false;
    await store.probe();
    assert.equal(store.degraded(), false);
    await store.reserve("m", 2, 60_000, 0);
    await store.release("m", inMemory.member!);
    assert.equal((await shared.inner.peek("m", 60_000, 0)).count, 1, "another entry is not taken out");
    store.close();
  });

  it("never takes out the next outage's entry with a release meant for the last one's", async () => {
    const { shared, store, memories } = setup();
    shared.state.down = true;
    const first = await store.reserve("k", 2, 60_000, 0);
    shared.state.down = false;
    await store.probe();
    shared.state.down = true;
    await store.reserve("k", 2, 60_000, 0);
    assert.equal(memories.length, 2);
    await store.release("k", first.member!);
    assert.equal((await memories[1]!.peek("k", 60_000, 0)).count, 1);
    store.close();
  });

  it("probes in the background while open, and stops probing once closed", async () => {
    const { shared, store } = setup(5);
    shared.state.down = true;
    await store.clear("k");
    shared.state.down = false;
    // Generous bound: only the background timer can close the circuit here.
    const deadline = Date.now() + 10_000;
    while (store.degraded() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.equal(store.degraded(), false, "closed by the background probe");
    const pings = shared.state.pings;
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(shared.state.pings, pings, "no probe while closed");
    store.close();
  });
});
