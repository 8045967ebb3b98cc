import { createHmac } from "node:crypto";

export const WEBHOOK_USER_AGENT = "MerchantPlatform-Webhooks/1.0";

/**
 * Spec 6.3: lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>` (UTF-8), keyed with the
 * subscription secret. `rawBody` must be the exact bytes sent; the timestamp is Unix seconds.
 */
export function signWebhook(secret: string, timestampSeconds: number, rawBody: string): string {
  // A fractional or millisecond-looking value would sign text the receiver never reconstructs
  // from the header; catch the mix-up here rather than as "invalid signature" at every receiver.
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0 || timestampSeconds >= 1e11) {
    throw new RangeError(`timestampSeconds must be whole Unix seconds, got ${timestampSeconds}`);
  }
  return createHmac("sha256", secret).update(`${timestampSeconds}.${rawBody}`, "utf8").digest("hex");
}

/**
 * The request headers of one attempt (spec 6.2). `deliveryId` is the same for every attempt of
 * a delivery; `attempt` is 1-based; `timestampSeconds` is the one that was signed. Only the
 * timestamp is covered by the signature: receivers decide by the body (its `id` to drop
 * duplicates, its `test`), never by these headers.
 */
export function webhookHeaders(input: {
  event: string;
  deliveryId: string;
  attempt: number;
  timestampSeconds: number;
  signature: string;
  /** A test event's delivery (POST /webhooks/test). */
  test?: boolean;
}): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": WEBHOOK_USER_AGENT,
    "x-webhook-event": input.event,
    "x-webhook-timestamp": String(input.timestampSeconds),
    "x-webhook-signature": input.signature,
    "x-webhook-id": input.deliveryId,
    "x-webhook-attempt": String(input.attempt),
    ...(input.test ? { "x-webhook-test": "true" } : {}),
  };
}
