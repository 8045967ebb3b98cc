import { STATUS_CODES } from "node:http";
import { DeliveryStatus } from "../../../contracts/index.ts";
/**
 * Spec 6.4 retry rules, pure. 2xx delivers. 5xx, 408, 429 and every attempt that got no HTTP
 * status because of the network (network error, TLS error, time-out) are retried. Every other
 * status is final: 3xx included, because redirects are never followed (a moved receiver updates its
 * subscription), and 1xx/4xx because repeating the same request will not change the answer. A
 * target the SSRF guard refused at send time (it now resolves to an internal address) or a URL
 * that cannot be sent to is final at once: retrying it would only knock on the same internal
 * address seven more times.
 * At most MAX_ATTEMPTS attempts; the delay before attempt n+1 is base × 2^(n-1), so with base =
 * 1 minute the attempts run at 0, 1, 3, 7, 15, 31, 63 and 127 minutes.
 */
export type Outcome = typeof DeliveryStatus.delivered | "retry" | typeof DeliveryStatus.failed;

/** Spec 6.4 and 8: at most 8 attempts per delivery. */
export const MAX_ATTEMPTS = 8;

/**
 * A Retry-After longer than this is capped: a receiver may slow us down, but not park a
 * delivery for days (by then the event is stale and the delivery log misleading). 24 h is far
 * beyond the default schedule's last gap (64 min), so it only ever bounds abuse or typos.
 */
export const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/**
 * Statuses whose Retry-After is a retry hint: 429 (RFC 6585) and 503 (RFC 9110 §10.2.3). The
 * sender reports the header only for these, so a 500 cannot stretch the schedule.
 */
export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * Answers by which the receiver says the endpoint is gone for good (Standard Webhooks'
 * deliverability rules): the subscription is disabled at once, not after the disable window.
 */
export const DISABLING_STATUSES: ReadonlySet<number> = new Set([410]);

/** A failed attempt in words, for `disabledReason` and `webhook.disabled`: `HTTP 503 Service Unavailable`, or the send error. */
export function failureReason(attempt: { statusCode: number | null; error: string | null }): string {
  if (attempt.statusCode !== null) {
    const phrase = STATUS_CODES[attempt.statusCode];
    return `HTTP ${attempt.statusCode}${phrase ? ` ${phrase}` : ""}`;
  }
  return attempt.error ?? "no answer";
}

/** Send failures that no retry can cure: the guard will refuse the same target again. */
export const FINAL_ERROR_KINDS: ReadonlySet<string> = new Set(["blocked_address", "invalid_url"]);

export function classify(result: { status?: number | undefined; errorKind?: string | undefined }): Outcome {
  const status = result.status;
  if (status === undefined) {
    if (result.errorKind !== undefined && FINAL_ERROR_KINDS.has(result.errorKind))
      return DeliveryStatus.failed;
    // No status: the request never got an answer (network, TLS, time-out).
    return "retry";
  }
  if (status >= 200 && status < 300) return DeliveryStatus.delivered;
  if (status >= 500 || status === 408 || status === 429) return "retry";
  return DeliveryStatus.failed;
}

/**
 * Retry-After (delay-seconds or an HTTP-date) as milliseconds from `nowMs`; null when absent or
 * unreadable. A date in the past is 0.
 */
export function retryAfterMs(header: string | undefined, nowMs: number): number | null {
  if (!header) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, Number.MAX_SAFE_INTEGER);
  // An HTTP-date always has letters (day and month names); Date.parse alone would read "1.5" as
  // a date in 2001.
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/**
 * Delay before the next attempt, after attempt number `attemptJustFailed` (1-based) failed:
 * base × 2^(n-1). A Retry-After asking for longer wins, capped at MAX_RETRY_AFTER_MS; one asking
 * for less is ignored, so a receiver cannot make us retry faster than the schedule.
 */
export function nextAttemptDelayMs(
  attemptJustFailed: number,
  baseMs: number,
  retryAfter?: string,
  nowMs = Date.now(),
): number {
  const backoff = baseMs * 2 ** Math.max(0, attemptJustFailed - 1);
  const asked = retryAfterMs(retryAfter, nowMs);
  if (asked === null) return backoff;
  return Math.max(backoff, Math.min(asked, MAX_RETRY_AFTER_MS));
}

export type Decision =
  | { outcome: typeof DeliveryStatus.delivered }
  | {
      outcome: typeof DeliveryStatus.failed;
      reason: "final_status" | "refused_target" | "attempts_exhausted";
    }
  | { outcome: "retry"; delayMs: number };

/**
 * What to do after attempt number `attempt` (1-based) ended with `result`: the whole policy in
 * one call, for the worker. After the `maxAttempts`-th failed attempt the delivery is failed for
 * good.
 */
export function decideAfterAttempt(input: {
  attempt: number;
  result: { status?: number | undefined; retryAfter?: string | undefined; errorKind?: string | undefined };
  baseMs: number;
  nowMs: number;
  maxAttempts?: number;
}): Decision {
  const outcome = classify(input.result);
  if (outcome === DeliveryStatus.delivered) return { outcome };
  if (outcome === DeliveryStatus.failed)
    return { outcome, reason: input.result.status === undefined ? "refused_target" : "final_status" };
  if (input.attempt >= (input.maxAttempts ?? MAX_ATTEMPTS)) {
    return { outcome: DeliveryStatus.failed, reason: "attempts_exhausted" };
  }
  return {
    outcome: "retry",
    delayMs: nextAttemptDelayMs(input.attempt, input.baseMs, input.result.retryAfter, input.nowMs),
  };
}
