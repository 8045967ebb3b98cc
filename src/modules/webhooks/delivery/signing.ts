import { createHmac } from "node:crypto";

/** Spec 6.3: lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>`, keyed with the subscription secret. */
export function signWebhook(secret: string, timestampSeconds: number, rawBody: string): string {
  return createHmac("sha256", secret).update(`${timestampSeconds}.${rawBody}`, "utf8").digest("hex");
}

export function webhookHeaders(input: {
  event: string;
  deliveryId: string;
  attempt: number;
  timestampSeconds: number;
  signature: string;
}): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": "MerchantPlatform-Webhooks/1.0",
    "x-webhook-event": input.event,
    "x-webhook-timestamp": String(input.timestampSeconds),
    "x-webhook-signature": input.signature,
    "x-webhook-id": input.deliveryId,
    "x-webhook-attempt": String(input.attempt),
  };
}
