import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classify, MAX_RETRY_AFTER_MS, nextAttemptDelayMs, retryAfterMs } from "./retry-policy.ts";

describe("retry policy", () => {
  it("delivers on 2xx, retries 5xx/408/429/network, fails everything else (3xx too)", () => {
    for (const status of [200, 201, 204, 299]) assert.equal(classify({ status }), "delivered");
    for (const status of [500, 502, 503, 504, 599, 408, 429]) assert.equal(classify({ status }), "retry");
    for (const status of [301, 302, 307, 400, 401, 403, 404, 410, 422])
      assert.equal(classify({ status }), "failed");
    assert.equal(classify({ error: "timeout" }), "retry");
    assert.equal(classify({ error: "network" }), "retry");
  });

  it("doubles from the base: attempts at base x 0, 1, 3, 7, 15, 31, 63, 127", () => {
    const base = 60_000;
    let at = 0;
    const times = [0];
    for (let made = 1; made < 8; made++) {
      at += nextAttemptDelayMs(made, base);
      times.push(at / base);
    }
    assert.deepEqual(times, [0, 1, 3, 7, 15, 31, 63, 127]);
  });

  it("honours a longer Retry-After (seconds or HTTP date), never a shorter one, and caps it", () => {
    const now = Date.parse("2026-11-22T10:00:00Z");
    assert.equal(nextAttemptDelayMs(1, 1000, "30", now), 30_000);
    assert.equal(nextAttemptDelayMs(3, 60_000, "1", now), 240_000);
    assert.equal(nextAttemptDelayMs(1, 1000, "Sun, 22 Nov 2026 10:02:00 GMT", now), 120_000);
    assert.equal(nextAttemptDelayMs(1, 1000, "999999999", now), MAX_RETRY_AFTER_MS);
    assert.equal(retryAfterMs("soon", now), null);
    assert.equal(nextAttemptDelayMs(2, 1000, "garbage", now), 2000);
  });
});
