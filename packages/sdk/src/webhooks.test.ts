import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import {
  createDuplicateFilter,
  expressWebhookHandler,
  memoryDuplicateStore,
  nodeWebhookHandler,
  type VerifiedWebhook,
  verifyWebhook,
  WebhookVerificationError,
} from "./webhooks.ts";

const secret = "whsec_test_secret";
const NOW = 1_790_000_000_000;
const body = JSON.stringify({
  id: "evt_1",
  event: "order.created",
  createdAt: "2026-11-22T10:00:00.000Z",
  store: { slug: "demo-store" },
  data: { id: "ord_1", total: "39.98" },
});

function signed(raw = body, at = NOW / 1000, key = secret) {
  return {
    "x-webhook-timestamp": String(at),
    "x-webhook-signature": createHmac("sha256", key).update(`${at}.${raw}`).digest("hex"),
    "x-webhook-id": "whd_1",
    "x-webhook-attempt": "2",
    "x-webhook-event": "order.created",
    "content-type": "application/json",
  };
}

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof WebhookVerificationError);
    return error.reason;
  }
  return "accepted";
}

describe("verifyWebhook", () => {
  it("accepts the exact signed bytes and returns the typed event", () => {
    const result = verifyWebhook({ rawBody: Buffer.from(body), headers: signed(), secret, now: NOW });
    assert.equal(result.event.event, "order.created");
    assert.equal(result.eventId, "evt_1");
    assert.equal(result.deliveryId, "whd_1");
    assert.equal(result.attempt, 2);
    assert.equal(result.test, false);
    if (result.event.event === "order.created") assert.equal(result.event.data.total, "39.98");
  });

  it("takes `test` from the signed body, never from the unsigned x-webhook-test header", () => {
    // A test app/uninstalled whose x-webhook-test header was stripped on the way is still a test.
    const testBody = JSON.stringify({
      id: "evt_t",
      event: "app/uninstalled",
      createdAt: "2026-11-22T10:00:00.000Z",
      store: { slug: "demo-store" },
      data: { clientId: "mpc_1", appName: "A", uninstalledAt: "2026-11-22T10:00:00.000Z" },
      test: true,
    });
    const stripped = signed(testBody);
    assert.equal(stripped["x-webhook-test" as keyof typeof stripped], undefined);
    assert.equal(verifyWebhook({ rawBody: testBody, headers: stripped, secret, now: NOW }).test, true);
    // A real event with the header added is not a test.
    const headers = new Headers({ ...signed(), "x-webhook-test": "true" });
    assert.equal(verifyWebhook({ rawBody: body, headers, secret, now: NOW }).test, false);
    // Only `true` counts.
    const odd = body.replace('"data"', '"test":"true","data"');
    assert.equal(verifyWebhook({ rawBody: odd, headers: signed(odd), secret, now: NOW }).test, false);
  });

  it("refuses a signed body that is not an event (no `id` to key duplicates by)", () => {
    for (const raw of ["[]", "null", '{"event":"order.created"}', '{"id":"","event":"order.created"}']) {
      assert.equal(
        reason(() => verifyWebhook({ rawBody: raw, headers: signed(raw), secret, now: NOW })),
        "invalid_body",
        raw,
      );
    }
  });

  it("refuses a changed body, another secret, a re-serialised body, missing headers and old timestamps", () => {
    const h = signed();
    assert.equal(
      reason(() => verifyWebhook({ rawBody: body.replace("39.98", "0.01"), headers: h, secret, now: NOW })),
      "invalid_signature",
    );
    assert.equal(
      reason(() => verifyWebhook({ rawBody: body, headers: h, secret: "whsec_other", now: NOW })),
      "invalid_signature",
    );
    const reserialised = JSON.stringify(JSON.parse(body), null, 2);
    assert.equal(
      reason(() => verifyWebhook({ rawBody: reserialised, headers: h, secret, now: NOW })),
      "invalid_signature",
    );
    assert.equal(
      reason(() =>
        verifyWebhook({ rawBody: body, headers: { ...h, "x-webhook-signature": "zz" }, secret, now: NOW }),
      ),
      "invalid_signature",
    );
    const { "x-webhook-id": _id, ...noId } = h;
    assert.equal(
      reason(() => verifyWebhook({ rawBody: body, headers: noId, secret, now: NOW })),
      "missing_header",
    );
    assert.equal(
      reason(() => verifyWebhook({ rawBody: body, headers: h, secret, now: NOW + 301_000 })),
      "stale_timestamp",
    );
    assert.equal(
      reason(() => verifyWebhook({ rawBody: body, headers: h, secret, now: NOW - 301_000 })),
      "stale_timestamp",
    );
    assert.equal(
      reason(() => verifyWebhook({ rawBody: body, headers: h, secret, now: NOW + 299_000 })),
      "accepted",
    );
    assert.equal(
      reason(() =>
        verifyWebhook({ rawBody: body, headers: h, secret, now: NOW + 599_000, toleranceSeconds: 600 }),
      ),
      "accepted",
    );
    const notJson = "not json";
    assert.equal(
      reason(() => verifyWebhook({ rawBody: notJson, headers: signed(notJson), secret, now: NOW })),
      "invalid_body",
    );
    const some = (secret: string[]) =>
      reason(() => verifyWebhook({ rawBody: body, headers: h, secret, now: NOW }));
    assert.equal(some(["whsec_old", secret]), "accepted", "any of several secrets");
    assert.equal(some(["whsec_a", "whsec_b"]), "invalid_signature");
    assert.equal(some([]), "invalid_signature");
  });
});

/** Standard Webhooks headers, computed here independently of the SDK (its spec, by hand). */
function standardSigned(
  raw = body,
  at = NOW / 1000,
  secrets: string[] = [STD_SECRET],
  id = "whd_1",
): Record<string, string> {
  const sign = (s: string) =>
    `v1,${createHmac("sha256", Buffer.from(s.slice("whsec_".length), "base64"))
      .update(`${id}.${at}.${raw}`)
      .digest("base64")}`;
  return {
    "webhook-id": id,
    "webhook-timestamp": String(at),
    "webhook-signature": secrets.map(sign).join(" "),
    "content-type": "application/json",
  };
}
const STD_SECRET = "whsec_ZoAfSt3qrb8b38w+HDb1I7VjfQ2SdhXwP1qtFsLB9ic=";
const OLD_SECRET = "whsec_4fZh67+k+LUgawqiQQtxEPT+KJ/45z3db8Pi8OEyi04=";

describe("verifyWebhook: Standard Webhooks signatures", () => {
  it("accepts the specification's published example (its payload is no event, so then invalid_body)", () => {
    const headers = {
      "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
      "webhook-timestamp": "1614265330",
      "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    };
    const check = (raw: string) =>
      reason(() =>
        verifyWebhook({
          rawBody: raw,
          headers,
          secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
          now: 1614265330_000,
        }),
      );
    assert.equal(check('{"test": 2432232314}'), "invalid_body", "signature accepted");
    assert.equal(check('{"test": 2432232315}'), "invalid_signature");
  });

  it("verifies webhook-signature alone (no x-webhook-* headers), naming the family and the signed id", () => {
    const result = verifyWebhook({ rawBody: body, headers: standardSigned(), secret: STD_SECRET, now: NOW });
    assert.equal(result.signature, "standard");
    assert.equal(result.eventId, "evt_1");
    assert.equal(result.deliveryId, "whd_1");
    assert.equal(
      verifyWebhook({
        rawBody: body,
        headers: signed(body, NOW / 1000, STD_SECRET),
        secret: STD_SECRET,
        now: NOW,
      }).signature,
      "spec",
    );
  });

  it("refuses a changed body or id, another secret, and a timestamp more than the tolerance away", () => {
    const h = standardSigned();
    const check = (headers: Record<string, string>, raw = body, now = NOW, secret = STD_SECRET) =>
      reason(() => verifyWebhook({ rawBody: raw, headers, secret, now }));
    assert.equal(check(h), "accepted");
    assert.equal(check(h, body.replace("39.98", "39.99")), "invalid_signature");
    assert.equal(check({ ...h, "webhook-id": "whd_2" }), "invalid_signature", "the id is signed");
    assert.equal(check(h, body, NOW, OLD_SECRET), "invalid_signature");
    assert.equal(check(h, body, NOW + 301_000), "stale_timestamp");
    assert.equal(check(h, body, NOW - 301_000), "stale_timestamp");
    assert.equal(check({ ...h, "webhook-signature": "v2,abc v1,!!" }), "invalid_signature");
    const { "webhook-id": _id, ...noId } = h;
    assert.equal(check(noId), "missing_header");
  });

  it("during a rotation's overlap, a receiver holding either secret verifies; the spec's header has the new one only", () => {
    const at = NOW / 1000;
    // What the platform sends while rotating: both Standard signatures (new first), the spec's with the new.
    const headers = {
      ...standardSigned(body, at, [STD_SECRET, OLD_SECRET]),
      ...signed(body, at, STD_SECRET),
    };
    const withSecret = (secret: string) => verifyWebhook({ rawBody: body, headers, secret, now: NOW });
    assert.equal(withSecret(STD_SECRET).signature, "standard");
    assert.equal(withSecret(OLD_SECRET).signature, "standard", "the old secret by the Standard signature");
    // Without the Standard headers (an old relay), only the new secret verifies.
    const specOnly = signed(body, at, STD_SECRET);
    assert.equal(
      reason(() => verifyWebhook({ rawBody: body, headers: specOnly, secret: OLD_SECRET, now: NOW })),
      "invalid_signature",
    );
    assert.equal(
      verifyWebhook({ rawBody: body, headers: specOnly, secret: [OLD_SECRET, STD_SECRET], now: NOW })
        .signature,
      "spec",
    );
  });

  it("keys secrets made before Standard Webhooks (whsec_ + 43 base62) the way the stock libraries do", () => {
    const legacy = `whsec_${"5Rt8YpLm2Qx7NvB4Kc9Zw1Hd6Jf3Gs0Ta8Ue2Vi7Wo"}4`;
    const result = verifyWebhook({
      rawBody: body,
      headers: standardSigned(body, NOW / 1000, [legacy]),
      secret: legacy,
      now: NOW,
    });
    assert.equal(result.signature, "standard");
    // A secret whose text is not base64 has no Standard key (the stock libraries refuse it): the spec's signature still works.
    const headers = { ...standardSigned(), ...signed() };
    assert.equal(verifyWebhook({ rawBody: body, headers, secret, now: NOW }).signature, "spec");
  });
});

describe("duplicate filter", () => {
  it("passes an id once until its TTL ends, or until it is forgotten", async () => {
    let now = 0;
    const filter = createDuplicateFilter({ store: memoryDuplicateStore({ now: () => now }), ttlSeconds: 60 });
    assert.equal(await filter.isNew("whd_a"), true);
    assert.equal(await filter.isNew("whd_a"), false);
    assert.equal(await filter.isNew("whd_b"), true);
    now += 61_000;
    assert.equal(await filter.isNew("whd_a"), true);
    await filter.forget("whd_a");
    assert.equal(await filter.isNew("whd_a"), true);
  });

  it("keeps at most maxEntries ids", async () => {
    const store = memoryDuplicateStore({ maxEntries: 2 });
    for (const id of ["a", "b", "c"]) assert.equal(await store.add(id, 60), true);
    assert.equal(await store.add("c", 60), false);
    assert.equal(await store.add("a", 60), true, "the oldest was dropped");
  });
});

describe("receiver adapters", () => {
  it("node http: 200 once per event, 200 'duplicate' again, 401 on a bad signature, 500 when the handler throws", async () => {
    const received: VerifiedWebhook[] = [];
    let fail = false;
    const server = createServer(
      nodeWebhookHandler({
        secret,
        duplicates: createDuplicateFilter(),
        onEvent: (w) => {
          if (fail) throw new Error("db down");
          received.push(w);
        },
      }),
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const post = async (headers: Record<string, string>, raw = body) => {
        const res = await fetch(url, { method: "POST", headers, body: raw });
        return [res.status, await res.text()];
      };
      const now = Math.floor(Date.now() / 1000);
      assert.deepEqual(await post(signed(body, now)), [200, "ok"]);
      assert.deepEqual(await post(signed(body, now)), [200, "duplicate"]);
      assert.deepEqual(await post({ ...signed(body, now), "x-webhook-signature": "0".repeat(64) }), [
        401,
        "invalid_signature",
      ]);
      const other = body.replace("evt_1", "evt_2");
      fail = true;
      assert.deepEqual(await post({ ...signed(other, now), "x-webhook-id": "whd_2" }, other), [
        500,
        "handler failed",
      ]);
      fail = false;
      // A failed event is not remembered: the platform's retry runs the handler again.
      assert.deepEqual(await post({ ...signed(other, now), "x-webhook-id": "whd_2" }, other), [200, "ok"]);
      assert.equal(received.length, 2);
      assert.equal(received[0]?.deliveryId, "whd_1");
      assert.equal(received[1]?.eventId, "evt_2");
    } finally {
      server.close();
    }
  });

  it("drops a replay by the signed event id, whatever x-webhook-id says; a redelivery of a handled event too", async () => {
    const received: VerifiedWebhook[] = [];
    const server = createServer(
      nodeWebhookHandler({
        secret,
        duplicates: createDuplicateFilter(),
        onEvent: (w) => void received.push(w),
      }),
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const post = async (headers: Record<string, string>) => {
        const res = await fetch(url, { method: "POST", headers, body });
        return [res.status, await res.text()];
      };
      const now = Math.floor(Date.now() / 1000);
      assert.deepEqual(await post(signed(body, now)), [200, "ok"]);
      // The same signed delivery captured and sent again within the tolerance, its unsigned id changed.
      assert.deepEqual(await post({ ...signed(body, now), "x-webhook-id": "whd_forged" }), [
        200,
        "duplicate",
      ]);
      // A redelivery is a new delivery (another x-webhook-id) of the same event: handled once.
      assert.deepEqual(await post({ ...signed(body, now + 1), "x-webhook-id": "whd_redelivered" }), [
        200,
        "duplicate",
      ]);
      assert.equal(received.length, 1);
    } finally {
      server.close();
    }
  });

  it("express: verifies a raw Buffer body, refuses a body another parser already parsed", async () => {
    const events: string[] = [];
    const handler = expressWebhookHandler({ secret, onEvent: (w) => void events.push(w.event.event) });
    const now = Math.floor(Date.now() / 1000);
    let status = 0;
    const res = {
      writeHead: (s: number) => {
        status = s;
        return { end: () => undefined };
      },
    } as never;
    await handler({ body: Buffer.from(body), headers: signed(body, now) } as never, res, () => undefined);
    assert.equal(status, 200);
    assert.deepEqual(events, ["order.created"]);
    let passed: unknown;
    await handler({ body: JSON.parse(body), headers: signed(body, now) } as never, res, (e) => (passed = e));
    assert.match(String(passed), /already parsed/);
  });
});
