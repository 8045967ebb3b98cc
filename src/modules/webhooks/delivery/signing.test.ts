import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { newWebhookSecret } from "../../../lib/ids.ts";
import {
  inRotationOverlap,
  signStandardWebhook,
  signWebhook,
  standardWebhookKey,
  WEBHOOK_USER_AGENT,
  webhookHeaders,
} from "./signing.ts";

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
      body,
      secret: "whsec_rQ==",
      apiVersion: "2026-11-28",
    });
    const key = await hmacKey("whsec_rQ==", "verify");
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

  it("builds the spec's headers (6.2) and the Standard Webhooks ones beside them, for one secret", () => {
    const body = '{"id":"evt_1"}';
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    assert.deepEqual(
      webhookHeaders({
        event: "order.paid",
        deliveryId: "whd_1",
        attempt: 3,
        timestampSeconds: 1795000000,
        body,
        secret,
        apiVersion: "2026-11-28",
      }),
      {
        "content-type": "application/json",
        "user-agent": WEBHOOK_USER_AGENT,
        "x-webhook-event": "order.paid",
        "x-webhook-timestamp": "1795000000",
        "x-webhook-signature": signWebhook(secret, 1795000000, body),
        "x-webhook-id": "whd_1",
        "x-webhook-attempt": "3",
        "api-version": "2026-11-28",
        "webhook-id": "whd_1",
        "webhook-timestamp": "1795000000",
        "webhook-signature": signStandardWebhook(secret, "whd_1", 1795000000, body),
      },
    );
  });
});

/** Verifies with a stock library at the moment `atSeconds` (they read Date.now()). */
function verifiesAt(
  verifier: { verify(body: string, headers: Record<string, string>): unknown },
  headers: Record<string, string>,
  body: string,
  atSeconds: number,
): boolean {
  const realNow = Date.now;
  Date.now = () => atSeconds * 1000;
  try {
    verifier.verify(body, headers);
    return true;
  } catch {
    return false;
  } finally {
    Date.now = realNow;
  }
}

describe("Standard Webhooks signatures", () => {
  it("match the specification's published example (secret, msg id, timestamp, payload)", () => {
    assert.equal(
      signStandardWebhook(
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "msg_p5jXN8AQM9LWM0D4loKWxJek",
        1614265330,
        '{"test": 2432232314}',
      ),
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    );
  });

  it("new secrets are whsec_ + padded base64 of 32 random bytes, the key being those bytes", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const secret = newWebhookSecret();
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(standardWebhookKey(secret).length, 32);
      assert.equal(`whsec_${standardWebhookKey(secret).toString("base64")}`, secret);
      seen.add(secret);
    }
    assert.equal(seen.size, 200);
  });

  it("key existing secrets (whsec_ + 43 base62) as the stock JavaScript verifiers do, so they verify there", () => {
    const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const body = '{"id":"evt_1","event":"order.paid","note":"ünïcödé"}';
    for (let i = 0; i < 500; i++) {
      const legacy = `whsec_${[...randomBytes(43)].map((b) => alphabet[b % 62]).join("")}`;
      const stock = new Webhook(legacy).sign("whd_1", new Date(1795000000 * 1000), body);
      assert.equal(signStandardWebhook(legacy, "whd_1", 1795000000, body), stock, legacy);
    }
    // Every last character (its low two bits are dropped by every base64 decoder alike).
    for (const last of alphabet) {
      const legacy = `whsec_${"Ab9".repeat(14)}${last}`;
      assert.equal(
        signStandardWebhook(legacy, "whd_2", 1, "{}"),
        new Webhook(legacy).sign("whd_2", new Date(1000), "{}"),
      );
    }
  });

  it("a delivery's headers verify with standardwebhooks and svix given the secret as returned", () => {
    const body = '{"id":"evt_9","event":"customer.created","data":{"name":"Zoë"}}';
    for (const secret of [newWebhookSecret(), "whsec_5Rt8YpLm2Qx7NvB4Kc9Zw1Hd6Jf3Gs0Ta8Ue2Vi7Wo4"]) {
      const ts = 1795000000;
      const headers = webhookHeaders({
        event: "customer.created",
        deliveryId: "whd_7",
        attempt: 1,
        timestampSeconds: ts,
        body,
        secret,
        apiVersion: "2026-11-28",
      });
      for (const verifier of [new Webhook(secret), new SvixWebhook(secret)]) {
        assert.equal(verifiesAt(verifier, headers, body, ts + 10), true);
        assert.equal(verifiesAt(verifier, headers, `${body.slice(0, -1)} }`, ts + 10), false, "body changed");
        assert.equal(verifiesAt(verifier, headers, body, ts + 301), false, "more than 5 minutes old");
        assert.equal(
          verifiesAt(verifier, { ...headers, "webhook-id": "whd_8" }, body, ts),
          false,
          "the id is signed",
        );
        assert.equal(verifiesAt(verifier, headers, body, ts), true);
      }
      assert.equal(verifiesAt(new Webhook(newWebhookSecret()), headers, body, ts), false, "another secret");
    }
  });

  it("while rotating, webhook-signature carries the new secret's signature, then the old one's; x-webhook-signature only the new", () => {
    const body = '{"id":"evt_3"}';
    const [next, old] = [newWebhookSecret(), newWebhookSecret()];
    const ts = 1795000000;
    const headers = webhookHeaders({
      event: "order.paid",
      deliveryId: "whd_3",
      attempt: 2,
      timestampSeconds: ts,
      body,
      secret: next,
      previousSecret: old,
      apiVersion: "2026-11-28",
    });
    assert.equal(
      headers["webhook-signature"],
      `${signStandardWebhook(next, "whd_3", ts, body)} ${signStandardWebhook(old, "whd_3", ts, body)}`,
    );
    assert.equal(headers["x-webhook-signature"], signWebhook(next, ts, body));
    for (const secret of [next, old]) {
      assert.equal(verifiesAt(new Webhook(secret), headers, body, ts), true);
      assert.equal(verifiesAt(new SvixWebhook(secret), headers, body, ts), true);
    }
    assert.equal(verifiesAt(new Webhook(newWebhookSecret()), headers, body, ts), false);
  });

  it("the overlap lasts exactly its seconds from the rotation", () => {
    const at = new Date("2026-11-26T10:00:00.000Z");
    assert.equal(inRotationOverlap(null, at, 86_400), false, "never rotated");
    assert.equal(inRotationOverlap(at, at, 86_400), true);
    assert.equal(inRotationOverlap(at, new Date(at.getTime() + 86_399_999), 86_400), true);
    assert.equal(inRotationOverlap(at, new Date(at.getTime() + 86_400_000), 86_400), false);
    assert.equal(inRotationOverlap(at, at, 0), false, "0: the old secret ends at once");
  });

  it("refuse timestamps that are not whole Unix seconds, and secrets without a key", () => {
    assert.throws(() => signStandardWebhook("whsec_AAAA", "whd_1", 1795000000123, "{}"), RangeError);
    assert.throws(() => standardWebhookKey("whsec_"), RangeError);
  });
});
