import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { run } from "../packages/cli/src/commands.ts";
import { createSecretBox, parseSecretsKey } from "../src/lib/secret-box.ts";
import { consent, exchange, installedApp, REDIRECT } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import {
  type Api,
  apiClient,
  detailsOf,
  type EventBody,
  errorCode,
  merchantWithStore,
  type RequestBody,
  type Scope,
  text,
} from "./harness.ts";
import { type Received, startReceiver } from "./receiver.ts";
import { createWebhookContext, waitUntil } from "./webhooks-harness.ts";

/**
 * Issue 19, parts 1 and 2: every kind of delivery carries Standard Webhooks headers beside the
 * spec's, and the stock receivers (npm `standardwebhooks` and `svix`, `new Webhook(secret).verify`)
 * accept them given exactly the secret string the platform returned, refuse a body changed by one
 * byte and a timestamp more than 5 minutes old; rotating a secret signs with the old and the new
 * one for the overlap, then with the new one only. Real HTTPS receivers, the real worker.
 */

const ALL: Scope[] = ["read_products", "write_products", "read_orders", "read_customers", "manage_webhooks"];
const SECRETS_KEY = randomBytes(32).toString("base64");
const DAY_MS = 86_400_000;

type Stock = "standardwebhooks" | "svix";
const STOCK: Stock[] = ["standardwebhooks", "svix"];

function headersOf(headers: IncomingHttpHeaders | Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

/** The spec's own signature (6.3), computed independently: hex HMAC of `<timestamp>.<body>`. */
function specSignatureValid(secret: string, got: { headers: IncomingHttpHeaders; body: string }) {
  const expected = createHmac("sha256", secret)
    .update(`${got.headers["x-webhook-timestamp"]}.${got.body}`)
    .digest("hex");
  return got.headers["x-webhook-signature"] === expected;
}

describe("Standard Webhooks signatures on every delivery, verified by the stock libraries", () => {
  let ctx: Awaited<ReturnType<typeof createWebhookContext>>;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    ctx = await createWebhookContext({ SECRETS_KEY });
    rx = await startReceiver();
  });
  after(async () => {
    await rx.close();
    await ctx.close();
  });

  /**
   * Whether a stock library accepts `got` with `secret`, its clock read at `atMs` (the platform's
   * clock by default: the tests move it, and the libraries read Date.now()). `verify` is
   * synchronous, so nothing else runs while Date.now is replaced.
   */
  function accepts(
    stock: Stock,
    secret: string,
    got: { headers: IncomingHttpHeaders | Record<string, string>; body: string },
    atMs = ctx.clock.now().getTime(),
  ): boolean {
    const verifier = stock === "svix" ? new SvixWebhook(secret) : new StandardWebhook(secret);
    const realNow = Date.now;
    Date.now = () => atMs;
    try {
      verifier.verify(got.body, headersOf(got.headers));
      return true;
    } catch (error) {
      if ((error as Error).name === "WebhookVerificationError") return false;
      throw error;
    } finally {
      Date.now = realNow;
    }
  }

  /** Accepted by both stock libraries; refused with one byte changed, and 5 minutes and a second later. */
  function assertStockVerifies(secret: string, got: Received, what: string) {
    const tsMs = Number(got.headers["webhook-timestamp"]) * 1000;
    for (const stock of STOCK) {
      assert.equal(accepts(stock, secret, got, tsMs), true, `${stock} accepts the ${what}`);
      // One byte changed (same length): the first character of the event id.
      const i = got.body.indexOf('"id":"') + 6;
      const tampered = {
        ...got,
        body: `${got.body.slice(0, i)}${got.body[i] === "e" ? "f" : "e"}${got.body.slice(i + 1)}`,
      };
      assert.equal(Buffer.compare(Buffer.from(tampered.body), Buffer.from(got.body)) !== 0, true);
      assert.equal(tampered.body.length, got.body.length);
      assert.equal(accepts(stock, secret, tampered, tsMs), false, `${stock}: a changed byte`);
      assert.equal(accepts(stock, secret, got, tsMs + 301_000), false, `${stock}: 5 min 1 s old`);
    }
  }

  function assertStandardHeaders(got: Received, signatures = 1) {
    assert.equal(got.headers["webhook-id"], got.headers["x-webhook-id"], "webhook-id is x-webhook-id");
    assert.equal(got.headers["webhook-timestamp"], got.headers["x-webhook-timestamp"]);
    const parts = String(got.headers["webhook-signature"]).split(" ");
    assert.equal(parts.length, signatures, String(got.headers["webhook-signature"]));
    for (const p of parts) assert.match(p, /^v1,[A-Za-z0-9+/]{43}=$/);
    assert.match(String(got.headers["x-webhook-signature"]), /^[0-9a-f]{64}$/, "the spec's header unchanged");
  }

  async function subscribe(
    inst: Awaited<ReturnType<typeof installedApp>>,
    eventName: RequestBody<"/api/v1/apps/api/webhooks", "post">["eventName"],
    path: string,
  ) {
    const res = await inst.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName,
        targetUrl: `${rx.url}${path}`,
      },
    });
    assert.equal(res.response.status, 201, text(res));
    return res.data!.data as { id: string; secret: string };
  }

  const at = (path: string) => rx.received.filter((r) => r.path === path);
  async function next(path: string, n: number): Promise<Received> {
    await waitUntil(() => at(path).length >= n, 20_000, `${n} deliveries at ${path}`);
    return at(path)[n - 1]!;
  }

  it("a real delivery, each of its retried attempts (one webhook-id), a test event and a redelivery", async () => {
    const inst = await installedApp(ctx.app, ALL);
    const sub = await subscribe(inst, "product.created", "/kinds");
    assert.match(sub.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(sub.secret.slice(6), "base64").length, 32);
    // The first attempt fails (retried), the second is answered.
    let failed = false;
    rx.setResponder((r, res) => {
      if (r.path === "/kinds" && !failed) {
        failed = true;
        res.writeHead(503).end("later");
      } else res.end("ok");
    });
    await inst.merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: inst.merchant.slug } },
      body: flat({ title: "Std", price: "1.00" }),
    });
    const first = await next("/kinds", 1);
    const retried = await next("/kinds", 2);
    assert.equal(first.headers["x-webhook-attempt"], "1");
    assert.equal(retried.headers["x-webhook-attempt"], "2");
    assert.equal(retried.headers["webhook-id"], first.headers["webhook-id"], "the same on every attempt");
    assert.match(String(first.headers["webhook-id"]), /^whd_/);
    for (const [got, what] of [
      [first, "first attempt"],
      [retried, "retried attempt"],
    ] as const) {
      assertStandardHeaders(got);
      assertStockVerifies(sub.secret, got, what);
      assert.equal(specSignatureValid(sub.secret, got), true, "x-webhook-signature as before");
    }

    const test = await inst.api.POST("/api/v1/apps/api/webhooks/test", {
      body: { event: "product.created" },
    });
    assert.equal(test.response.status, 202, text(test));
    const tested = await next("/kinds", 3);
    assert.equal((JSON.parse(tested.body) as EventBody<"product.created">).test, true);
    assertStandardHeaders(tested);
    assertStockVerifies(sub.secret, tested, "test event");

    const redelivered = await inst.api.POST("/api/v1/apps/api/webhooks/deliveries/{id}/redeliver", {
      params: { path: { id: String(first.headers["x-webhook-id"]) } },
    });
    assert.equal(redelivered.response.status, 201, text(redelivered));
    const again = await next("/kinds", 4);
    assert.equal(again.headers["webhook-id"], redelivered.data!.data.id, "a redelivery has its own id");
    assert.equal(again.body, first.body);
    assertStandardHeaders(again);
    assertStockVerifies(sub.secret, again, "redelivery");
  });

  it("a subscription made before (whsec_ + 43 base62) verifies with the stock libraries given its old secret", async () => {
    const inst = await installedApp(ctx.app, ALL);
    const sub = await subscribe(inst, "customer.created", "/legacy");
    const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const legacy = `whsec_${[...randomBytes(43)].map((b) => alphabet[b % 62]).join("")}`;
    // What a subscription created before issue 19 holds: the old form, sealed like any secret.
    await ctx.platform.db
      .updateTable("webhook_subscriptions")
      .set({ secret_ciphertext: createSecretBox(parseSecretsKey(SECRETS_KEY)).seal(legacy) })
      .where("id", "=", sub.id)
      .execute();
    await inst.merchant.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: inst.merchant.slug } },
      body: {
        email: `legacy${Date.now()}@example.com`,
        firstName: "L",
      },
    });
    const got = await next("/legacy", 1);
    assertStandardHeaders(got);
    assertStockVerifies(legacy, got, "delivery with a legacy secret");
    assert.equal(specSignatureValid(legacy, got), true);
  });

  it("the CLI's listen forwards with Standard Webhooks headers, verified with the session's secret", async () => {
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    const baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    const forwarded: Received[] = [];
    const local: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        forwarded.push({
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          at: Date.now(),
          path: req.url ?? "/",
        });
        res.end("ok");
      });
    });
    await new Promise<void>((r) => local.listen(0, "127.0.0.1", r));
    const inst = await installedApp(ctx.app, ALL);
    let out = "";
    const stdout = Object.assign(
      new Writable({
        write(chunk, _encoding, done) {
          out += String(chunk);
          done();
        },
      }),
      { isTTY: false },
    );
    const controller = new AbortController();
    const cli = run(
      [
        "listen",
        "--forward-to",
        `http://127.0.0.1:${(local.address() as AddressInfo).port}/hook`,
        "--events",
        "order.paid",
        "--base-url",
        baseUrl,
        "--token",
        inst.tokens.accessToken,
      ],
      { stdout, stderr: stdout, env: { HOME: "/nonexistent" }, signal: controller.signal },
    );
    try {
      await waitUntil(() => /signing secret for this session: (whsec_\S+)/.test(out), 20_000, "session");
      const secret = /signing secret for this session: (whsec_\S+)/.exec(out)![1]!;
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      const test = await inst.api.POST("/api/v1/apps/api/webhooks/test", { body: { event: "order.paid" } });
      assert.equal(test.response.status, 202, text(test));
      await waitUntil(() => forwarded.length >= 1, 20_000, "a forwarded webhook");
      const got = forwarded[0]!;
      assertStandardHeaders(got);
      assertStockVerifies(secret, got, "listen forward");
      assert.equal(specSignatureValid(secret, got), true);
    } finally {
      controller.abort();
      await cli;
      local.close();
    }
  });

  it("rotation: for the overlap both secrets verify (new signature first), the spec's header has the new one; then the new only", async () => {
    const inst = await installedApp(ctx.app, ALL);
    const sub = await subscribe(inst, "order.paid", "/rotating");
    const rotated = await inst.api.POST("/api/v1/apps/api/webhooks/{id}/secret", {
      params: { path: { id: sub.id } },
    });
    assert.equal(rotated.response.status, 201, text(rotated));
    assert.equal(rotated.response.headers.get("cache-control"), "no-store");
    const { secret: fresh, secretRotatedAt, previousSecretExpiresAt } = rotated.data!.data;
    assert.match(fresh, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(fresh, sub.secret);
    assert.equal(
      Date.parse(previousSecretExpiresAt) - Date.parse(secretRotatedAt),
      DAY_MS,
      "24 h by default",
    );
    const listed = (await inst.api.GET("/api/v1/apps/api/webhooks")).data!.data;
    assert.equal(listed.find((s) => s.id === sub.id)?.secretRotatedAt, secretRotatedAt);

    const trigger = async (api: Api, n: number) => {
      const res = await api.POST("/api/v1/apps/api/webhooks/test", { body: { event: "order.paid" } });
      assert.equal(res.response.status, 202, text(res));
      return next("/rotating", n);
    };
    const during = await trigger(inst.api, 1);
    assertStandardHeaders(during, 2);
    const [newSig, oldSig] = String(during.headers["webhook-signature"]).split(" ");
    for (const stock of STOCK) {
      assert.equal(accepts(stock, fresh, during), true, `${stock} with the new secret`);
      assert.equal(accepts(stock, sub.secret, during), true, `${stock} with the old secret`);
      // Each signature is its own secret's: new first, then old.
      const only = (sig: string) => ({ ...during, headers: { ...during.headers, "webhook-signature": sig } });
      assert.equal(accepts(stock, fresh, only(newSig!)), true);
      assert.equal(accepts(stock, sub.secret, only(oldSig!)), true);
      assert.equal(accepts(stock, sub.secret, only(newSig!)), false);
    }
    assertStockVerifies(fresh, during, "delivery during the overlap (new secret)");
    assertStockVerifies(sub.secret, during, "delivery during the overlap (old secret)");
    assert.equal(specSignatureValid(fresh, during), true, "x-webhook-signature: the new secret at once");
    assert.equal(specSignatureValid(sub.secret, during), false);

    // A day later (the injected clock): the old secret no longer signs. The access token has
    // expired by then; the app refreshes as it would.
    ctx.clock.advance(DAY_MS + 1000);
    const refreshed = await apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
      body: {
        slug: inst.merchant.slug,
        refreshToken: inst.tokens.refreshToken,
        clientId: inst.clientId,
        clientSecret: inst.clientSecret,
      },
    });
    assert.equal(refreshed.response.status, 200, text(refreshed));
    const later = await trigger(inst.bearer(refreshed.data!.data.accessToken), 2);
    assertStandardHeaders(later, 1);
    for (const stock of STOCK) {
      assert.equal(accepts(stock, fresh, later), true, `${stock} with the new secret`);
      assert.equal(accepts(stock, sub.secret, later), false, `${stock}: the old secret has ended`);
    }
    assertStockVerifies(fresh, later, "delivery after the overlap");
  });
});

describe("rotating a subscription's secret: who may, and what answers", () => {
  let ctx: Awaited<ReturnType<typeof createWebhookContext>>;
  before(async () => {
    ctx = await createWebhookContext({ SECRETS_KEY, WEBHOOK_SECRET_OVERLAP_SECONDS: "600" });
  });
  after(() => ctx.close());

  it("404 for another installation's, a deleted or an unknown subscription; 403 without manage_webhooks or the event's scope", async () => {
    const a = await installedApp(ctx.app, ALL);
    const b = await installedApp(ctx.app, ALL);
    const sub = (
      await a.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "customer.created",
          targetUrl: "https://127.0.0.1:9/hooks",
        },
      })
    ).data!.data;
    const foreign = await b.api.POST("/api/v1/apps/api/webhooks/{id}/secret", {
      params: { path: { id: sub.id } },
    });
    assert.equal(foreign.response.status, 404, text(foreign));
    assert.equal(errorCode(foreign), "NOT_FOUND");
    const unknown = await a.api.POST("/api/v1/apps/api/webhooks/{id}/secret", {
      params: { path: { id: "whsub_0000000000000000000000" } },
    });
    assert.equal(unknown.response.status, 404);
    const malformed = await a.api.POST("/api/v1/apps/api/webhooks/{id}/secret", {
      params: { path: { id: "nope" } },
    });
    assert.equal(malformed.response.status, 400);

    // The event's scope, as for subscribing: a token narrowed to manage_webhooks may not.
    const narrowed = await apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
      body: {
        slug: a.merchant.slug,
        refreshToken: a.tokens.refreshToken,
        clientId: a.clientId,
        clientSecret: a.clientSecret,
        scope: "manage_webhooks",
      },
    });
    assert.equal(narrowed.response.status, 200, text(narrowed));
    const narrow = await a
      .bearer(narrowed.data!.data.accessToken)
      .POST("/api/v1/apps/api/webhooks/{id}/secret", { params: { path: { id: sub.id } } });
    assert.equal(narrow.response.status, 403, text(narrow));
    assert.equal(errorCode(narrow), "INSUFFICIENT_SCOPE");
    assert.equal(detailsOf(narrow).requiredScope, "read_customers");

    const noManage = await installedApp(ctx.app, ["read_customers"]);
    assert.equal(
      (
        await noManage.api.POST("/api/v1/apps/api/webhooks/{id}/secret", {
          params: { path: { id: sub.id } },
        })
      ).response.status,
      403,
    );

    // What the wide token gets, with the overlap configured (600 s here).
    const wide = await apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
      body: {
        slug: a.merchant.slug,
        refreshToken: narrowed.data!.data.refreshToken,
        clientId: a.clientId,
        clientSecret: a.clientSecret,
      },
    });
    const api = a.bearer(wide.data!.data.accessToken);
    const ok = await api.POST("/api/v1/apps/api/webhooks/{id}/secret", {
      params: { path: { id: sub.id } },
    });
    assert.equal(ok.response.status, 201, text(ok));
    assert.equal(
      Date.parse(ok.data!.data.previousSecretExpiresAt) - Date.parse(ok.data!.data.secretRotatedAt),
      600_000,
    );
    assert.equal(ok.response.headers.get("location"), null, "no resource to point at");
    assert.equal(
      (await api.DELETE("/api/v1/apps/api/webhooks/{id}", { params: { path: { id: sub.id } } })).response
        .status,
      200,
    );
    assert.equal(
      (
        await api.POST("/api/v1/apps/api/webhooks/{id}/secret", {
          params: { path: { id: sub.id } },
        })
      ).response.status,
      404,
      "a deleted subscription",
    );
  });

  it("keeps the replaced secret only: a second rotation drops the first one's old secret", async () => {
    const a = await installedApp(ctx.app, ALL);
    const sub = (
      await a.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "order.paid",
          targetUrl: "https://127.0.0.1:9/hooks",
        },
      })
    ).data!.data;
    const one = await a.api.POST("/api/v1/apps/api/webhooks/{id}/secret", {
      params: { path: { id: sub.id } },
    });
    const two = await a.api.POST("/api/v1/apps/api/webhooks/{id}/secret", {
      params: { path: { id: sub.id } },
    });
    assert.equal(two.response.status, 201);
    assert.notEqual(one.data!.data.secret, two.data!.data.secret);
    const row = await ctx.platform.db
      .selectFrom("webhook_subscriptions")
      .select(["secret_ciphertext", "previous_secret_ciphertext", "secret_rotated_at"])
      .where("id", "=", sub.id)
      .executeTakeFirstOrThrow();
    const box = createSecretBox(parseSecretsKey(SECRETS_KEY));
    assert.equal(box.open(row.secret_ciphertext), two.data!.data.secret);
    assert.ok(row.previous_secret_ciphertext && row.secret_rotated_at);
    assert.equal(box.open(row.previous_secret_ciphertext), one.data!.data.secret, "the secret it replaced");
    assert.equal(row.secret_rotated_at.toISOString(), two.data!.data.secretRotatedAt);
  });

  it("the CLI's rotate-secret prints the new secret once and when the old one stops signing", async () => {
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    const baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    const a = await installedApp(ctx.app, ALL);
    const b = await installedApp(ctx.app, ALL);
    const sub = (
      await a.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "order.created",
          targetUrl: "https://127.0.0.1:9/hooks",
        },
      })
    ).data!.data;
    const cli = async (args: string[], token: string) => {
      let out = "";
      const sink = new Writable({
        write(chunk, _encoding, done) {
          out += String(chunk);
          done();
        },
      });
      const code = await run([...args, "--base-url", baseUrl, "--token", token], {
        stdout: sink,
        stderr: sink,
        env: { HOME: "/nonexistent" },
      });
      return { code, out };
    };
    const done = await cli(["rotate-secret", sub.id], a.tokens.accessToken);
    assert.equal(done.code, 0, done.out);
    const secret = /New signing secret for whsub_\w+: (whsec_\S+)/.exec(done.out)?.[1];
    assert.ok(secret, done.out);
    const row = await ctx.platform.db
      .selectFrom("webhook_subscriptions")
      .select(["secret_ciphertext", "secret_rotated_at"])
      .where("id", "=", sub.id)
      .executeTakeFirstOrThrow();
    assert.equal(createSecretBox(parseSecretsKey(SECRETS_KEY)).open(row.secret_ciphertext), secret);
    const until = new Date(row.secret_rotated_at!.getTime() + 600_000).toISOString();
    assert.ok(done.out.includes(`Until ${until}`), done.out);
    const usage = await cli(["rotate-secret"], a.tokens.accessToken);
    assert.equal(usage.code, 2, usage.out);
    const foreign = await cli(["rotate-secret", sub.id], b.tokens.accessToken);
    assert.equal(foreign.code, 1, foreign.out);
    assert.match(foreign.out, /NOT_FOUND \(404\)/);
  });

  it("the developer's delivery page lists the app's subscriptions in every store with when each secret was rotated", async () => {
    const a = await installedApp(ctx.app, ALL);
    const sub = (
      await a.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "product.created",
          targetUrl: "https://127.0.0.1:9/a",
        },
      })
    ).data!.data;
    const deleted = (
      await a.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "product.updated",
          targetUrl: "https://127.0.0.1:9/b",
        },
      })
    ).data!.data;
    assert.equal(
      (await a.api.DELETE("/api/v1/apps/api/webhooks/{id}", { params: { path: { id: deleted.id } } }))
        .response.status,
      200,
    );
    const before = await a.dev.client.GET("/api/v1/dashboard/apps/{clientId}/webhooks", {
      params: { path: { clientId: a.clientId } },
    });
    assert.equal(before.response.status, 200, text(before));
    assert.deepEqual(before.data!.data, [
      {
        id: sub.id,
        storeSlug: a.merchant.slug,
        eventName: "product.created",
        targetUrl: "https://127.0.0.1:9/a",
        status: "active",
        disabledAt: null,
        disabledReason: null,
        failingSince: null,
        createdAt: sub.createdAt,
        secretRotatedAt: null,
        apiVersion: sub.apiVersion,
        filter: null,
        fields: null,
      },
    ]);
    const rotated = await a.api.POST("/api/v1/apps/api/webhooks/{id}/secret", {
      params: { path: { id: sub.id } },
    });
    // The same app installed in a second store, subscribed there too: both listed, newest first.
    const store2 = await merchantWithStore(ctx.app);
    const { code } = await consent(store2, a.clientId, ALL);
    const tokens = (
      await exchange(ctx.app, {
        slug: store2.slug,
        code,
        redirectUri: REDIRECT,
        clientId: a.clientId,
        clientSecret: a.clientSecret,
      })
    ).data!.data;
    const sub2 = await a.bearer(tokens.accessToken).POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "order.paid",
        targetUrl: "https://127.0.0.1:9/c",
      },
    });
    assert.equal(sub2.response.status, 201, text(sub2));
    const page1 = await a.dev.client.GET("/api/v1/dashboard/apps/{clientId}/webhooks", {
      params: { path: { clientId: a.clientId }, query: { limit: 1 } },
    });
    assert.deepEqual(
      page1.data!.data.map((s) => [s.id, s.storeSlug, s.secretRotatedAt]),
      [[sub2.data!.data.id, store2.slug, null]],
    );
    const page2 = await a.dev.client.GET("/api/v1/dashboard/apps/{clientId}/webhooks", {
      params: { path: { clientId: a.clientId }, query: { limit: 1, cursor: page1.data!.meta.nextCursor! } },
    });
    assert.deepEqual(
      page2.data!.data.map((s) => [s.id, s.storeSlug, s.secretRotatedAt]),
      [[sub.id, a.merchant.slug, rotated.data!.data.secretRotatedAt]],
    );
    assert.equal(page2.data!.meta.nextCursor, null);
    // Another account's app is not found; no session is unauthenticated.
    const other = await installedApp(ctx.app, ALL);
    assert.equal(
      (
        await other.dev.client.GET("/api/v1/dashboard/apps/{clientId}/webhooks", {
          params: { path: { clientId: a.clientId } },
        })
      ).response.status,
      404,
    );
    assert.equal(
      (
        await apiClient(ctx.app).GET("/api/v1/dashboard/apps/{clientId}/webhooks", {
          params: { path: { clientId: a.clientId } },
        })
      ).response.status,
      401,
    );
  });
});
