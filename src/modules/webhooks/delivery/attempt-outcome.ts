import { DeliveryStatus } from "../../../contracts/index.ts";
import type { Completion } from "./delivery-repo.ts";
import { decideAfterAttempt, type Outcome } from "./retry-policy.ts";

/** One HTTP attempt's result, as the sender reports it. */
export interface AttemptResult {
  status?: number | undefined;
  retryAfter?: string | undefined;
  responseBody: string | null;
  durationMs: number;
  /** Why no answer arrived (the sender's SendErrorKind); decides whether a retry can help. */
  errorKind?: string | undefined;
  error?: string | undefined;
}

/**
 * What the worker records after an attempt: the attempt itself and what happens to the delivery
 * next. The decision is the retry policy's, whole (retry-policy.ts: final or not, attempts left,
 * back-off, Retry-After); nothing here restates any of it.
 */
export function attemptOutcome(input: {
  /** The delivery attempted; `attempts` counts this attempt. */
  delivery: Completion["delivery"];
  result: AttemptResult;
  startedAt: Date;
  now: Date;
  retryBaseMs: number;
  maxAttempts: number;
}): { outcome: Outcome; completion: Completion } {
  const { result, now } = input;
  const decision = decideAfterAttempt({
    attempt: input.delivery.attempts,
    result,
    baseMs: input.retryBaseMs,
    nowMs: now.getTime(),
    maxAttempts: input.maxAttempts,
  });
  const next: Completion["next"] =
    decision.outcome === "retry"
      ? { status: DeliveryStatus.pending, at: new Date(now.getTime() + decision.delayMs) }
      : { status: decision.outcome };
  return {
    outcome: decision.outcome,
    completion: {
      delivery: input.delivery,
      startedAt: input.startedAt,
      durationMs: result.durationMs,
      statusCode: result.status ?? null,
      error: result.error ?? null,
      responseBody: result.responseBody,
      next,
      now,
    },
  };
}
