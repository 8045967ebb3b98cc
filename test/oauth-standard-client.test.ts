import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, it } from "node:test";
import * as oauth from "oauth4webapi";
import { consent, REDIRECT, registerApp } from "./apps-harness.ts";
import { createTestContext, merchantWithStore, type TestContext } from "./harness.ts";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe("an off-the-shelf OAuth 2.0 client (oauth4webapi) against the standard endpoints", () => {
  let ctx: TestContext;
  let issuer: URL;
  before(async () => {
    const port = await freePort();
    issuer = new URL(`http://127.0.0.1:${port}`);
    ctx = await createTestContext({ PUBLIC_BASE_URL: issuer.origin });
    await ctx.app.listen({ port, host: "127.0.0.1" });
  });
  after(() => ctx.close());

  it("discovers the server, completes the code flow with PKCE, refreshes and revokes", async () => {
    const insecure = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { ...insecure, algorithm: "oauth2" }),
    );
    assert.equal(as.token_endpoint, `${issuer.origin}/api/v1/oauth/token`);
    assert.deepEqual(as.code_challenge_methods_supported, ["S256"]);

    const registered = await registerApp(ctx.app, ["read_products", "read_orders"]);
    const client: oauth.Client = { client_id: registered.clientId };
    const clientAuth = oauth.ClientSecretBasic(registered.clientSecret);
    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const state = oauth.generateRandomState();

    // The browser leg: the authorization URL names the consent page; the merchant approves.
    const authorizationUrl = new URL(as.authorization_endpoint!);
    authorizationUrl.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "read_products read_orders",
      state,
      code_challenge: challenge,
      code_challenge_method: "S256",
    }).toString();
    const merchant = await merchantWithStore(ctx.app);
    const page = await fetch(authorizationUrl, {
      headers: { cookie: merchant.client.jar.cookie! },
      redirect: "manual",
    });
    assert.equal(page.status, 302);
    const consentPage = new URL(page.headers.get("location")!, authorizationUrl);
    const asked = await fetch(
      new URL(`/api/v1/dashboard/oauth/consent${consentPage.search}`, authorizationUrl),
      {
        headers: { cookie: merchant.client.jar.cookie! },
      },
    );
    assert.equal(((await asked.json()) as { data: { app: { name: string } } }).data.app.name, "Test App");
    const { url: callback } = await consent(merchant, client.client_id, ["read_products", "read_orders"], {
      state,
      codeChallenge: challenge,
      codeChallengeMethod: "S256",
    });

    // The app's server leg, all done by the library.
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      REDIRECT,
      verifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    assert.equal(tokens.token_type, "bearer");
    assert.equal(tokens.expires_in, 3600);
    assert.equal(tokens.scope, "read_orders read_products");
    assert.match(tokens.access_token, /^mpat_/);

    const products = await fetch(new URL("/api/v1/apps/api/products", issuer), {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.equal(products.status, 200);
    assert.equal(((await products.json()) as { success: boolean }).success, true);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure),
    );
    assert.notEqual(refreshed.access_token, tokens.access_token);

    // The answer was lost and the client simply refreshes again with the token it has: while the
    // new pair is unused it gets that same pair (nothing new is issued).
    const again = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure),
    );
    assert.equal(again.access_token, refreshed.access_token);
    assert.equal(again.refresh_token, refreshed.refresh_token);
    const used = await fetch(`${issuer.origin}/api/v1/apps/api/products`, {
      headers: { authorization: `Bearer ${again.access_token}` },
    });
    assert.equal(used.status, 200);
    // Once the new pair is in use, the spent token is reuse: the library surfaces invalid_grant.
    await assert.rejects(
      async () =>
        oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure),
        ),
      (error: unknown) => error instanceof oauth.ResponseBodyError && error.error === "invalid_grant",
    );

    // Revocation (RFC 7009) of a fresh family's refresh token ends its access token too.
    const second = await consent(merchant, client.client_id, ["read_products"]);
    const t2 = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        oauth.validateAuthResponse(as, client, second.url, "st-123"),
        REDIRECT,
        oauth.nopkce,
        insecure,
      ),
    );
    const revoke = await oauth.revocationRequest(as, client, clientAuth, t2.refresh_token!, insecure);
    await oauth.processRevocationResponse(revoke);
    const after = await fetch(new URL("/api/v1/apps/api/products", issuer), {
      headers: { authorization: `Bearer ${t2.access_token}` },
    });
    assert.equal(after.status, 401);

    // Wrong client secret: RFC 6749 invalid_client with 401.
    const bad = await fetch(as.token_endpoint!, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: "mprt_x",
        client_id: client.client_id,
        client_secret: "nope",
      }),
    });
    assert.equal(bad.status, 401);
    assert.equal(((await bad.json()) as { error: string }).error, "invalid_client");
  });
});
