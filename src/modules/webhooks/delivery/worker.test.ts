import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ClaimedDelivery } from "./delivery-repo.ts";
import { createDeliveryWorker, type WorkerDeps } from "./worker.ts";

const refused = () =>
  Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

const DELIVERY: ClaimedDelivery = {
  store_id: "store_1",
  id: "whd_1",
  event_name: "product.created",
  subscription_id: "whs_1",
  target_url: "https://example.com/hook",
  target_host: "example.com",
  body: "{}",
  attempts: 1,
  lease_token: "lease",
  secret_ciphertext: "sealed",
};

async function until(check: () => boolean, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A worker on a fake repository whose database can be switched off; every log line recorded. */
function setup() {
  const state = { down: true, claims: 0, attempts: 0, completeCalls: 0, completed: [] as string[] };
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
      return 0;
    },
    async failExhausted() {
      guard();
      return 0;
    },
    async claim() {
      guard();
      return state.claims++ === 0 ? [DELIVERY] : [];
    },
    async complete(_d, outcome) {
      state.completeCalls++;
      guard();
      state.completed.push(outcome.next.status);
      return true;
    },
    async nextDueAt() {
      guard();
      return null;
    },
  };
  const worker = createDeliveryWorker({
    repo,
    clock: { now: () => new Date() },
    settings: {
      concurrency: 4,
      perTargetConcurrency: 4,
      leaseMs: 60_000,
      maxAttempts: 8,
      timeoutMs: 1000,
      retryBaseMs: 1000,
      pollMs: 20,
      dispatchBatch: 10,
      backoff: { firstMs: 5, maxMs: 40, random: () => 0.5 },
    },
    logger: { info: log("info"), warn: log("warn"), error: log("error"), debug: log("debug") } as never,
    openSecret: () => "secret",
    async attempt() {
      state.attempts++;
      // The database goes away while the request is at the receiver.
      state.down = true;
      return { status: 200, responseBody: "ok", durationMs: 1 };
    },
    classify: (r) => (r.status === 200 ? "delivered" : "retry"),
    nextDelayMs: () => 1000,
  });
  return { state, logs, worker };
}

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
