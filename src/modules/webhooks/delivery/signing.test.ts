import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { signWebhook, WEBHOOK_USER_AGENT, webhookHeaders } from "./signing.ts";

/** An independent implementation: WebCrypto (crypto.subtle), not node:crypto's createHmac. */
async function hmacKey(secret: string, usage: "sign" | "verify") {
  return crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    [usage],
  );
}
async function webCryptoHmacHex(secret: string, message: string): Promise<string> {
  const mac = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(secret, "sign"),
    new TextEncoder().encode(message),
  );
  return Buffer.from(mac).toString("hex");
}

describe("webhook signing", () => {
  it("matches an independent HMAC-SHA256 over `<timestamp>.<body>`, in lowercase hex", async () => {
    const body = '{"id":"evt_1","event":"order.paid","data":{"total":"10.00","note":"ünïcödé 🚚"}}';
    for (const [secret, ts] of [
      ["whsec_test", 1795000000],
      ["whsec_ünï", 0],
      ["k".repeat(100), 1], // longer than the SHA-256 block: HMAC hashes the key first
    ] as const) {
      const sig = signWebhook(secret, ts, body);
      assert.equal(sig, await webCryptoHmacHex(secret, `${ts}.${body}`));
      assert.match(sig, /^[0-9a-f]{64}$/);
    }
  });

  it("matches vectors computed outside Node (openssl dgst -sha256 -hmac, Python hmac)", () => {
    assert.equal(
      signWebhook("whsec_vector", 1700000000, '{"a":1}'),
      "5d485af0d9ddc3522d7a396ce60598f0d5fbb3bacdb1924001168092bc407c18",
    );
    // UTF-8 in both the key and the body.
    assert.equal(
      signWebhook("whsec_ü", 1795000000, '{"id":"evt_1","note":"ünïcödé"}'),
      "d0c98dfda8f95416032660832bb87ee7fc97f33ad0d5ec18510d922d09757140",
    );
  });

  it("verifies the way a receiver would: WebCrypto verify (constant time) over the raw body", async () => {
    const body = '{"id":"evt_2","event":"product.created"}';
    const headers = webhookHeaders({
      event: "product.created",
      deliveryId: "whd_1",
      attempt: 1,
      timestampSeconds: 1795000123,
      signature: signWebhook("whsec_r", 1795000123, body),
    });
    const key = await hmacKey("whsec_r", "verify");
    const signed = new TextEncoder().encode(`${headers["x-webhook-timestamp"]}.${body}`);
    const mac = Buffer.from(headers["x-webhook-signature"]!, "hex");
    assert.equal(await crypto.subtle.verify("HMAC", key, mac, signed), true);
    const tampered = new TextEncoder().encode(`${headers["x-webhook-timestamp"]}.${body} `);
    assert.equal(await crypto.subtle.verify("HMAC", key, mac, tampered), false);
  });

  it("changes with the timestamp, the body and the secret", () => {
    const base = signWebhook("s", 1, "{}");
    assert.notEqual(signWebhook("s", 2, "{}"), base);
    assert.notEqual(signWebhook("s", 1, "{ }"), base);
    assert.notEqual(signWebhook("t", 1, "{}"), base);
  });

  it("refuses timestamps that are not whole Unix seconds (milliseconds, fractions)", () => {
    assert.throws(() => signWebhook("s", 1795000000123, "{}"), RangeError);
    assert.throws(() => signWebhook("s", 1.5, "{}"), RangeError);
    assert.throws(() => signWebhook("s", -1, "{}"), RangeError);
    assert.throws(() => signWebhook("s", Number.NaN, "{}"), RangeError);
  });

  it("builds exactly the delivery headers of spec 6.2, plus content-type and user-agent", () => {
    assert.deepEqual(
      webhookHeaders({
        event: "order.paid",
        deliveryId: "whd_1",
        attempt: 3,
        timestampSeconds: 1795000000,
        signature: "ab",
      }),
      {
        "content-type": "application/json",
        "user-agent": WEBHOOK_USER_AGENT,
        "x-webhook-event": "order.paid",
        "x-webhook-timestamp": "1795000000",
        "x-webhook-signature": "ab",
        "x-webhook-id": "whd_1",
        "x-webhook-attempt": "3",
      },
    );
  });
});
