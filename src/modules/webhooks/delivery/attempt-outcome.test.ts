import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EVERY_KIND_OF_ANSWER } from "../../../../test/delivery-fixtures.ts";
import { DeliveryStatus } from "../../../contracts/index.ts";
import { type AttemptResult, attemptOutcome } from "./attempt-outcome.ts";
import { decideAfterAttempt } from "./retry-policy.ts";

const NOW = new Date("2026-11-26T12:00:00.000Z");
const STARTED = new Date(NOW.getTime() - 250);
const delivery = (attempts: number) => ({
  store_id: "store_1",
  id: "whd_1",
  subscription_id: "whs_1",
  attempts,
  lease_token: "lease",
});

describe("attemptOutcome: the completion recorded after an attempt", () => {
  it("carries the attempt as it happened", () => {
    const result: AttemptResult = {
      status: 502,
      responseBody: "bad gateway",
      durationMs: 250,
      error: undefined,
    };
    const { completion } = attemptOutcome({
      delivery: delivery(1),
      result,
      startedAt: STARTED,
      now: NOW,
      retryBaseMs: 60_000,
      maxAttempts: 8,
    });
    assert.deepEqual(completion, {
      delivery: delivery(1),
      startedAt: STARTED,
      durationMs: 250,
      statusCode: 502,
      error: null,
      responseBody: "bad gateway",
      next: { status: DeliveryStatus.pending, at: new Date(NOW.getTime() + 60_000) },
      now: NOW,
    });
    const noAnswer = attemptOutcome({
      delivery: delivery(1),
      result: { responseBody: null, durationMs: 10_000, errorKind: "timeout", error: "timed out" },
      startedAt: STARTED,
      now: NOW,
      retryBaseMs: 60_000,
      maxAttempts: 8,
    }).completion;
    assert.equal(noAnswer.statusCode, null);
    assert.equal(noAnswer.error, "timed out");
  });

  it("decides exactly as decideAfterAttempt does, for every attempt number and kind of answer", () => {
    for (const maxAttempts of [3, 8]) {
      for (let attempts = 1; attempts <= maxAttempts + 1; attempts++) {
        for (const result of EVERY_KIND_OF_ANSWER) {
          const decision = decideAfterAttempt({
            attempt: attempts,
            result,
            baseMs: 1000,
            nowMs: NOW.getTime(),
            maxAttempts,
          });
          const { outcome, completion } = attemptOutcome({
            delivery: delivery(attempts),
            result,
            startedAt: STARTED,
            now: NOW,
            retryBaseMs: 1000,
            maxAttempts,
          });
          const what = `attempt ${attempts}/${maxAttempts}, ${JSON.stringify(result)}`;
          assert.equal(outcome, decision.outcome, what);
          assert.deepEqual(
            completion.next,
            decision.outcome === "retry"
              ? { status: DeliveryStatus.pending, at: new Date(NOW.getTime() + decision.delayMs) }
              : { status: decision.outcome },
            what,
          );
        }
      }
    }
  });
});
