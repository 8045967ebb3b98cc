import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startReceiver } from "../../../../test/receiver.ts";
import { classify } from "./retry-policy.ts";
import { sendWebhook } from "./sender.ts";

describe("webhook sender against a real HTTPS receiver (run with NODE_EXTRA_CA_CERTS=test/fixtures/tls/ca.pem)", () => {
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    rx = await startReceiver();
  });
  after(() => rx.close());
  const send = (path: string, extra: Partial<Parameters<typeof sendWebhook>[0]> = {}) =>
    sendWebhook({
      url: `${rx.url}${path}`,
      headers: { "content-type": "application/json", "x-test": "1" },
      body: '{"a":1}',
      timeoutMs: 2000,
      allowPrivate: true,
      ...extra,
    });

  it("delivers the exact body and headers; 2xx is delivered", async () => {
    rx.setResponder((_r, res) => res.writeHead(204).end());
    const before = rx.received.length;
    const result = await send("/ok");
    assert.equal(result.status, 204);
    assert.equal(classify(result), "delivered");
    const got = rx.received[before]!;
    assert.equal(got.body, '{"a":1}');
    assert.equal(got.headers["x-test"], "1");
    assert.equal(got.headers["content-length"], "7");
  });

  it("reports 500/408/429 (with Retry-After) as retryable and 410/400/3xx as final, without following redirects", async () => {
    const cases: Array<[number, string, Record<string, string>?]> = [
      [500, "retry"],
      [408, "retry"],
      [429, "retry", { "retry-after": "120" }],
      [410, "failed"],
      [400, "failed"],
      [301, "failed", { location: "https://127.0.0.1:1/elsewhere" }],
      [302, "failed", { location: "/redirected" }],
    ];
    for (const [status, expected, headers] of cases) {
      rx.setResponder((_r, res) => res.writeHead(status, headers).end("nope"));
      const count = rx.received.length;
      const result = await send(`/s${status}`);
      assert.equal(result.status, status);
      assert.equal(classify(result), expected, String(status));
      assert.equal(rx.received.length, count + 1, "exactly one request: redirects are not followed");
      if (status === 429) assert.equal(result.retryAfter, "120");
    }
  });

  it("times out a receiver that never answers, within the limit", async () => {
    rx.setResponder(() => {});
    const result = await send("/hang", { timeoutMs: 300 });
    assert.equal(result.status, undefined);
    assert.match(result.error!, /^timeout/);
    assert.ok(result.durationMs < 1500, `took ${result.durationMs}`);
    assert.equal(classify(result), "retry");
  });

  it("caps the response body it reads and keeps the first 64 KiB", async () => {
    rx.setResponder((_r, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("x".repeat(5 * 1024 * 1024));
    });
    const result = await send("/huge");
    assert.equal(result.status, 200);
    assert.equal(result.responseBody!.length, 65_536);
    assert.equal(result.truncated, true);
  });

  it("refuses loopback by default: IP literal, [::1] and a name resolving to loopback", async () => {
    rx.setResponder((_r, res) => res.end("ok"));
    const count = rx.received.length;
    for (const url of [`${rx.url}/x`, `https://[::1]:${rx.port}/x`, `${rx.localhostUrl}/x`]) {
      const result = await sendWebhook({
        url,
        headers: {},
        body: "{}",
        timeoutMs: 2000,
        allowPrivate: false,
      });
      assert.match(result.error ?? "", /^blocked_address/, url);
    }
    assert.equal(rx.received.length, count, "nothing reached the receiver");
  });

  it("checks the address actually connected to (DNS rebinding)", async () => {
    // The subscription-time lookup saw a public address; at delivery the name now points to loopback.
    let calls = 0;
    const rebinding = async (_host: string) =>
      calls++ === 0 ? [{ address: "93.184.215.14", family: 4 }] : [{ address: "127.0.0.1", family: 4 }];
    await rebinding("hooks.example.com");
    const count = rx.received.length;
    const result = await sendWebhook({
      url: `https://hooks.example.com:${rx.port}/x`,
      headers: {},
      body: "{}",
      timeoutMs: 2000,
      allowPrivate: false,
      resolve: rebinding,
    });
    assert.match(result.error ?? "", /^blocked_address/);
    assert.equal(rx.received.length, count);
  });

  it("verifies certificates: a name the certificate does not cover fails as a TLS error", async () => {
    const result = await sendWebhook({
      url: `https://wrong-name.test:${rx.port}/x`,
      headers: {},
      body: "{}",
      timeoutMs: 2000,
      allowPrivate: true,
      resolve: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    assert.match(result.error ?? "", /^tls/);
  });
});
