import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import { createConnection, createServer as createTcpServer, type Socket } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startReceiver } from "../../../../test/receiver.ts";
import { classify, decideAfterAttempt } from "./retry-policy.ts";
import { createWebhookAgent, DEFAULT_MAX_RESPONSE_BYTES, type SendOptions, sendWebhook } from "./sender.ts";
import type { Resolver } from "./ssrf.ts";

// Every connection in this file goes to loopback. Names other than `localhost` are resolved by
// fake resolvers; the one public address they mention (93.184.215.14) is never connected to.
const TLS = join(import.meta.dirname, "..", "..", "..", "..", "test", "fixtures", "tls");
const tlsFiles = {
  key: readFileSync(join(TLS, "server-key.pem")),
  cert: readFileSync(join(TLS, "server.pem")),
};
const PUBLIC = "93.184.215.14";
const answer =
  (address: string): Resolver =>
  async () => [{ address, family: address.includes(":") ? 6 : 4 }];

/** A bare HTTPS server on one loopback address, with the test certificate. */
async function listenHttps(host: string, handler: (res: ServerResponse) => void) {
  const server: Server = createServer(tlsFiles, (req, res) => {
    req.resume();
    req.on("end", () => handler(res));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, resolve);
  });
  return {
    server,
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("webhook sender against real HTTPS receivers on loopback", () => {
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    assert.ok(
      process.env.NODE_EXTRA_CA_CERTS,
      "run with NODE_EXTRA_CA_CERTS=test/fixtures/tls/ca.pem so the test receivers' certificate is trusted",
    );
    rx = await startReceiver();
  });
  after(() => rx.close());

  const send = (path: string, extra: Partial<SendOptions> = {}) =>
    sendWebhook({
      url: `${rx.url}${path}`,
      headers: { "content-type": "application/json", "x-webhook-id": "whd_test" },
      body: '{"a":"ü"}',
      timeoutMs: 2000,
      allowPrivate: true,
      ...extra,
    });

  it("POSTs the exact body and headers, and reports a 2xx as delivered", async () => {
    rx.setResponder((_r, res) => res.writeHead(200, { "content-type": "text/plain" }).end("thanks"));
    const count = rx.received.length;
    const result = await send("/ok");
    assert.equal(result.status, 200);
    assert.equal(classify(result), "delivered");
    assert.equal(result.responseBody, "thanks");
    assert.equal(result.truncated, false);
    assert.equal(result.error, undefined);
    assert.equal(result.errorKind, undefined);
    assert.ok(Number.isInteger(result.durationMs) && result.durationMs >= 0);
    assert.equal(rx.received.length, count + 1);
    const got = rx.received[count]!;
    assert.equal(got.path, "/ok");
    assert.equal(got.body, '{"a":"ü"}');
    assert.equal(got.headers["x-webhook-id"], "whd_test");
    assert.equal(got.headers["content-type"], "application/json");
    assert.equal(got.headers["content-length"], String(Buffer.byteLength('{"a":"ü"}')));
  });

  it("classifies real answers end to end, with exactly one request each: redirects are not followed", async () => {
    const cases: Array<[number, "delivered" | "retry" | "failed", Record<string, string>?]> = [
      [201, "delivered"],
      [204, "delivered"],
      [500, "retry"],
      [502, "retry"],
      [503, "retry"],
      [408, "retry"],
      [429, "retry"],
      [410, "failed"],
      [400, "failed"],
      [404, "failed"],
      [301, "failed", { location: "/redirected" }],
      [302, "failed", { location: "/redirected" }],
      [307, "failed", { location: "/redirected" }],
      [308, "failed", { location: "/redirected" }],
    ];
    for (const [status, expected, headers] of cases) {
      rx.setResponder((_r, res) => res.writeHead(status, headers).end(status === 204 ? undefined : "nope"));
      const count = rx.received.length;
      const result = await send(`/s${status}`);
      assert.equal(result.status, status);
      assert.equal(classify(result), expected, String(status));
      await new Promise((resolve) => setTimeout(resolve, 20)); // room for a redirect that should not come
      assert.equal(rx.received.length, count + 1, `${status}: exactly one request`);
    }
    assert.ok(!rx.received.some((r) => r.path === "/redirected"));
  });

  it("reports Retry-After of a 429 or 503 (and only those), and the policy honours a longer one", async () => {
    const answers: Array<[number, string | undefined]> = [
      [429, "120"],
      [503, "Sun, 22 Nov 2099 10:02:00 GMT"],
      [500, undefined],
      [408, undefined],
    ];
    for (const [status, expected] of answers) {
      rx.setResponder((_r, res) => res.writeHead(status, { "retry-after": expected ?? "120" }).end());
      const result = await send(`/ra${status}`);
      assert.equal(result.retryAfter, expected, String(status));
    }
    rx.setResponder((_r, res) => res.writeHead(429, { "retry-after": "120" }).end());
    const limited = await send("/limited");
    assert.deepEqual(decideAfterAttempt({ attempt: 1, result: limited, baseMs: 1000, nowMs: Date.now() }), {
      outcome: "retry",
      delayMs: 120_000,
    });
  });

  it("times out a receiver that never answers, within the limit, as a retryable failure", async () => {
    rx.setResponder(() => {});
    const result = await send("/hang", { timeoutMs: 300 });
    assert.equal(result.status, undefined);
    assert.equal(result.errorKind, "timeout");
    assert.match(result.error!, /^timeout: no response within 300 ms/);
    assert.ok(result.durationMs >= 290 && result.durationMs < 1000, `took ${result.durationMs} ms`);
    assert.equal(classify(result), "retry");
  });

  it("times out a TLS handshake that never completes (the limit covers connecting too)", async () => {
    const sockets = new Set<Socket>();
    const silent = createTcpServer((socket) => sockets.add(socket)); // accepts, then says nothing
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const result = await send("/", { url: `https://127.0.0.1:${port}/`, timeoutMs: 300 });
      assert.equal(result.errorKind, "timeout");
      assert.ok(result.durationMs < 1000, `took ${result.durationMs} ms`);
      assert.equal(sockets.size, 1, "it did connect");
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it("keeps the status when the time-out cuts a slow body short", async () => {
    let timer: NodeJS.Timeout | undefined;
    rx.setResponder((_r, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("partial ");
      timer = setInterval(() => res.write("."), 50); // dribbles for ever
      res.on("close", () => clearInterval(timer));
    });
    // The status line must arrive before the time-out: room for a TLS handshake on a loaded
    // machine (it can take a second), where 400 ms left the status undefined.
    const result = await send("/dribble", { timeoutMs: 1500 });
    clearInterval(timer);
    assert.equal(result.status, 200);
    assert.equal(classify(result), "delivered");
    assert.equal(result.truncated, true);
    assert.equal(result.errorKind, "timeout");
    assert.match(result.responseBody!, /^partial \.*$/);
    assert.ok(result.durationMs < 2500, `took ${result.durationMs} ms`);
  });

  it("reads at most 64 KiB of a huge answer, then hangs up instead of downloading the rest", async () => {
    const total = 64 * 1024 * 1024;
    let written = 0;
    const finished = new Promise<boolean>((resolve) => {
      rx.setResponder((_r, res) => {
        res.writeHead(200, { "content-type": "text/plain" });
        const chunk = Buffer.alloc(64 * 1024, "x");
        const pump = () => {
          while (written < total) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          res.end();
        };
        res.on("close", () => resolve(res.writableFinished));
        pump();
      });
    });
    const result = await send("/huge");
    assert.equal(result.status, 200);
    assert.equal(DEFAULT_MAX_RESPONSE_BYTES, 65_536);
    assert.equal(result.responseBody!.length, 65_536);
    assert.equal(result.truncated, true);
    assert.equal(await finished, false, "the receiver could not finish sending");
    assert.ok(written < total / 2, `receiver wrote ${written} bytes before the hang-up`);
  });

  it("respects a custom cap, without cutting a UTF-8 character in half; a body of exactly the cap is whole", async () => {
    rx.setResponder((_r, res) => res.end("éééééé")); // 12 bytes
    const cut = await send("/utf8", { maxResponseBytes: 5 });
    assert.equal(cut.responseBody, "éé");
    assert.equal(cut.truncated, true);
    const whole = await send("/utf8", { maxResponseBytes: 12 });
    assert.equal(whole.responseBody, "éééééé");
    assert.equal(whole.truncated, false);
  });

  it("reports a refused connection as a retryable network error", async () => {
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const result = await send("/", { url: `https://127.0.0.1:${port}/` });
    assert.equal(result.errorKind, "network");
    assert.equal(result.error, "network: ECONNREFUSED");
    assert.equal(classify(result), "retry");
  });

  it("reports bad URLs without throwing or connecting", async () => {
    for (const [url, allowPrivate] of [
      ["not a url", true],
      [`http://127.0.0.1:${rx.port}/`, false],
      ["http://example.com/hook", true],
    ] as const) {
      const count = rx.received.length;
      const result = await send("/", { url, allowPrivate });
      assert.equal(result.errorKind, "invalid_url", url);
      assert.equal(rx.received.length, count);
    }
  });

  it("with private targets allowed (development), delivers over plain http to localhost", async () => {
    const plain = createHttpServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    const port = (plain.address() as { port: number }).port;
    try {
      for (const host of ["127.0.0.1", "localhost"]) {
        const result = await send("/", { url: `http://${host}:${port}/hook` });
        assert.equal(result.status, 204, `${host}: ${result.error}`);
        assert.equal(classify(result), "delivered");
      }
    } finally {
      await new Promise((resolve) => plain.close(resolve));
    }
  });

  it("verifies certificates: an uncovered name, or a chain it cannot trust, is a TLS error", async () => {
    const count = rx.received.length;
    const wrongName = await send("/", {
      url: `https://wrong-name.test:${rx.port}/x`,
      resolve: answer("127.0.0.1"),
    });
    assert.equal(wrongName.errorKind, "tls");
    assert.match(wrongName.error!, /ALTNAME/);
    // Trusting only the leaf certificate itself (not its CA): verification must fail.
    const untrusting = createWebhookAgent(1, { ca: tlsFiles.cert });
    const untrusted = await send("/", { agent: untrusting });
    await untrusting.destroy();
    assert.equal(untrusted.errorKind, "tls");
    assert.equal(rx.received.length, count, "nothing was sent over an unverified connection");
  });
});

describe("webhook sender: SSRF protection on the connected address", () => {
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let rx6: Awaited<ReturnType<typeof listenHttps>> | null = null;
  let ipv6Hits = 0;
  before(async () => {
    rx = await startReceiver((_r, res) => res.end("ok"));
    rx6 = await listenHttps("::1", (res) => {
      ipv6Hits++;
      res.end("ok6");
    }).catch(() => null); // a host without IPv6 loopback skips the [::1] cases
  });
  after(async () => {
    await rx.close();
    await rx6?.close();
  });

  const attempt = (url: string, extra: Partial<SendOptions> = {}) =>
    sendWebhook({ url, headers: {}, body: "{}", timeoutMs: 2000, allowPrivate: false, ...extra });

  it("refuses loopback by default: 127.0.0.1, [::ffff:127.0.0.1], and `localhost` (real lookup)", async () => {
    const count = rx.received.length;
    for (const url of [`${rx.url}/x`, `https://[::ffff:127.0.0.1]:${rx.port}/x`, `${rx.localhostUrl}/x`]) {
      const result = await attempt(url);
      assert.equal(result.errorKind, "blocked_address", url);
      assert.match(result.error!, /loopback/, url);
      assert.equal(result.status, undefined);
    }
    assert.equal(rx.received.length, count, "nothing reached the receiver");
  });

  it("refuses [::1] by default and reaches it with allowPrivate", async (t) => {
    if (!rx6) return t.skip("this host has no IPv6 loopback");
    const url = `https://[::1]:${rx6!.port}/x`;
    const refused = await attempt(url);
    assert.equal(refused.errorKind, "blocked_address");
    assert.equal(ipv6Hits, 0);
    const allowed = await attempt(url, { allowPrivate: true });
    assert.equal(allowed.status, 200);
    assert.equal(allowed.responseBody, "ok6");
    assert.equal(ipv6Hits, 1);
  });

  it("reaches 127.0.0.1 and `localhost` with allowPrivate", async () => {
    for (const url of [`${rx.url}/x`, `${rx.localhostUrl}/x`]) {
      const result = await attempt(url, { allowPrivate: true });
      assert.equal(result.status, 200, url);
    }
  });

  it("refuses a name that resolves to loopback at delivery time though it was public when subscribed (rebinding)", async () => {
    let lookups = 0;
    const rebinding: Resolver = async () => [{ address: lookups++ === 0 ? PUBLIC : "127.0.0.1", family: 4 }];
    assert.deepEqual(await rebinding("hooks.example.com"), [{ address: PUBLIC, family: 4 }]); // subscription time
    const count = rx.received.length;
    const result = await attempt(`https://hooks.example.com:${rx.port}/x`, { resolve: rebinding });
    assert.equal(lookups, 2, "the connection did its own lookup");
    assert.equal(result.errorKind, "blocked_address");
    assert.equal(rx.received.length, count);
  });

  it("refuses before connecting: not even a TCP connection is opened to a refused address", async () => {
    const sockets: Socket[] = [];
    const counter = createTcpServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => counter.listen(0, "127.0.0.1", resolve));
    try {
      const port = (counter.address() as { port: number }).port;
      const byName = await attempt(`https://hooks.example.com:${port}/x`, { resolve: answer("127.0.0.1") });
      assert.equal(byName.errorKind, "blocked_address");
      assert.match(byName.error!, /hooks\.example\.com resolves to 127\.0\.0\.1 \(loopback\)/);
      const literal = await attempt(`https://127.0.0.1:${port}/x`);
      assert.equal(literal.errorKind, "blocked_address");
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(sockets.length, 0);
    } finally {
      for (const s of sockets) s.destroy();
      counter.close();
    }
  });

  it("refuses a name if any of its answers is internal", async () => {
    const mixed: Resolver = async () => [
      { address: PUBLIC, family: 4 },
      { address: "127.0.0.1", family: 4 },
    ];
    const result = await attempt(`https://hooks.example.com:${rx.port}/x`, { resolve: mixed });
    assert.equal(result.errorKind, "blocked_address");
  });

  it("checks the socket's remote address, not the DNS answer: a check that saw a public address cannot be bypassed", async () => {
    // The lookup answers a public address, but the connection lands on loopback anyway (as with a
    // resolver that answers differently twice, a stale cache, or an interception on the way).
    let connections = 0;
    const agent = createWebhookAgent(1, {
      connectTcp: () => {
        connections++;
        return createConnection({ host: "127.0.0.1", port: rx.port });
      },
    });
    const count = rx.received.length;
    const result = await attempt(`https://hooks.example.com:${rx.port}/x`, {
      resolve: answer(PUBLIC),
      agent,
    });
    await agent.destroy();
    assert.equal(connections, 1, "the diverted connection was made");
    assert.equal(result.errorKind, "blocked_address");
    assert.match(result.error!, /connected to 127\.0\.0\.1 \(loopback\)/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(rx.received.length, count, "not one request reached loopback");
  });

  it("never hands a keep-alive socket opened under allowPrivate to an attempt that refuses private addresses", async () => {
    const agent = createWebhookAgent(4);
    try {
      const first = await attempt(`${rx.localhostUrl}/warm`, { allowPrivate: true, agent });
      assert.equal(first.status, 200);
      await new Promise((resolve) => setImmediate(resolve)); // the socket returns to the pool
      let lookups = 0;
      const count = rx.received.length;
      const second = await attempt(`${rx.localhostUrl}/x`, {
        agent,
        resolve: async () => {
          lookups++;
          return [{ address: "127.0.0.1", family: 4 }];
        },
      });
      assert.equal(lookups, 1, "the pooled socket was not reused: a connection of its own was checked");
      assert.equal(second.errorKind, "blocked_address");
      assert.equal(rx.received.length, count);
    } finally {
      await agent.destroy();
    }
  });

  it("reuses one keep-alive connection per host for attempts under the same policy", async () => {
    const agent = createWebhookAgent(4);
    let lookups = 0;
    const resolve: Resolver = async () => {
      lookups++;
      return [{ address: "127.0.0.1", family: 4 }];
    };
    try {
      for (let i = 0; i < 3; i++) {
        const result = await attempt(`${rx.localhostUrl}/again`, { allowPrivate: true, agent, resolve });
        assert.equal(result.status, 200);
        await new Promise((resolve) => setImmediate(resolve)); // the socket returns to the pool
      }
      assert.equal(lookups, 1, "one connection, opened (and looked up) once");
    } finally {
      await agent.destroy();
    }
  });
});
