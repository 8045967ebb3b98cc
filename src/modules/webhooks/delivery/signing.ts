import { createHmac, createSecretKey } from "node:crypto";
import { SECRET_PREFIX } from "../../../contracts/credentials.ts";

export const WEBHOOK_USER_AGENT = "MerchantPlatform-Webhooks/1.0";

const WEBHOOK_SECRET_PREFIX = `${SECRET_PREFIX.webhookSecret}_`;

// A fractional or millisecond-looking value would sign text the receiver never reconstructs from
// the header; catch the mix-up here rather than as "invalid signature" at every receiver.
function assertUnixSeconds(timestampSeconds: number): void {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0 || timestampSeconds >= 1e11) {
    throw new RangeError(`timestampSeconds must be whole Unix seconds, got ${timestampSeconds}`);
  }
}

/**
 * Spec 6.3: lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>` (UTF-8), keyed with the
 * subscription secret as returned (the whole `whsec_…` text, as UTF-8). `rawBody` must be the exact
 * bytes sent; the timestamp is Unix seconds.
 */
export function signWebhook(secret: string, timestampSeconds: number, rawBody: string): string {
  assertUnixSeconds(timestampSeconds);
  return createHmac("sha256", secret).update(`${timestampSeconds}.${rawBody}`, "utf8").digest("hex");
}

/**
 * The Standard Webhooks key of a secret: the bytes that the text after `whsec_` decodes to as
 * base64, which is what the stock verifiers (`standardwebhooks`, `svix`: `new Webhook(secret)`)
 * compute from the string they are given. New secrets are `whsec_<base64 of 32 random bytes>`.
 * Secrets made before issue 19 are `whsec_` + 43 base62 characters: base62 is a subset of the
 * base64 alphabet, and 43 characters without padding decode to 32 bytes (the last character's low
 * two bits dropped), exactly as the JavaScript libraries decode them (tested against their
 * decoder), so existing subscriptions verify there too. Libraries that insist on padding (Python's
 * `base64.b64decode`, Go's `StdEncoding`) refuse such a secret: rotating gives a padded one.
 */
export function standardWebhookKey(secret: string): Buffer {
  const text = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(text, "base64");
  if (key.length === 0)
    throw new RangeError("A webhook secret must have a non-empty base64 key after whsec_.");
  return key;
}

/**
 * One Standard Webhooks signature: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`
 * keyed with `standardWebhookKey(secret)`.
 */
export function signStandardWebhook(
  secret: string,
  webhookId: string,
  timestampSeconds: number,
  rawBody: string,
): string {
  assertUnixSeconds(timestampSeconds);
  // As a KeyObject: Node 24 tells a key object from a buffer by catching an exception (its
  // hardened brand check), ~10 µs of every HMAC keyed with a Buffer, more than the HMAC of the
  // body itself (2 µs). A string key (the spec's signature above) takes the fast path already.
  const mac = createHmac("sha256", createSecretKey(standardWebhookKey(secret)))
    .update(`${webhookId}.${timestampSeconds}.${rawBody}`, "utf8")
    .digest("base64");
  return `v1,${mac}`;
}

/**
 * Whether a subscription rotated at `rotatedAt` still signs with its previous secret at `now`:
 * for `overlapSeconds` after the rotation, `webhook-signature` carries both.
 */
export function inRotationOverlap(rotatedAt: Date | null, now: Date, overlapSeconds: number): boolean {
  return rotatedAt !== null && now.getTime() < rotatedAt.getTime() + overlapSeconds * 1000;
}

/**
 * Every request header of one attempt of any delivery (a subscription's, a test event's, a
 * redelivery, a listen stream's message that the CLI forwards): the spec's (6.2) and the Standard
 * Webhooks ones beside them. `deliveryId` is the same on every attempt of a delivery and is both
 * `x-webhook-id` and `webhook-id`; `attempt` is 1-based; one timestamp is signed by both families.
 *
 * - `x-webhook-signature`: the platform's own header (HMAC-SHA256 of `<timestamp>.<body>`, hex), made with `secret` only (a rotation takes effect at once).
 * - `webhook-signature`: `v1,<sig>` with `secret`, then ` v1,<sig>` with `previousSecret` when
 *   given (the overlap after a rotation), so a receiver holding either secret verifies.
 *
 * Only the timestamp (and, in Standard Webhooks, the id) is signed besides the body: receivers
 * decide by the body (its `id` to drop duplicates, its `test`), never by the other headers.
 */
export function webhookHeaders(input: {
  event: string;
  deliveryId: string;
  attempt: number;
  timestampSeconds: number;
  /** The exact bytes sent. */
  body: string;
  /** The secret in force, as returned to the app. */
  secret: string;
  /** The secret before the last rotation, while its overlap lasts. */
  previousSecret?: string | null;
  /** A test event's delivery (POST /webhooks/test). */
  test?: boolean;
  /** The API version the body is rendered at (also the body's `apiVersion`). */
  apiVersion: string;
}): Record<string, string> {
  const { deliveryId, timestampSeconds: ts, body } = input;
  const standard = [input.secret, ...(input.previousSecret ? [input.previousSecret] : [])].map((s) =>
    signStandardWebhook(s, deliveryId, ts, body),
  );
  return {
    "content-type": "application/json",
    "user-agent": WEBHOOK_USER_AGENT,
    "x-webhook-event": input.event,
    "x-webhook-timestamp": String(ts),
    "x-webhook-signature": signWebhook(input.secret, ts, body),
    "x-webhook-id": deliveryId,
    "x-webhook-attempt": String(input.attempt),
    ...(input.test ? { "x-webhook-test": "true" } : {}),
    "api-version": input.apiVersion,
    "webhook-id": deliveryId,
    "webhook-timestamp": String(ts),
    "webhook-signature": standard.join(" "),
  };
}
