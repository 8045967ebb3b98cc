import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { claimedDelivery, EVERY_KIND_OF_ANSWER } from "../../../../test/delivery-fixtures.ts";
import type { ClaimedDelivery, Completion } from "./delivery-repo.ts";
import { decideAfterAttempt } from "./retry-policy.ts";
import { type AttemptResult, createDeliveryWorker, type WorkerDeps } from "./worker.ts";

const refused = () =>
  Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

const DELIVERY = claimedDelivery();

async function until(check: () => boolean, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A worker on a fake repository whose database can be switched off; every log line recorded. */
function setup(
  options: {
    result?: AttemptResult;
    attempts?: number;
    now?: Date;
    maxAttempts?: number;
    /** Keep the database up through the attempt, which takes this long (ms). */
    steadyAttemptMs?: number;
  } = {},
) {
  const state = {
    down: true,
    claims: 0,
    attempts: 0,
    completeCalls: 0,
    completed: [] as string[],
    next: [] as Array<Completion["next"]>,
  };
  const logs: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  const log = (level: string) => (fields: Record<string, unknown> | string, message?: string) =>
    logs.push({
      level,
      fields: typeof fields === "string" ? {} : fields,
      message: message ?? String(fields),
    });
  const guard = () => {
    if (state.down) throw refused();
  };
  const repo: WorkerDeps["repo"] = {
    async dispatchEvents() {
      guard();
      return { events: 0, claimed: [], unclaimedHosts: [] };
    },
    async failExhausted() {
      guard();
      return 0;
    },
    async claim() {
      guard();
      return state.claims++ === 0 ? [{ ...DELIVERY, attempts: options.attempts ?? DELIVERY.attempts }] : [];
    },
    async release() {
      guard();
      return 0;
    },
    async completeMany(items) {
      state.completeCalls++;
      guard();
      for (const item of items) {
        state.completed.push(item.next.status);
        state.next.push(item.next);
      }
      return { applied: new Set(items.map((item) => item.delivery.id)), overdue: [] };
    },
    async disableSubscriptions() {
      guard();
      return [];
    },
    async nextDueAt() {
      guard();
      return null;
    },
  };
  const worker = createDeliveryWorker({
    repo,
    clock: { now: () => options.now ?? new Date() },
    settings: {
      concurrency: 4,
      perTargetConcurrency: 4,
      leaseMs: 60_000,
      maxAttempts: options.maxAttempts ?? 8,
      timeoutMs: 1000,
      retryBaseMs: 1000,
      pollMs: 20,
      dispatchBatch: 10,
      backoff: { firstMs: 5, maxMs: 40, random: () => 0.5 },
      disableAfterMs: 3_600_000,
    },
    logger: { info: log("info"), warn: log("warn"), error: log("error"), debug: log("debug") } as never,
    openSecret: () => "secret",
    async attempt() {
      state.attempts++;
      if (options.steadyAttemptMs !== undefined)
        await new Promise((r) => setTimeout(r, options.steadyAttemptMs));
      // The database goes away while the request is at the receiver.
      else state.down = true;
      return options.result ?? { status: 200, responseBody: "ok", durationMs: 1 };
    },
    disablesAtOnce: () => false,
    failureReason: () => "HTTP 500",
  });
  return { state, logs, worker };
}

describe("delivery worker: the retry policy it applies is retry-policy.ts's", () => {
  const NOW = new Date("2026-11-26T12:00:00Z");
  async function outcome(result: AttemptResult, attempts: number, maxAttempts?: number) {
    const { state, worker } = setup({ result, attempts, now: NOW, ...(maxAttempts ? { maxAttempts } : {}) });
    state.down = false;
    worker.start();
    try {
      // attempt() turns the database off; bring it back for the recording.
      await until(() => state.attempts === 1, "the attempt");
      state.down = false;
      await until(() => state.next.length === 1, "the outcome recorded");
      return state.next[0]!;
    } finally {
      state.down = false;
      await worker.stop();
    }
  }
  const AT = (ms: number) => ({ status: "pending", at: new Date(NOW.getTime() + ms) });

  it("a 5xx after attempt n waits base x 2^(n-1); a longer Retry-After on a 503 wins", async () => {
    assert.deepEqual(await outcome({ status: 500, responseBody: "", durationMs: 1 }, 3), AT(4000));
    assert.deepEqual(
      await outcome({ status: 503, retryAfter: "7200", responseBody: "", durationMs: 1 }, 1),
      AT(7_200_000),
    );
  });

  it("the 8th failed attempt ends the delivery; a 400 and a refused target are final at once", async () => {
    assert.deepEqual(await outcome({ status: 500, responseBody: "", durationMs: 1 }, 8), {
      status: "failed",
    });
    assert.deepEqual(await outcome({ status: 400, responseBody: "", durationMs: 1 }, 1), {
      status: "failed",
    });
    assert.deepEqual(await outcome({ errorKind: "blocked_address", responseBody: null, durationMs: 1 }, 1), {
      status: "failed",
    });
  });

  // What the worker records is decideAfterAttempt's answer, whatever it is: a worker with its own
  // copy of the rules (or one that ignores the configured attempt limit) fails here.
  it("records decideAfterAttempt's decision for every attempt number and kind of answer, with the configured limit", async () => {
    const maxAttempts = 3;
    for (let attempts = 1; attempts <= maxAttempts + 1; attempts++) {
      for (const result of EVERY_KIND_OF_ANSWER) {
        const decision = decideAfterAttempt({
          attempt: attempts,
          result,
          baseMs: 1000,
          nowMs: NOW.getTime(),
          maxAttempts,
        });
        assert.deepEqual(
          await outcome(result, attempts, maxAttempts),
          decision.outcome === "retry" ? AT(decision.delayMs) : { status: decision.outcome },
          `attempt ${attempts} of ${maxAttempts}: ${JSON.stringify(result)}`,
        );
      }
    }
  });
});

describe("delivery worker: the database goes away", () => {
  it("backs off while the database is unavailable, logging each next delay at warn, and resumes", async () => {
    const { state, logs, worker } = setup();
    worker.start();
    try {
      const retries = () => logs.filter((l) => l.level === "warn" && typeof l.fields.retryInMs === "number");
      await until(() => retries().length >= 5, "five back-off warnings");
      assert.deepEqual(
        retries()
          .slice(0, 5)
          .map((l) => l.fields.retryInMs),
        [5, 10, 20, 40, 40],
      );
      assert.equal(logs.filter((l) => l.level === "error").length, 0, "an outage is not an error");
      state.down = false;
      await until(() => state.attempts === 1, "the delivery attempt once the database is back");
    } finally {
      state.down = false;
      await worker.stop();
    }
  });

  it("keeps the outcome of an attempt made just before the outage: recorded once it is back, not sent again", async () => {
    const { state, worker } = setup();
    state.down = false;
    worker.start();
    try {
      // attempt() turns the database off; let the recording fail a few times, then bring it back.
      await until(() => state.completeCalls >= 3, "recording retried while the database is down");
      state.down = false;
      await until(() => state.completed.length === 1, "the outcome recorded");
      assert.deepEqual(state.completed, ["delivered"]);
      assert.equal(state.attempts, 1, "the receiver got the delivery once");
      assert.equal(state.claims >= 1, true);
    } finally {
      state.down = false;
      await worker.stop();
    }
  });
});

describe("delivery worker: concurrency and claims held in memory", () => {
  /** A fake queue of `n` deliveries to two hosts; the claim honours the worker's room like the SQL. */
  function setupQueue(n: number, perTarget: number, attemptMs: number) {
    const queue: ClaimedDelivery[] = Array.from({ length: n }, (_, i) => ({
      ...DELIVERY,
      id: `whd_${i}`,
      target_host: i % 2 ? "a.example" : "b.example",
    }));
    const state = {
      active: new Map<string, number>(),
      maxActive: 0,
      attempts: [] as string[],
      released: [] as string[],
      completed: [] as string[],
    };
    const take = (room: { limit: number; hosts: ReadonlyMap<string, number>; otherHosts: number }) => {
      const left = new Map<string, number>();
      const out: ClaimedDelivery[] = [];
      for (const d of [...queue]) {
        if (out.length >= room.limit) break;
        const r = left.get(d.target_host) ?? room.hosts.get(d.target_host) ?? room.otherHosts;
        if (r <= 0) continue;
        left.set(d.target_host, r - 1);
        out.push(d);
        queue.splice(queue.indexOf(d), 1);
      }
      return out;
    };
    const repo: WorkerDeps["repo"] = {
      async dispatchEvents() {
        return { events: 0, claimed: [], unclaimedHosts: [] };
      },
      async failExhausted() {
        return 0;
      },
      async claim(_now, room) {
        return take(room);
      },
      async release(ds) {
        state.released.push(...ds.map((d) => d.id));
        return ds.length;
      },
      async completeMany(items) {
        state.completed.push(...items.map((i) => i.delivery.id));
        return { applied: new Set(items.map((i) => i.delivery.id)), overdue: [] };
      },
      async disableSubscriptions() {
        return [];
      },
      async nextDueAt() {
        return null;
      },
    };
    const worker = createDeliveryWorker({
      repo,
      clock: { now: () => new Date() },
      settings: {
        concurrency: 6,
        perTargetConcurrency: perTarget,
        leaseMs: 60_000,
        maxAttempts: 8,
        timeoutMs: 1000,
        retryBaseMs: 1000,
        pollMs: 50,
        dispatchBatch: 10,
        backoff: { firstMs: 5, maxMs: 40 },
        disableAfterMs: 3_600_000,
      },
      logger: { info() {}, warn() {}, error() {}, debug() {} } as never,
      openSecret: () => "secret",
      async attempt({ delivery }) {
        state.attempts.push(delivery.id);
        const n = (state.active.get(delivery.target_host) ?? 0) + 1;
        state.active.set(delivery.target_host, n);
        state.maxActive = Math.max(state.maxActive, n);
        await new Promise((r) => setTimeout(r, attemptMs));
        state.active.set(delivery.target_host, state.active.get(delivery.target_host)! - 1);
        return { status: 200, responseBody: "ok", durationMs: attemptMs };
      },
      disablesAtOnce: () => false,
      failureReason: () => "HTTP 500",
    });
    return { state, worker, queue };
  }

  it("never has more than perTargetConcurrency attempts in flight to one host, and attempts every delivery once", async () => {
    const { state, worker } = setupQueue(60, 2, 3);
    worker.start();
    try {
      await until(() => state.completed.length === 60, "all 60 recorded");
    } finally {
      await worker.stop();
    }
    assert.ok(state.maxActive <= 2, `max in flight to one host: ${state.maxActive}`);
    assert.equal(new Set(state.attempts).size, 60);
    assert.equal(state.attempts.length, 60);
    assert.deepEqual(state.released, []);
  });

  it("stop gives back the claims it held but never started, and attempts nothing more", async () => {
    const { state, worker } = setupQueue(200, 1, 30);
    worker.start();
    await until(() => state.attempts.length >= 2, "first attempts");
    await worker.stop();
    const attempted = new Set(state.attempts);
    assert.equal(state.completed.length, state.attempts.length, "every attempt made is recorded");
    assert.ok(state.released.length > 0, "held claims were given back");
    assert.ok(
      state.released.every((id) => !attempted.has(id)),
      "only unattempted ones",
    );
  });
});

describe("delivery worker: disabling subscriptions", () => {
  /** One claimed delivery answered `status`; completeMany reports `overdue` subscriptions. */
  async function run(status: number, overdue: boolean) {
    const asked: Array<{ requests: unknown[]; failingBefore: Date }> = [];
    const windows: Date[] = [];
    let claims = 0;
    const now = new Date("2026-11-26T12:00:00.000Z");
    const worker = createDeliveryWorker({
      repo: {
        dispatchEvents: async () => ({ events: 0, claimed: [], unclaimedHosts: [] }),
        failExhausted: async () => 0,
        claim: async () => (claims++ === 0 ? [DELIVERY] : []),
        release: async () => 0,
        async completeMany(items, failingBefore) {
          windows.push(failingBefore!);
          return {
            applied: new Set(items.map((i) => i.delivery.id)),
            overdue: overdue ? [{ store_id: "store_1", subscription_id: "whs_1", failing_since: now }] : [],
          };
        },
        async disableSubscriptions(requests, _now, failingBefore) {
          asked.push({ requests: [...requests], failingBefore });
          return [];
        },
        nextDueAt: async () => null,
      },
      clock: { now: () => now },
      settings: {
        concurrency: 1,
        perTargetConcurrency: 1,
        leaseMs: 60_000,
        maxAttempts: 8,
        timeoutMs: 1000,
        retryBaseMs: 1000,
        pollMs: 20,
        dispatchBatch: 10,
        backoff: { firstMs: 5, maxMs: 40 },
        disableAfterMs: 5 * 86_400_000,
      },
      logger: { info() {}, warn() {}, error() {}, debug() {} } as never,
      openSecret: () => "secret",
      attempt: async () => ({ status, responseBody: "", durationMs: 1 }),
      disablesAtOnce: (s) => s === 410,
      failureReason: (a) => `HTTP ${a.statusCode}`,
    });
    worker.start();
    await until(() => windows.length >= 1, "the completion recorded");
    await new Promise((r) => setTimeout(r, 30));
    await worker.stop();
    return { asked, window: windows[0]! };
  }

  it("asks to disable at once on a 410 Gone, naming it", async () => {
    const { asked, window } = await run(410, false);
    assert.equal(window.toISOString(), "2026-11-21T12:00:00.000Z", "now minus the disable window");
    assert.equal(asked.length, 1);
    assert.deepEqual(asked[0]!.requests, [
      {
        store_id: "store_1",
        subscription_id: "whs_1",
        reason: "HTTP 410",
        gone: true,
        failedAt: new Date("2026-11-26T12:00:00.000Z"),
      },
    ]);
  });

  it("asks for a subscription completeMany reports past the window; nothing for one that is failing but not yet", async () => {
    const due = await run(503, true);
    assert.equal(due.asked.length, 1);
    assert.equal((due.asked[0]!.requests[0] as { gone: boolean }).gone, false);
    const young = await run(503, false);
    assert.deepEqual(young.asked, [], "no statement at all");
    const fine = await run(200, true);
    assert.deepEqual(fine.asked, [], "a success asks nothing");
  });
});

describe("delivery worker: settled(), the barrier for 'nothing more leaves now'", () => {
  it("resolves only once the due delivery is attempted and its outcome recorded; again at once when idle", async () => {
    const { state, worker } = setup({ steadyAttemptMs: 50 });
    state.down = false;
    worker.start();
    try {
      await worker.settled();
      assert.equal(state.attempts, 1);
      assert.deepEqual(state.completed, ["delivered"]);
      await worker.settled();
      assert.equal(state.attempts, 1, "nothing more was due");
    } finally {
      await worker.stop();
    }
  });

  it("refuses to wait on a worker that is not running", async () => {
    const { worker } = setup();
    await assert.rejects(worker.settled(), /not running/);
  });
});
