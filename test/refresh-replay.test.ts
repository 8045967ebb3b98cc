import assert from "node:assert/strict";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import * as openid from "openid-client";
import { AuthorizationCode } from "simple-oauth2";
import { consent, REDIRECT, registerApp } from "./apps-harness.ts";
import { createTestContext, merchantWithStore, type TestContext } from "./harness.ts";

/**
 * A proxy in front of the platform that lets the first refresh through and then drops its answer
 * (the connection is cut after the platform has answered), as a time-out or a crash before the
 * app saved the pair would: the platform spent the token, the app never saw the new pair.
 */
async function droppingProxy(upstream: string) {
  let drop = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const refresh = body.toString().includes("grant_type=refresh_token");
      const forward = httpRequest(
        `${upstream}${req.url}`,
        { method: req.method, headers: { ...req.headers, host: new URL(upstream).host } },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on("data", (c) => parts.push(c));
          answer.on("end", () => {
            if (refresh && drop > 0) {
              drop--;
              res.socket?.destroy(); // the platform answered; the app never hears it
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(parts));
          });
        },
      );
      forward.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    dropNextRefresh: () => {
      drop++;
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

/**
 * Issue 21, part 3: a refresh whose answer was lost never locks the app out. Stock OAuth clients
 * (openid-client, simple-oauth2) simply refresh again with the token they hold and get the same
 * pair; no Idempotency-Key, no special code.
 */
describe("a refresh that can never lock an app out, with stock OAuth clients", () => {
  let ctx: TestContext;
  let proxy: Awaited<ReturnType<typeof droppingProxy>>;
  let issuer: string;
  before(async () => {
    ctx = await createTestContext();
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    const origin = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    proxy = await droppingProxy(origin);
    issuer = origin;
  });
  after(async () => {
    await proxy.close();
    await ctx.close();
  });

  /** An installed app's client credentials and first token pair, through the standard endpoint. */
  async function install() {
    const app = await registerApp(ctx.app, ["read_products"]);
    const merchant = await merchantWithStore(ctx.app);
    const { code } = await consent(merchant, app.clientId, ["read_products"]);
    const res = await fetch(`${issuer}/api/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: app.clientId,
        client_secret: app.clientSecret,
      }),
    });
    const tokens = (await res.json()) as { access_token: string; refresh_token: string };
    assert.equal(res.status, 200, JSON.stringify(tokens));
    return { ...app, tokens };
  }

  const products = (token: string) =>
    fetch(`${issuer}/api/v1/apps/api/products`, { headers: { authorization: `Bearer ${token}` } }).then(
      (r) => r.status,
    );

  it("openid-client: the refresh's answer is lost, the app refreshes again and gets the same pair", async () => {
    const app = await install();
    // The client talks to the proxy; the server's metadata names the platform itself as issuer.
    const config = new openid.Configuration(
      {
        issuer,
        token_endpoint: `${proxy.url}/api/v1/oauth/token`,
      },
      app.clientId,
      app.clientSecret,
    );
    openid.allowInsecureRequests(config);
    proxy.dropNextRefresh();
    await assert.rejects(openid.refreshTokenGrant(config, app.tokens.refresh_token));
    const pair = await openid.refreshTokenGrant(config, app.tokens.refresh_token);
    const again = await openid.refreshTokenGrant(config, app.tokens.refresh_token);
    assert.equal(again.access_token, pair.access_token, "the same pair, not a second one");
    assert.equal(await products(pair.access_token), 200);
    // In use now: the old token is reuse, and the family goes.
    await assert.rejects(openid.refreshTokenGrant(config, app.tokens.refresh_token), (e: unknown) => {
      return e instanceof openid.ResponseBodyError && e.error === "invalid_grant";
    });
    assert.equal(await products(pair.access_token), 401);
  });

  it("simple-oauth2: the refresh's answer is lost, the app refreshes again and gets the same pair", async () => {
    const app = await install();
    const client = new AuthorizationCode({
      client: { id: app.clientId, secret: app.clientSecret },
      auth: {
        tokenHost: proxy.url,
        tokenPath: "/api/v1/oauth/token",
        authorizePath: "/api/v1/apps/authorize",
      },
      options: { authorizationMethod: "body" },
    });
    const stored = client.createToken({ ...app.tokens, token_type: "Bearer", expires_in: 3600 });
    proxy.dropNextRefresh();
    await assert.rejects(stored.refresh());
    const refreshed = await stored.refresh();
    assert.equal(await products(refreshed.token.access_token as string), 200);
    assert.notEqual(refreshed.token.refresh_token, app.tokens.refresh_token);
    // The new refresh token carries on as usual.
    const next = await refreshed.refresh();
    assert.equal(await products(next.token.access_token as string), 200);
  });
});
