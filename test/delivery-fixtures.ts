import type { AttemptResult } from "../src/modules/webhooks/delivery/attempt-outcome.ts";
import type { ClaimedDelivery } from "../src/modules/webhooks/delivery/delivery-repo.ts";

/** A claimed delivery of the delivery engine's unit tests: its first attempt, to example.com. */
export function claimedDelivery(overrides: Partial<ClaimedDelivery> = {}): ClaimedDelivery {
  return {
    store_id: "store_1",
    id: "whd_1",
    webhook_id: "whd_1",
    event_name: "product.created",
    subscription_id: "whs_1",
    target_url: "https://example.com/hook",
    target_host: "example.com",
    body: "{}",
    attempts: 1,
    lease_token: "lease",
    secret_ciphertext: "sealed",
    previous_secret_ciphertext: null,
    secret_rotated_at: null,
    test: false,
    api_version: "2026-11-28",
    body_api_version: "2026-11-28",
    ...overrides,
  };
}

/**
 * One attempt result of each kind the retry policy tells apart (success, redirect, final and
 * retried statuses, Retry-After as seconds and as a date, no answer, refused targets): the cases
 * against which the worker and attemptOutcome are both checked to decide as decideAfterAttempt.
 */
export const EVERY_KIND_OF_ANSWER: readonly AttemptResult[] = [
  { status: 200, responseBody: "", durationMs: 1 },
  { status: 204, responseBody: "", durationMs: 1 },
  { status: 301, responseBody: "", durationMs: 1 },
  { status: 400, responseBody: "", durationMs: 1 },
  { status: 408, responseBody: "", durationMs: 1 },
  { status: 410, responseBody: "", durationMs: 1 },
  { status: 429, retryAfter: "30", responseBody: "", durationMs: 1 },
  { status: 500, responseBody: "", durationMs: 1 },
  { status: 503, retryAfter: "Thu, 26 Nov 2026 14:00:00 GMT", responseBody: "", durationMs: 1 },
  { responseBody: null, durationMs: 1, errorKind: "timeout" },
  { responseBody: null, durationMs: 1, errorKind: "blocked_address" },
  { responseBody: null, durationMs: 1, errorKind: "invalid_url" },
];
