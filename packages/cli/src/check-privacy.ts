import { createHmac, randomBytes } from "node:crypto";
import type { WebhookEventName } from "@merchant-platform/sdk";

/** The privacy events every app receives at its privacy endpoint (the platform's `webhooks`). */
export const PRIVACY_TOPICS = [
  "customer.redact",
  "customer.data_request",
  "shop.redact",
] as const satisfies readonly WebhookEventName[];
export type PrivacyTopic = (typeof PRIVACY_TOPICS)[number];

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
function fakeId(prefix: string, length = 22): string {
  const bytes = randomBytes(length);
  return `${prefix}_${Array.from(bytes, (b) => BASE62[b % 62]).join("")}`;
}

/** A body of `topic` as the platform sends it, marked `"test": true` (its ids are made up). */
export function privacyBody(topic: PrivacyTopic, store: string, clientId: string, now: Date): string {
  const customerId = fakeId("cus");
  const orderIds = [fakeId("ord"), fakeId("ord")];
  const data =
    topic === "customer.redact"
      ? { customerId, orderIds }
      : topic === "customer.data_request"
        ? { customerId, orderIds, requestedAt: now.toISOString() }
        : { clientId, uninstalledAt: new Date(now.getTime() - 48 * 3600_000).toISOString() };
  return JSON.stringify({
    id: fakeId("evt"),
    event: topic,
    createdAt: now.toISOString(),
    sequence: 1,
    store: { slug: store },
    data,
    test: true,
  });
}

/**
 * The headers of a delivery of `body` signed with `secret`, as the platform makes them: the spec's
 * `x-webhook-*` (hex HMAC-SHA256 of `<timestamp>.<body>` keyed with the whole secret string) and
 * Standard Webhooks' `webhook-*` (`v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` keyed with
 * the bytes the base64 after `whsec_` decodes to).
 */
export function signedHeaders(input: {
  topic: string;
  body: string;
  secret: string;
  timestampSeconds: number;
}): Record<string, string> {
  const id = fakeId("whd");
  const ts = String(input.timestampSeconds);
  const spec = createHmac("sha256", input.secret).update(`${ts}.${input.body}`).digest("hex");
  const key = Buffer.from(input.secret.replace(/^whsec_/, ""), "base64");
  const standard = createHmac("sha256", key).update(`${id}.${ts}.${input.body}`).digest("base64");
  return {
    "content-type": "application/json",
    "user-agent": "merchant-platform-cli check-privacy",
    "x-webhook-event": input.topic,
    "x-webhook-id": id,
    "x-webhook-attempt": "1",
    "x-webhook-timestamp": ts,
    "x-webhook-signature": spec,
    "x-webhook-test": "true",
    "webhook-id": id,
    "webhook-timestamp": ts,
    "webhook-signature": `v1,${standard}`,
  };
}

/** One check's outcome. */
export interface PrivacyCheck {
  topic: PrivacyTopic;
  signature: "bad" | "good";
  expected: string;
  status: number | null;
  error: string | null;
  ok: boolean;
}

/**
 * Sends each privacy topic to `url` twice: signed with a secret that is not the endpoint's (it
 * must answer 401), then with `secret` (it must answer 2xx). Answers every check.
 */
export async function checkPrivacyEndpoint(input: {
  url: string;
  secret: string;
  store: string;
  clientId: string;
  now?: () => Date;
  timeoutMs?: number;
}): Promise<PrivacyCheck[]> {
  const now = input.now ?? (() => new Date());
  const checks: PrivacyCheck[] = [];
  const wrongSecret = `whsec_${randomBytes(32).toString("base64")}`;
  for (const topic of PRIVACY_TOPICS) {
    for (const signature of ["bad", "good"] as const) {
      const at = now();
      const body = privacyBody(topic, input.store, input.clientId, at);
      const headers = signedHeaders({
        topic,
        body,
        secret: signature === "good" ? input.secret : wrongSecret,
        timestampSeconds: Math.floor(at.getTime() / 1000),
      });
      let status: number | null = null;
      let error: string | null = null;
      try {
        const response = await fetch(input.url, {
          method: "POST",
          headers,
          body,
          redirect: "manual",
          signal: AbortSignal.timeout(input.timeoutMs ?? 10_000),
        });
        status = response.status;
        await response.body?.cancel();
      } catch (e) {
        error = (e as Error & { cause?: Error }).cause?.message ?? (e as Error).message;
      }
      const ok = status !== null && (signature === "bad" ? status === 401 : status >= 200 && status < 300);
      checks.push({ topic, signature, expected: signature === "bad" ? "401" : "2xx", status, error, ok });
    }
  }
  return checks;
}
