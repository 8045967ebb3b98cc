import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { consent, exchange, installedApp, REDIRECT, registerApp } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import {
  answer,
  apiClient,
  createTestContext,
  detailsOf,
  errorCode,
  formQuery,
  type Json,
  merchantWithStore,
  offDocumentRequest,
  type RequestBody,
  rawBody,
  type TestContext,
  text,
} from "./harness.ts";

describe("app integration: the whole life of an app", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ ACCESS_TOKEN_TTL_SECONDS: "60" });
  });
  after(() => ctx.close());

  it("registers, installs, calls, refreshes, detects reuse, rotates, expires, uninstalls and reinstalls", async () => {
    // Register: the secret is shown once and never listed.
    const { dev, clientId, clientSecret } = await registerApp(ctx.app, [
      "read_products",
      "write_products",
      "read_orders",
    ]);
    assert.match(clientId, /^mpc_[0-9A-Za-z]{24}$/);
    assert.match(clientSecret, /^mpcs_[0-9A-Za-z]{43}$/);
    const listed = await dev.client.GET("/api/v1/dashboard/apps");
    assert.equal(listed.data!.data.length, 1);
    // Not in the document's app, read on purpose: the secret must not be listed.
    assert.equal((listed.data!.data[0]! as Json).clientSecret, undefined);
    assert.ok(!text(listed).includes(clientSecret));

    // A merchant with data, and another store the app must never see.
    const merchant = await merchantWithStore(ctx.app);
    const other = await merchantWithStore(ctx.app);
    const product = (
      await merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: merchant.slug } },
        body: flat({ title: "Mine", price: "5.00", stock: 2 }),
      })
    ).data!.data;
    const foreign = (
      await other.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: other.slug } },
        body: flat({ title: "Theirs", price: "1.00" }),
      })
    ).data!.data;

    // Consent and exchange.
    const { code, url } = await consent(merchant, clientId, ["read_products", "read_orders"]);
    assert.equal(url.origin + url.pathname, REDIRECT);
    assert.equal(url.searchParams.get("slug"), merchant.slug);
    assert.equal(url.searchParams.get("state"), "st-123");
    assert.match(code, /^mpac_/);
    const tokenRes = await exchange(ctx.app, {
      slug: merchant.slug,
      code,
      redirectUri: REDIRECT,
      clientId,
      clientSecret,
    });
    assert.equal(tokenRes.response.status, 200);
    assert.equal(tokenRes.response.headers.get("cache-control"), "no-store");
    const t1 = tokenRes.data!.data;
    assert.match(t1.accessToken, /^mpat_[0-9A-Za-z]{43}$/);
    assert.match(t1.refreshToken, /^mprt_[0-9A-Za-z]{43}$/);
    assert.equal(t1.tokenType, "Bearer");
    assert.equal(t1.expiresIn, 60);
    assert.equal(t1.refreshTokenExpiresIn, 2592000);
    assert.deepEqual(t1.scopes, ["read_orders", "read_products"]);
    assert.deepEqual(t1.store, { slug: merchant.slug });

    // Admin API: 200 in scope, 403 out of scope, 404 for another store's id.
    const api = apiClient(ctx.app, { headers: { authorization: `Bearer ${t1.accessToken}` } });
    const products = await api.GET("/api/v1/apps/api/products");
    assert.equal(products.response.status, 200);
    assert.deepEqual(
      products.data!.data.map((p: { id: string }) => p.id),
      [product.id],
    );
    assert.equal(products.response.headers.get("x-ratelimit-limit"), "180");
    assert.equal(products.response.headers.get("x-ratelimit-remaining"), "179");
    assert.equal(products.response.headers.get("x-ratelimit-reset"), "0");
    assert.equal(
      (await api.GET("/api/v1/apps/api/products/{id}", { params: { path: { id: product.id } } })).data!.data
        .title,
      "Mine",
    );
    assert.equal((await api.GET("/api/v1/apps/api/orders")).response.status, 200);
    const forbidden = await api.GET("/api/v1/apps/api/customers");
    assert.equal(forbidden.response.status, 403);
    assert.equal(errorCode(forbidden), "INSUFFICIENT_SCOPE");
    assert.equal(detailsOf(forbidden).requiredScope, "read_customers");
    assert.match(String(forbidden.response.headers.get("www-authenticate")), /insufficient_scope/);
    const write = await api.POST("/api/v1/apps/api/products", { body: flat({ title: "New", price: "1" }) });
    assert.equal(write.response.status, 403, "write_products was registered but not approved");
    const cross = await api.GET("/api/v1/apps/api/products/{id}", { params: { path: { id: foreign.id } } });
    assert.equal(cross.response.status, 404);
    assert.equal(errorCode(cross), "NOT_FOUND");

    // Code reuse fails and kills the tokens issued from it.
    const reused = await exchange(ctx.app, {
      slug: merchant.slug,
      code,
      redirectUri: REDIRECT,
      clientId,
      clientSecret,
    });
    assert.equal(reused.response.status, 400);
    assert.equal(errorCode(reused), "INVALID_GRANT");
    const dead = await api.GET("/api/v1/apps/api/products");
    assert.equal(dead.response.status, 401);
    assert.equal(errorCode(dead), "INVALID_TOKEN");
    assert.match(String(dead.response.headers.get("www-authenticate")), /^Bearer/);

    // A fresh consent, then refresh; the old refresh token is spent.
    const second = await consent(merchant, clientId, ["read_products"]);
    const t2 = (
      await exchange(ctx.app, {
        slug: merchant.slug,
        code: second.code,
        redirectUri: REDIRECT,
        clientId,
        clientSecret,
      })
    ).data!.data;
    const refresh = (token: string, secret = clientSecret) =>
      apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
        body: {
          slug: merchant.slug,
          refreshToken: token,
          clientId,
          clientSecret: secret,
        },
      });
    const r1 = await refresh(t2.refreshToken);
    assert.equal(r1.response.status, 200);
    const t3 = r1.data!.data;
    assert.notEqual(t3.accessToken, t2.accessToken);
    assert.equal(
      (
        await apiClient(ctx.app, { headers: { authorization: `Bearer ${t3.accessToken}` } }).GET(
          "/api/v1/apps/api/products",
        )
      ).response.status,
      200,
    );
    // Reusing the spent refresh token fails and revokes the whole family, including t3.
    const again = await refresh(t2.refreshToken);
    assert.equal(again.response.status, 400);
    assert.equal(errorCode(again), "INVALID_GRANT");
    assert.equal(
      (
        await apiClient(ctx.app, { headers: { authorization: `Bearer ${t3.accessToken}` } }).GET(
          "/api/v1/apps/api/products",
        )
      ).response.status,
      401,
    );
    assert.equal((await refresh(t3.refreshToken)).response.status, 400);

    // Secret rotation: the old secret is refused at once, without telling whether the client exists.
    const third = await consent(merchant, clientId, ["read_products"]);
    const rotated = await dev.client.POST("/api/v1/dashboard/apps/{clientId}/secret", {
      params: { path: { clientId } },
    });
    assert.equal(rotated.response.status, 200);
    const newSecret = rotated.data!.data.clientSecret;
    const oldSecret = await exchange(ctx.app, {
      slug: merchant.slug,
      code: third.code,
      redirectUri: REDIRECT,
      clientId,
      clientSecret,
    });
    assert.equal(oldSecret.response.status, 401);
    assert.equal(errorCode(oldSecret), "INVALID_CLIENT");
    const unknownClient = await exchange(ctx.app, {
      slug: merchant.slug,
      code: third.code,
      redirectUri: REDIRECT,
      clientId: `mpc_${"x".repeat(24)}`,
      clientSecret,
    });
    assert.deepEqual(answer(unknownClient), answer(oldSecret));
    const t4Res = await exchange(ctx.app, {
      slug: merchant.slug,
      code: third.code,
      redirectUri: REDIRECT,
      clientId,
      clientSecret: newSecret,
    });
    assert.equal(t4Res.response.status, 200, "the code survived the failed attempts");
    const t4 = t4Res.data!.data;
    const api4 = apiClient(ctx.app, { headers: { authorization: `Bearer ${t4.accessToken}` } });

    // Expiry: the access token dies after its TTL; the refresh token still works.
    ctx.clock.advance(61_000);
    assert.equal((await api4.GET("/api/v1/apps/api/products")).response.status, 401);
    const r4 = await refresh(t4.refreshToken, newSecret);
    assert.equal(r4.response.status, 200);
    const t5 = r4.data!.data;
    const api5 = apiClient(ctx.app, { headers: { authorization: `Bearer ${t5.accessToken}` } });
    assert.equal((await api5.GET("/api/v1/apps/api/products")).response.status, 200);

    // Uninstall: 401 at once; the refresh token is dead too.
    const installs = await merchant.client.GET("/api/v1/dashboard/stores/{slug}/installations", {
      params: { path: { slug: merchant.slug } },
    });
    assert.deepEqual(
      installs.data!.data.map((i: { clientId: string; scopes: string[] }) => [i.clientId, i.scopes]),
      [[clientId, ["read_orders", "read_products"]]],
    );
    const un = await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/installations/{clientId}", {
      params: { path: { slug: merchant.slug, clientId } },
    });
    assert.equal(un.response.status, 200);
    assert.equal((await api5.GET("/api/v1/apps/api/products")).response.status, 401);
    assert.equal((await refresh(t5.refreshToken, newSecret)).response.status, 400);
    assert.equal(
      (
        await merchant.client.GET("/api/v1/dashboard/stores/{slug}/installations", {
          params: { path: { slug: merchant.slug } },
        })
      ).data!.data.length,
      0,
    );
    assert.equal(
      (
        await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/installations/{clientId}", {
          params: { path: { slug: merchant.slug, clientId } },
        })
      ).response.status,
      404,
    );

    // Reinstall: a new installation works; old tokens stay dead.
    const fourth = await consent(merchant, clientId, ["read_products", "write_products"]);
    const t6 = (
      await exchange(ctx.app, {
        slug: merchant.slug,
        code: fourth.code,
        redirectUri: REDIRECT,
        clientId,
        clientSecret: newSecret,
      })
    ).data!.data;
    const api6 = apiClient(ctx.app, { headers: { authorization: `Bearer ${t6.accessToken}` } });
    assert.equal((await api6.GET("/api/v1/apps/api/products")).response.status, 200);
    const created = await api6.POST("/api/v1/apps/api/products", {
      body: flat({ title: "From app", price: "9.99" }),
    });
    assert.equal(created.response.status, 201);
    assert.equal((await api5.GET("/api/v1/apps/api/products")).response.status, 401);
  });

  it("answers a request without a token 401 before validating it", async () => {
    const anonymous = apiClient(ctx.app);
    for (const res of [
      await anonymous.GET("/api/v1/apps/api/products", { params: { query: { limit: 99999 } } }),
      await anonymous.POST("/api/v1/apps/api/products", {
        ...rawBody("not json"),
        headers: { "content-type": "text/plain" },
      }),
      await apiClient(ctx.app, { headers: { authorization: "Bearer mpat_unknown" } }).GET(
        "/api/v1/apps/api/orders",
        { params: { query: { cursor: "%%%" } } },
      ),
    ]) {
      assert.equal(res.response.status, 401);
      assert.equal(errorCode(res), "INVALID_TOKEN");
    }
  });

  it("widens an installation when the merchant approves more scopes", async () => {
    const { clientId, merchant } = await installedApp(
      ctx.app,
      ["read_products"],
      ["read_products", "read_customers"],
    );
    await consent(merchant, clientId, ["read_customers"]);
    const installs = await merchant.client.GET("/api/v1/dashboard/stores/{slug}/installations", {
      params: { path: { slug: merchant.slug } },
    });
    assert.deepEqual(installs.data!.data[0]!.scopes, ["read_customers", "read_products"]);
  });

  it("binds the code to client, redirect URI, store slug and PKCE", async () => {
    const a = await registerApp(ctx.app, ["read_products"]);
    const b = await registerApp(ctx.app, ["read_products"]);
    const merchant = await merchantWithStore(ctx.app);
    const verifier = "v".repeat(50);
    const { createHash } = await import("node:crypto");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const { code } = await consent(merchant, a.clientId, ["read_products"], {
      codeChallenge: challenge,
      codeChallengeMethod: "S256",
    });
    const base = {
      slug: merchant.slug,
      code,
      redirectUri: REDIRECT,
      clientId: a.clientId,
      clientSecret: a.clientSecret,
      codeVerifier: verifier,
    };
    const tries = [
      { ...base, clientId: b.clientId, clientSecret: b.clientSecret },
      { ...base, redirectUri: `${REDIRECT}/other` },
      { ...base, slug: "some-other-store" },
      { ...base, codeVerifier: "w".repeat(50) },
      { ...base, codeVerifier: undefined },
    ];
    for (const body of tries) {
      const res = await exchange(ctx.app, body);
      assert.equal(res.response.status, 400, JSON.stringify(body));
      assert.equal(errorCode(res), "INVALID_GRANT");
    }
    assert.equal((await exchange(ctx.app, base)).response.status, 200);
    ctx.clock.advance(0);
  });

  it("expires codes after 10 minutes", async () => {
    const a = await registerApp(ctx.app, ["read_products"]);
    const merchant = await merchantWithStore(ctx.app);
    const { code } = await consent(merchant, a.clientId, ["read_products"]);
    ctx.clock.advance(601_000);
    const res = await exchange(ctx.app, {
      slug: merchant.slug,
      code,
      redirectUri: REDIRECT,
      clientId: a.clientId,
      clientSecret: a.clientSecret,
    });
    assert.equal(res.response.status, 400);
    assert.equal(errorCode(res), "INVALID_GRANT");
  });

  it("refuses consent for unregistered scopes or redirect URIs, and redirects a denial", async () => {
    const a = await registerApp(ctx.app, ["read_products"]);
    const merchant = await merchantWithStore(ctx.app);
    const base: RequestBody<"/api/v1/dashboard/oauth/consent", "post"> = {
      clientId: a.clientId,
      redirectUri: REDIRECT,
      scopes: ["read_products"],
      state: "s",
      storeSlug: merchant.slug,
      approve: true,
    };
    const wider = await merchant.client.POST("/api/v1/dashboard/oauth/consent", {
      body: {
        ...base,
        scopes: ["read_orders"],
      },
    });
    assert.match(wider.data!.data.redirectTo, /error=invalid_scope/);
    const badRedirect = await merchant.client.POST("/api/v1/dashboard/oauth/consent", {
      body: {
        ...base,
        redirectUri: "https://evil.example.com/cb",
      },
    });
    assert.equal(badRedirect.response.status, 400);
    assert.equal(badRedirect.data?.data, undefined);
    const denied = await merchant.client.POST("/api/v1/dashboard/oauth/consent", {
      body: { ...base, approve: false },
    });
    const url = new URL(denied.data!.data.redirectTo);
    assert.equal(url.searchParams.get("error"), "access_denied");
    assert.equal(url.searchParams.get("state"), "s");
    assert.equal(url.searchParams.get("code"), null);
    const notMine = await merchantWithStore(ctx.app);
    const foreign = await merchant.client.POST("/api/v1/dashboard/oauth/consent", {
      body: {
        ...base,
        storeSlug: notMine.slug,
      },
    });
    assert.equal(foreign.response.status, 404);
  });

  it("shows a consent page with the scopes in plain words, and an error page for unknown clients", async () => {
    const a = await registerApp(ctx.app, ["read_products", "read_orders"], "Shelf <Sync>");
    const merchant = await merchantWithStore(ctx.app);
    const query = {
      client_id: a.clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "read_products read_orders",
      state: "x",
    };
    const q = new URLSearchParams(query);
    // A valid request leads to the dashboard's consent page, with the same query.
    const anonymous = await apiClient(ctx.app).GET("/api/v1/apps/authorize", {
      params: { query },
      querySerializer: formQuery,
    });
    assert.equal(anonymous.response.status, 302);
    assert.equal(anonymous.response.headers.get("location"), `/oauth/consent?${q}`);
    // The dashboard's page (HTML), not an operation of the document.
    const page = await offDocumentRequest(merchant.client, "GET", `/oauth/consent?${q}`);
    assert.equal(page.response.status, 200);
    assert.equal(page.response.headers.get("x-frame-options"), "DENY");
    assert.match(String(page.response.headers.get("content-security-policy")), /frame-ancestors 'none'/);
    // What the page shows comes from the request, read again by the merchant's session.
    assert.equal(
      (await apiClient(ctx.app).GET("/api/v1/dashboard/oauth/consent", { params: { query } })).response
        .status,
      401,
    );
    const request = await merchant.client.GET("/api/v1/dashboard/oauth/consent", { params: { query } });
    assert.equal(request.response.status, 200);
    assert.equal(request.data!.data.app.name, "Shelf <Sync>");
    assert.deepEqual(request.data!.data.scopes.map((s) => s.label).sort(), [
      "See your orders, their items, totals, shipping addresses and tracking",
      "See your products and stock",
    ]);
    assert.ok(request.data!.data.stores.some((s) => s.slug === merchant.slug));
    const tampered = await merchant.client.GET("/api/v1/dashboard/oauth/consent", {
      params: {
        query: {
          client_id: a.clientId,
          redirect_uri: "https://evil.example.com",
          response_type: "code",
          scope: "read_products",
        },
      },
    });
    assert.equal(tampered.response.status, 400);
    const unknown = await merchant.client.GET("/api/v1/apps/authorize", {
      params: { query: { client_id: "mpc_nope", redirect_uri: REDIRECT, scope: "read_products" } },
    });
    assert.equal(unknown.response.status, 400);
    assert.equal(unknown.response.headers.get("location"), null);
    const badUri = await merchant.client.GET("/api/v1/apps/authorize", {
      params: {
        query: { client_id: a.clientId, redirect_uri: "https://evil.example.com", scope: "read_products" },
      },
    });
    assert.equal(badUri.response.status, 400);
    assert.equal(badUri.response.headers.get("location"), null);
    const badScope = await merchant.client.GET("/api/v1/apps/authorize", {
      params: {
        query: {
          client_id: a.clientId,
          redirect_uri: REDIRECT,
          response_type: "code",
          scope: "write_products",
          state: "z",
        },
      },
    });
    assert.equal(badScope.response.status, 302);
    assert.match(
      String(badScope.response.headers.get("location")),
      /^https:\/\/app\.example\.com\/oauth\/callback\?error=invalid_scope/,
    );
  });

  it("throttles client-secret guessing", async () => {
    const local = await createTestContext({ CREDENTIAL_MAX_FAILURES: "3" });
    try {
      const a = await registerApp(local.app, ["read_products"]);
      const body = {
        slug: "any-store",
        code: "mpac_x",
        redirectUri: REDIRECT,
        clientId: a.clientId,
        clientSecret: "wrong",
      };
      for (let i = 0; i < 3; i++) assert.equal((await exchange(local.app, body)).response.status, 401);
      const blocked = await exchange(local.app, { ...body, clientSecret: a.clientSecret });
      assert.equal(blocked.response.status, 429);
      assert.equal(errorCode(blocked), "RATE_LIMITED");
    } finally {
      await local.close();
    }
  });
});
