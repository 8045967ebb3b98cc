import { createHash, createHmac } from "node:crypto";

/**
 * JSON text of `value` with every object's keys in one order, so two bodies that mean the same
 * thing (`{"a":1,"b":2}` and `{"b":2,"a":1}`) have one text. Arrays keep their order; no body is `null`.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * What makes two requests "the same request" for an idempotency key: SHA-256 (hex) of the method,
 * the route, its path parameters and query, and the canonical JSON body.
 */
export function requestFingerprint(request: {
  method: string;
  route: string;
  params: unknown;
  query: unknown;
  body: unknown;
}): string {
  const text = canonicalJson([
    request.method.toUpperCase(),
    request.route,
    request.params ?? {},
    request.query ?? {},
    request.body,
  ]);
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * The 32-byte key sealing one stored response: HMAC-SHA256 of the scope and the client's key under
 * the service's secrets key. The client's key is never stored (only its SHA-256), so the database
 * alone, or the database and the secrets key without the client's key, does not open a stored
 * response (some creates answer a secret that is shown once).
 */
export function responseSealingKey(secretsKey: Buffer, scope: string, idempotencyKey: string): Buffer {
  return createHmac("sha256", secretsKey)
    .update(`idempotency-response\0${scope}\0${idempotencyKey}`)
    .digest();
}
