/**
 * Spec 6.4 retry rules. 2xx delivers. 5xx, 408, 429, network errors and time-outs are retried.
 * Every other status is final (3xx included: redirects are never followed, so a moved receiver
 * must update its subscription). At most `maxAttempts` attempts; the delay before attempt n+1 is
 * base × 2^(n-1), so with base 1 minute attempts run at 0, 1, 3, 7, 15, 31, 63 and 127 minutes.
 */
export type Outcome = "delivered" | "retry" | "failed";

/** A Retry-After longer than this is capped: a receiver cannot park a delivery for days. */
export const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

export function classify(result: { status?: number | undefined; error?: string | undefined }): Outcome {
  const status = result.status;
  if (status === undefined) return "retry";
  if (status >= 200 && status < 300) return "delivered";
  if (status >= 500 || status === 408 || status === 429) return "retry";
  return "failed";
}

/** Parses Retry-After (delta seconds or an HTTP date) into milliseconds from `nowMs`; null if absent or invalid. */
export function retryAfterMs(header: string | undefined, nowMs: number): number | null {
  if (!header) return null;
  const text = header.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/** Delay before the next attempt, after `attemptsMade` attempts; a longer Retry-After wins (capped). */
export function nextAttemptDelayMs(
  attemptsMade: number,
  baseMs: number,
  retryAfter?: string,
  nowMs = Date.now(),
): number {
  const backoff = baseMs * 2 ** Math.max(0, attemptsMade - 1);
  const asked = retryAfterMs(retryAfter, nowMs);
  return asked !== null && asked > backoff ? Math.min(asked, MAX_RETRY_AFTER_MS) : backoff;
}
