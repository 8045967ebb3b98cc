import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { signWebhook, webhookHeaders } from "./signing.ts";

/** An independent implementation: WebCrypto, not node:crypto's createHmac. */
async function webCryptoHmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message));
  return Buffer.from(mac).toString("hex");
}

describe("webhook signing", () => {
  it("matches an independent HMAC-SHA256 over `<timestamp>.<body>`, in lowercase hex", async () => {
    const body = '{"id":"evt_1","event":"order.paid","data":{"total":"10.00","note":"ünïcödé"}}';
    const sig = signWebhook("whsec_test", 1795000000, body);
    assert.equal(sig, await webCryptoHmacHex("whsec_test", `1795000000.${body}`));
    assert.match(sig, /^[0-9a-f]{64}$/);
  });

  it("matches a vector computed with Python's hmac module", () => {
    assert.equal(
      signWebhook("whsec_vector", 1700000000, '{"a":1}'),
      "5d485af0d9ddc3522d7a396ce60598f0d5fbb3bacdb1924001168092bc407c18",
    );
  });

  it("changes with the timestamp, the body and the secret", () => {
    const base = signWebhook("s", 1, "{}");
    assert.notEqual(signWebhook("s", 2, "{}"), base);
    assert.notEqual(signWebhook("s", 1, "{ }"), base);
    assert.notEqual(signWebhook("t", 1, "{}"), base);
  });

  it("builds the delivery headers of spec 6.2", () => {
    const h = webhookHeaders({
      event: "order.paid",
      deliveryId: "whd_1",
      attempt: 3,
      timestampSeconds: 42,
      signature: "ab",
    });
    assert.deepEqual(
      [
        h["x-webhook-event"],
        h["x-webhook-id"],
        h["x-webhook-attempt"],
        h["x-webhook-timestamp"],
        h["x-webhook-signature"],
      ],
      ["order.paid", "whd_1", "3", "42", "ab"],
    );
  });
});
