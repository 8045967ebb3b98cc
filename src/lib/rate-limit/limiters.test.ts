import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createFailureThrottle, createRateLimiter } from "./limiters.ts";
import { createMemoryWindowStore } from "./sliding-window.ts";

describe("limiters sharing one store", () => {
  const clock = { now: () => new Date(1_000_000) };

  it("never count each other's hits for the same key", async () => {
    const store = createMemoryWindowStore();
    const quota = createRateLimiter({ store, clock }, 100, 60_000);
    const throttle = createFailureThrottle({ store, clock }, 2, 60_000);
    for (let i = 0; i < 10; i++) await quota.consume("apikey:k1");
    await throttle.assertAllowed("apikey:k1");
    await throttle.recordFailure("apikey:k1");
    assert.equal((await quota.consume("apikey:k1")).remaining, 89);
  });

  it("blocks after maxFailures with Retry-After, and success clears the count", async () => {
    const store = createMemoryWindowStore();
    const throttle = createFailureThrottle({ store, clock }, 2, 60_000);
    await throttle.recordFailure("a");
    await throttle.recordFailure("a");
    await assert.rejects(
      throttle.assertAllowed("a"),
      (e: { code: string; headers: Record<string, string> }) => {
        return e.code === "RATE_LIMITED" && e.headers["retry-after"] === "60";
      },
    );
    await throttle.assertAllowed("b");
    await throttle.clear("a");
    await throttle.assertAllowed("a");
  });
});
