import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { consent, exchange, installedApp, REDIRECT, registerApp } from "./apps-harness.ts";
import {
  apiClient,
  asForm,
  createTestContext,
  errorCode,
  formQuery,
  merchantWithStore,
  offDocument,
  type RequestBody,
  type TestContext,
  text,
} from "./harness.ts";

const ISSUER = "https://platform.example.com";
const VERIFIER = "v".repeat(43);

describe("OAuth corrections", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ PUBLIC_BASE_URL: ISSUER });
  });
  after(() => ctx.close());

  /** POST /api/v1/oauth/token, form-encoded, client authentication by HTTP Basic. */
  async function token(
    client: { clientId: string; clientSecret: string },
    form: RequestBody<"/api/v1/oauth/token", "post">,
  ) {
    const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString("base64");
    return apiClient(ctx.app).POST("/api/v1/oauth/token", {
      body: form,
      ...asForm,
      headers: { ...asForm.headers, authorization: `Basic ${basic}` },
    });
  }

  it("refuses a code_verifier for a code issued without a code_challenge (RFC 9700 2.1.1)", async () => {
    const a = await registerApp(ctx.app, ["read_products"]);
    const merchant = await merchantWithStore(ctx.app);
    const { code } = await consent(merchant, a.clientId, ["read_products"]);
    const form = { grant_type: "authorization_code", code, redirect_uri: REDIRECT };
    const refused = await token(a, { ...form, code_verifier: VERIFIER });
    assert.equal(refused.response.status, 400);
    assert.equal(refused.error!.error, "invalid_grant");
    const envelope = await exchange(ctx.app, {
      slug: merchant.slug,
      code,
      redirectUri: REDIRECT,
      clientId: a.clientId,
      clientSecret: a.clientSecret,
      codeVerifier: VERIFIER,
    });
    assert.equal(envelope.response.status, 400);
    assert.equal(errorCode(envelope), "INVALID_GRANT");
    // A refused request does not burn the code: without the verifier it is redeemed.
    const ok = await token(a, form);
    assert.equal(ok.response.status, 200, text(ok));
  });

  describe("authorization request errors", () => {
    let a: Awaited<ReturnType<typeof registerApp>>;
    let merchant: Awaited<ReturnType<typeof merchantWithStore>>;
    before(async () => {
      a = await registerApp(ctx.app, ["read_products", "read_orders"]);
      merchant = await merchantWithStore(ctx.app);
    });
    // Some cases leave out what the document requires (client_id, redirect_uri): untyped on purpose.
    const authorize = (query: Record<string, string>) =>
      merchant.client.GET("/api/v1/apps/authorize", {
        params: { query: offDocument(query) },
        querySerializer: formQuery,
      });
    const valid = () => ({
      client_id: a.clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "read_products",
      state: "st-9",
    });

    it("go back to the verified redirect URI with error, error_description, state and iss", async () => {
      const cases: Array<[string, Record<string, string | undefined>, string]> = [
        ["missing response_type", { response_type: undefined }, "invalid_request"],
        ["response_type=token", { response_type: "token" }, "unsupported_response_type"],
        ["missing scope", { scope: undefined }, "invalid_scope"],
        ["empty scope", { scope: "" }, "invalid_scope"],
        ["unknown scope", { scope: "read_everything" }, "invalid_scope"],
        ["scope the app is not registered for", { scope: "write_products" }, "invalid_scope"],
        ["plain PKCE", { code_challenge: "x".repeat(43), code_challenge_method: "plain" }, "invalid_request"],
        ["malformed parameter", { code_challenge: "x".repeat(200) }, "invalid_request"],
      ];
      for (const [name, change, expected] of cases) {
        const params: Record<string, string> = { ...valid() };
        for (const [k, v] of Object.entries(change)) {
          if (v === undefined) delete params[k];
          else params[k] = v;
        }
        const res = await authorize(params);
        assert.equal(res.response.status, 302, `${name}: ${res.response.status} ${text(res).slice(0, 200)}`);
        const location = new URL(String(res.response.headers.get("location")));
        assert.equal(`${location.origin}${location.pathname}`, REDIRECT, name);
        assert.equal(location.searchParams.get("error"), expected, name);
        assert.ok(location.searchParams.get("error_description"), name);
        assert.equal(location.searchParams.get("state"), "st-9", name);
        assert.equal(location.searchParams.get("iss"), ISSUER, name);
        assert.equal(location.searchParams.get("code"), null, name);
      }
      // And a good request still leads to the consent page.
      const page = await authorize(valid());
      assert.equal(page.response.status, 302);
      assert.match(String(page.response.headers.get("location")), /^\/oauth\/consent\?/);
    });

    it("never redirect to an unverified redirect URI", async () => {
      const cases: Array<[string, Record<string, string | undefined>]> = [
        ["unknown client, no scope", { client_id: "mpc_unknown", scope: undefined }],
        [
          "unregistered redirect, bad response_type",
          { redirect_uri: "https://evil.example.com/cb", response_type: "token" },
        ],
        ["missing redirect_uri", { redirect_uri: undefined, scope: undefined }],
        ["over-long client_id", { client_id: "x".repeat(100), response_type: undefined }],
      ];
      for (const [name, change] of cases) {
        const params: Record<string, string> = { ...valid() };
        for (const [k, v] of Object.entries(change)) {
          if (v === undefined) delete params[k];
          else params[k] = v;
        }
        const res = await authorize(params);
        assert.equal(res.response.status, 400, name);
        assert.equal(res.response.headers.get("location"), null, name);
        assert.match(String(res.response.headers.get("content-type")), /text\/html/, name);
      }
    });
  });

  describe("refresh with scope", () => {
    it("answers invalid_scope beyond the grant, leaving the refresh token unspent", async () => {
      const inst = await installedApp(
        ctx.app,
        ["read_products", "read_orders"],
        ["read_products", "read_orders", "write_products"],
      );
      for (const scope of ["read_products write_products", "manage_webhooks", "read_everything", ""]) {
        const res = await token(inst, {
          grant_type: "refresh_token",
          refresh_token: inst.tokens.refreshToken,
          scope,
        });
        assert.equal(res.response.status, 400, `scope "${scope}"`);
        assert.deepEqual(Object.keys(res.data ?? res.error!).sort(), ["error", "error_description"]);
        assert.equal(res.error!.error, "invalid_scope", `scope "${scope}"`);
      }
      const envelope = await apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
        body: {
          slug: inst.merchant.slug,
          refreshToken: inst.tokens.refreshToken,
          clientId: inst.clientId,
          clientSecret: inst.clientSecret,
          scope: "write_products",
        },
      });
      assert.equal(envelope.response.status, 400);
      assert.equal(errorCode(envelope), "INVALID_SCOPE");
      const ok = await token(inst, { grant_type: "refresh_token", refresh_token: inst.tokens.refreshToken });
      assert.equal(ok.response.status, 200, "the refused requests did not spend the refresh token");
      assert.equal(ok.data!.scope, "read_orders read_products");
    });

    it("narrows the new access token to a narrower set; the refresh token keeps the grant", async () => {
      const inst = await installedApp(ctx.app, ["read_products", "read_orders"]);
      const narrowed = await token(inst, {
        grant_type: "refresh_token",
        refresh_token: inst.tokens.refreshToken,
        scope: "read_products",
      });
      assert.equal(narrowed.response.status, 200, text(narrowed));
      assert.equal(narrowed.data!.scope, "read_products");
      const api = inst.bearer(narrowed.data!.access_token);
      assert.equal((await api.GET("/api/v1/apps/api/products")).response.status, 200);
      const orders = await api.GET("/api/v1/apps/api/orders");
      assert.equal(orders.response.status, 403, "the narrowed token no longer reads orders");
      assert.equal(errorCode(orders), "INSUFFICIENT_SCOPE");
      // The previous access token (of the whole grant) is untouched by narrowing.
      assert.equal((await inst.api.GET("/api/v1/apps/api/orders")).response.status, 200);

      // RFC 6749 section 6: the new refresh token's scope is the grant's, so it may ask again.
      const envelope = await apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
        body: {
          slug: inst.merchant.slug,
          refreshToken: narrowed.data!.refresh_token,
          clientId: inst.clientId,
          clientSecret: inst.clientSecret,
          scope: "read_orders",
        },
      });
      assert.equal(envelope.response.status, 200, text(envelope));
      assert.deepEqual(envelope.data!.data.scopes, ["read_orders"]);
      const ordersOnly = inst.bearer(envelope.data!.data.accessToken as string);
      assert.equal((await ordersOnly.GET("/api/v1/apps/api/orders")).response.status, 200);
      assert.equal((await ordersOnly.GET("/api/v1/apps/api/products")).response.status, 403);

      const whole = await token(inst, {
        grant_type: "refresh_token",
        refresh_token: envelope.data!.data.refreshToken,
      });
      assert.equal(whole.response.status, 200);
      assert.equal(whole.data!.scope, "read_orders read_products", "omitted: the grant's scopes");
    });

    it("answers an idempotent retry only when it asks for the same scopes", async () => {
      const inst = await installedApp(ctx.app, ["read_products", "read_orders"]);
      const refresh = (scope: string | undefined) =>
        apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
          body: {
            slug: inst.merchant.slug,
            refreshToken: inst.tokens.refreshToken,
            clientId: inst.clientId,
            clientSecret: inst.clientSecret,
            ...(scope ? { scope } : {}),
          },
          headers: { "idempotency-key": "retry-key-123" },
        });
      const first = await refresh("read_products");
      assert.equal(first.response.status, 200);
      const again = await refresh("read_products");
      assert.equal(again.response.status, 200);
      assert.equal(again.data!.data.accessToken, first.data!.data.accessToken);
      const other = await refresh(undefined);
      assert.equal(other.response.status, 400, "a different request is a reuse");
      assert.equal(errorCode(other), "INVALID_GRANT");
    });
  });

  it("documents that it is an OAuth 2.0 authorization server, not an OpenID provider", async () => {
    const doc = (await ctx.app.inject({ method: "GET", url: "/api/docs/openapi.json" })).json();
    const description = String(doc.paths["/.well-known/oauth-authorization-server"].get.description);
    assert.match(description, /OAuth 2\.0 authorization server, not an OpenID Connect provider/);
    assert.match(description, /algorithm: 'oauth2'/);
    const oidc = await ctx.app.inject({ method: "GET", url: "/.well-known/openid-configuration" });
    assert.equal(oidc.statusCode, 404);
  });
});

describe("OAuth corrections: a throttled token request", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ CREDENTIAL_MAX_FAILURES: "2" });
  });
  after(() => ctx.close());

  const token = (body: RequestBody<"/api/v1/oauth/token", "post">) =>
    apiClient(ctx.app).POST("/api/v1/oauth/token", { body, ...asForm });
  const revoke = (body: RequestBody<"/api/v1/oauth/revoke", "post">) =>
    apiClient(ctx.app).POST("/api/v1/oauth/revoke", { body, ...asForm });

  it("answers 429 with an RFC 6749 error body and Retry-After, not slow_down", async () => {
    const a = await registerApp(ctx.app, ["read_products"]);
    const wrong = { client_id: a.clientId, client_secret: "mpcs_wrong" };
    for (let i = 0; i < 2; i++) {
      const res = await token({
        grant_type: "refresh_token",
        refresh_token: "mprt_x",
        ...wrong,
      });
      assert.equal(res.response.status, 401);
      assert.equal(res.error!.error, "invalid_client");
    }
    const right = { client_id: a.clientId, client_secret: a.clientSecret };
    for (const [url, send] of [
      [
        "/api/v1/oauth/token",
        () => token({ grant_type: "refresh_token", refresh_token: "mprt_x", ...right }),
      ],
      ["/api/v1/oauth/revoke", () => revoke({ token: "mprt_x", ...right })],
    ] as const) {
      const res = await send();
      assert.equal(res.response.status, 429, url);
      assert.deepEqual(Object.keys(res.data ?? res.error!).sort(), ["error", "error_description"], url);
      assert.equal(res.error!.error, "temporarily_unavailable", url);
      assert.ok(Number(res.response.headers.get("retry-after")) >= 1, url);
      assert.equal(res.response.headers.get("cache-control"), "no-store", url);
    }
    // The envelope endpoints keep the platform's 429 RATE_LIMITED.
    const envelope = await exchange(ctx.app, {
      slug: "any-store",
      code: "mpac_x",
      redirectUri: REDIRECT,
      clientId: a.clientId,
      clientSecret: a.clientSecret,
    });
    assert.equal(envelope.response.status, 429);
    assert.equal(errorCode(envelope), "RATE_LIMITED");
    assert.ok(Number(envelope.response.headers.get("retry-after")) >= 1);
  });
});
