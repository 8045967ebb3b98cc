import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  classify,
  DISABLING_STATUSES,
  decideAfterAttempt,
  failureReason,
  MAX_ATTEMPTS,
  MAX_RETRY_AFTER_MS,
  nextAttemptDelayMs,
  retryAfterMs,
} from "./retry-policy.ts";

const NOW = Date.parse("2026-11-22T10:00:00Z");

describe("retry policy: classification", () => {
  it("delivers on 2xx", () => {
    for (const status of [200, 201, 202, 204, 299])
      assert.equal(classify({ status }), "delivered", String(status));
  });

  it("retries 5xx, 408, 429 and attempts without a status (network error, time-out)", () => {
    for (const status of [500, 502, 503, 504, 599, 408, 429])
      assert.equal(classify({ status }), "retry", String(status));
    assert.equal(classify({}), "retry");
    assert.equal(classify({ status: undefined }), "retry");
    for (const errorKind of ["network", "tls", "timeout"])
      assert.equal(classify({ errorKind }), "retry", errorKind);
  });

  it("fails at once when the SSRF guard refused the target or the URL cannot be sent to", () => {
    for (const errorKind of ["blocked_address", "invalid_url"]) {
      assert.equal(classify({ errorKind }), "failed", errorKind);
      assert.deepEqual(
        decideAfterAttempt({ attempt: 1, result: { errorKind }, baseMs: 60_000, nowMs: NOW }),
        { outcome: "failed", reason: "refused_target" },
      );
    }
  });

  it("fails for good on every other status, 3xx included (redirects are not followed)", () => {
    for (const status of [
      100, 199, 300, 301, 302, 303, 304, 307, 308, 400, 401, 403, 404, 405, 409, 410, 413, 422,
    ])
      assert.equal(classify({ status }), "failed", String(status));
  });
});

describe("retry policy: schedule", () => {
  it("doubles from the base: attempts at base x 0, 1, 3, 7, 15, 31, 63, 127", () => {
    for (const base of [60_000, 50]) {
      let at = 0;
      const times = [0];
      for (let failed = 1; failed < MAX_ATTEMPTS; failed++) {
        at += nextAttemptDelayMs(failed, base, undefined, NOW);
        times.push(at / base);
      }
      assert.deepEqual(times, [0, 1, 3, 7, 15, 31, 63, 127]);
    }
  });

  it("honours a longer Retry-After in seconds or as an HTTP-date", () => {
    assert.equal(nextAttemptDelayMs(1, 1000, "30", NOW), 30_000);
    assert.equal(nextAttemptDelayMs(1, 1000, " 30 ", NOW), 30_000);
    assert.equal(nextAttemptDelayMs(1, 1000, "Sun, 22 Nov 2026 10:02:00 GMT", NOW), 120_000);
    // The obsolete RFC 850 form, which recipients must still accept.
    assert.equal(nextAttemptDelayMs(1, 1000, "Sunday, 22-Nov-26 10:03:00 GMT", NOW), 180_000);
  });

  it("never retries sooner than the schedule, whatever Retry-After says", () => {
    assert.equal(nextAttemptDelayMs(3, 60_000, "1", NOW), 240_000);
    assert.equal(nextAttemptDelayMs(2, 1000, "0", NOW), 2000);
    assert.equal(nextAttemptDelayMs(2, 1000, "Sun, 22 Nov 2026 09:00:00 GMT", NOW), 2000);
  });

  it("caps Retry-After at 24 hours", () => {
    assert.equal(MAX_RETRY_AFTER_MS, 86_400_000);
    assert.equal(nextAttemptDelayMs(1, 1000, "999999999", NOW), MAX_RETRY_AFTER_MS);
    assert.equal(nextAttemptDelayMs(1, 1000, "99999999999999999999999", NOW), MAX_RETRY_AFTER_MS);
    assert.equal(nextAttemptDelayMs(1, 1000, "Fri, 01 Jan 2100 00:00:00 GMT", NOW), MAX_RETRY_AFTER_MS);
    assert.equal(nextAttemptDelayMs(1, 1000, "86399", NOW), 86_399_000);
  });

  it("ignores an unreadable Retry-After", () => {
    for (const header of ["soon", "1.5", "-5", "", "30s", "12:00"]) {
      assert.equal(retryAfterMs(header, NOW), null, header);
      assert.equal(nextAttemptDelayMs(2, 1000, header, NOW), 2000, header);
    }
  });
});

describe("retry policy: decision after an attempt", () => {
  const decide = (attempt: number, result: { status?: number; retryAfter?: string }) =>
    decideAfterAttempt({ attempt, result, baseMs: 1000, nowMs: NOW });

  it("delivers, fails on a final status, or schedules the next attempt", () => {
    assert.deepEqual(decide(1, { status: 204 }), { outcome: "delivered" });
    assert.deepEqual(decide(1, { status: 410 }), { outcome: "failed", reason: "final_status" });
    assert.deepEqual(decide(1, { status: 302 }), { outcome: "failed", reason: "final_status" });
    assert.deepEqual(decide(1, { status: 500 }), { outcome: "retry", delayMs: 1000 });
    assert.deepEqual(decide(4, {}), { outcome: "retry", delayMs: 8000 });
    assert.deepEqual(decide(2, { status: 429, retryAfter: "60" }), { outcome: "retry", delayMs: 60_000 });
  });

  it("fails for good after the 8th failed attempt, and never plans a 9th", () => {
    assert.equal(MAX_ATTEMPTS, 8);
    const outcomes = [];
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++)
      outcomes.push(decide(attempt, { status: 503 }).outcome);
    assert.deepEqual(outcomes, ["retry", "retry", "retry", "retry", "retry", "retry", "retry", "failed"]);
    assert.deepEqual(decide(8, { status: 503 }), { outcome: "failed", reason: "attempts_exhausted" });
    assert.deepEqual(decide(8, { status: 200 }), { outcome: "delivered" });
    assert.equal(
      decideAfterAttempt({ attempt: 3, result: {}, baseMs: 1, nowMs: NOW, maxAttempts: 3 }).outcome,
      "failed",
    );
  });
});

describe("failure reasons and disabling answers", () => {
  it("names the status with its phrase, or the send error", () => {
    assert.equal(failureReason({ statusCode: 410, error: null }), "HTTP 410 Gone");
    assert.equal(failureReason({ statusCode: 503, error: null }), "HTTP 503 Service Unavailable");
    assert.equal(failureReason({ statusCode: 599, error: null }), "HTTP 599");
    assert.equal(
      failureReason({ statusCode: null, error: "network: ECONNREFUSED" }),
      "network: ECONNREFUSED",
    );
    assert.equal(failureReason({ statusCode: null, error: null }), "no answer");
  });

  it("only 410 Gone disables at once", () => {
    assert.deepEqual([...DISABLING_STATUSES], [410]);
  });
});
