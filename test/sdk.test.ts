import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import {
  authorizeUrl,
  createAdminClient,
  createDeveloperClient,
  createTokenManager,
  exchangeCode,
  type Fetch,
  fastifyWebhookPlugin,
  memoryTokenStore,
  PlatformError,
  paginate,
  readCallback,
  unwrap,
  type VerifiedWebhook,
} from "@merchant-platform/sdk";
import Fastify from "fastify";
import { approveConsentPage, REDIRECT, registerApp } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import { createTestContext, merchantWithStore, type Scope, type TestContext } from "./harness.ts";

/**
 * The SDK (packages/sdk, as built by `npm install`) against the real platform over HTTP: the whole
 * OAuth path, typed Admin and developer API calls, the token manager under concurrency and a lost
 * refresh response, and the Fastify receiver.
 */
describe("SDK against the platform", () => {
  let ctx: TestContext;
  let baseUrl: string;
  const scopes: Scope[] = ["read_products", "write_products", "read_orders"];

  before(async () => {
    ctx = await createTestContext();
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  });
  after(() => ctx.close());

  /** Consent through the SDK's authorize URL (state + PKCE), then the code exchange over HTTP. */
  async function install() {
    const registered = await registerApp(ctx.app, scopes);
    const creds = { baseUrl, clientId: registered.clientId, clientSecret: registered.clientSecret };
    const merchant = await merchantWithStore(ctx.app);
    const start = authorizeUrl({ ...creds, redirectUri: REDIRECT, scopes, store: merchant.slug });
    const authorize = await fetch(start.url, { redirect: "manual" });
    assert.equal(authorize.status, 302);
    const consentPage = new URL(authorize.headers.get("location")!, baseUrl);
    const q = consentPage.searchParams;
    const redirectTo = await approveConsentPage(merchant, q);
    const { code, slug } = readCallback(new URL(redirectTo).searchParams, start.state);
    const tokens = await exchangeCode({
      ...creds,
      code,
      slug,
      redirectUri: REDIRECT,
      codeVerifier: start.codeVerifier,
    });
    return { creds, merchant, tokens };
  }

  /** A transport that counts refresh calls (and can lose the first response after the platform answered). */
  function transport(options: { loseFirstRefresh?: boolean } = {}) {
    const counts = { refresh: 0, lost: 0 };
    let lose = options.loseFirstRefresh ?? false;
    const send: Fetch = async (request) => {
      const isRefresh = new URL(request.url).pathname === "/api/v1/apps/token/refresh";
      if (isRefresh) counts.refresh++;
      const response = await fetch(request);
      if (isRefresh && lose) {
        lose = false;
        counts.lost++;
        await response.arrayBuffer();
        throw new TypeError("socket hang up (the response was lost)");
      }
      return response;
    };
    return { send, counts };
  }

  it("installs with state and PKCE, then calls the Admin API typed, paginated and with typed errors", async () => {
    const { creds, tokens } = await install();
    assert.match(tokens.accessToken, /^mpat_/);
    assert.deepEqual([...tokens.scopes].sort(), [...scopes].sort());
    const store = memoryTokenStore([tokens]);
    const admin = createAdminClient({
      baseUrl,
      tokens: createTokenManager({ ...creds, slug: tokens.slug, store }),
    });
    const created = await unwrap(
      admin.POST("/api/v1/apps/api/products", {
        body: flat({ title: "Linen shirt", price: "49.00", stock: 3 }),
      }),
    );
    assert.match(created.id, /^prod_/);
    assert.equal(created.variants[0]!.price, "49.00");
    for (let i = 0; i < 4; i++)
      await unwrap(
        admin.POST("/api/v1/apps/api/products", { body: flat({ title: `Mug ${i}`, price: "9.00" }) }),
      );
    const all: string[] = [];
    for await (const p of paginate((cursor) =>
      admin.GET("/api/v1/apps/api/products", {
        params: { query: { limit: 2, ...(cursor ? { cursor } : {}) } },
      }),
    ))
      all.push(p.title);
    assert.equal(all.length, 5);
    await assert.rejects(
      unwrap(
        admin.GET("/api/v1/apps/api/products/{id}", {
          params: { path: { id: "prod_0000000000000000000000" } },
        }),
      ),
      (e: unknown) => {
        assert.ok(e instanceof PlatformError);
        assert.equal(e.code, "NOT_FOUND");
        assert.equal(e.status, 404);
        assert.match(e.requestId ?? "", /^[0-9a-f-]{36}$/);
        return true;
      },
    );
    await assert.rejects(
      unwrap(admin.POST("/api/v1/apps/api/products", { body: flat({ title: "", price: "1" }) })),
      (e: unknown) =>
        e instanceof PlatformError && e.code === "VALIDATION_FAILED" && Array.isArray(e.details),
    );
  });

  it("token manager: 50 concurrent calls with an expired token cause exactly one refresh (expired here, then refused there)", async () => {
    const { creds, tokens } = await install();
    const store = memoryTokenStore([{ ...tokens, expiresAt: Date.now() - 1 }]);
    const { send, counts } = transport();
    const manager = createTokenManager({ ...creds, slug: tokens.slug, store, fetch: send });
    const admin = createAdminClient({ baseUrl, tokens: manager, fetch: send });
    const list = () => unwrap(admin.GET("/api/v1/apps/api/products", { params: { query: { limit: 1 } } }));
    const results = await Promise.all(Array.from({ length: 50 }, list));
    assert.equal(results.length, 50);
    assert.equal(counts.refresh, 1, "known expired: one refresh for 50 callers");
    const first = (await store.get(tokens.slug))!;
    assert.notEqual(first.accessToken, tokens.accessToken);

    // The platform's clock passes the hour: the token looks fresh here, the platform refuses it.
    ctx.clock.advance(3_601_000);
    const again = await Promise.all(Array.from({ length: 50 }, list));
    assert.equal(again.length, 50);
    assert.equal(counts.refresh, 2, "refused with 401: one more refresh for 50 callers");
    assert.notEqual((await store.get(tokens.slug))!.accessToken, first.accessToken);
  });

  it("token manager: a lost refresh response is recovered with the idempotent retry, and the family lives on", async () => {
    const { creds, tokens } = await install();
    const store = memoryTokenStore([{ ...tokens, expiresAt: 0 }]);
    const { send, counts } = transport({ loseFirstRefresh: true });
    const manager = createTokenManager({
      ...creds,
      slug: tokens.slug,
      store,
      fetch: send,
      retry: { baseDelayMs: 1 },
    });
    const admin = createAdminClient({ baseUrl, tokens: manager, fetch: send });
    const page = await unwrap(admin.GET("/api/v1/apps/api/products", { params: { query: { limit: 1 } } }));
    assert.ok(Array.isArray(page));
    assert.equal(counts.lost, 1);
    assert.equal(counts.refresh, 2, "the lost call and its retry with the same key");
    // Not revoked: the pair the retry got works, and refreshes again.
    const next = await manager.refresh();
    assert.match(next.accessToken, /^mpat_/);
    await unwrap(admin.GET("/api/v1/apps/api/products", { params: { query: { limit: 1 } } }));
  });

  it("developer API client: key pair headers, the envelope unwrapped, typed refusals", async () => {
    const m = await merchantWithStore(ctx.app);
    const key = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
      params: { path: { slug: m.slug } },
      body: { name: "SDK", scopes: ["read_products"] },
    });
    assert.equal(key.response.status, 201);
    const dev = createDeveloperClient({
      baseUrl,
      apiKey: key.data!.data.keyId,
      apiSecret: key.data!.data.secret,
    });
    const store = await unwrap(dev.GET("/api/v1/developer/store"));
    assert.equal(store.slug, m.slug);
    await assert.rejects(
      unwrap(dev.POST("/api/v1/developer/products", { body: flat({ title: "Nope", price: "1.00" }) })),
      (e: unknown) => e instanceof PlatformError && e.code === "INSUFFICIENT_SCOPE" && e.status === 403,
    );
    const wrong = createDeveloperClient({
      baseUrl,
      apiKey: key.data!.data.keyId,
      apiSecret: `${key.data!.data.secret}x`,
    });
    await assert.rejects(
      unwrap(wrong.GET("/api/v1/developer/store")),
      (e: unknown) => e instanceof PlatformError && e.code === "INVALID_CREDENTIALS",
    );
  });

  it("Fastify receiver: the plugin keeps the raw body for the signature, scoped to its route", async () => {
    const secret = "whsec_fastify";
    const received: VerifiedWebhook[] = [];
    const receiver = Fastify();
    await receiver.register(fastifyWebhookPlugin, {
      path: "/webhooks",
      secret,
      onEvent: (w) => void received.push(w),
    });
    receiver.post("/other", async (request) => ({ parsed: request.body }));
    // Spacing a JSON parser would normalise: the signature covers these exact bytes.
    const body =
      '{ "id":"evt_1", "event":"product.deleted", "createdAt":"2026-11-22T10:00:00.000Z", "store":{"slug":"s"}, "data":{"id":"prod_1"} }';
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      "content-type": "application/json",
      "x-webhook-timestamp": String(ts),
      "x-webhook-signature": createHmac("sha256", secret).update(`${ts}.${body}`).digest("hex"),
      "x-webhook-id": "whd_f1",
    };
    const ok = await receiver.inject({ method: "POST", url: "/webhooks", headers, payload: body });
    assert.equal(ok.statusCode, 200);
    assert.equal(received[0]?.event.event, "product.deleted");
    const bad = await receiver.inject({
      method: "POST",
      url: "/webhooks",
      headers,
      payload: body.replace("prod_1", "prod_2"),
    });
    assert.equal(bad.statusCode, 401);
    const other = await receiver.inject({ method: "POST", url: "/other", payload: { a: 1 } });
    assert.deepEqual(other.json(), { parsed: { a: 1 } }, "other routes still parse JSON");
    await receiver.close();
  });
});
