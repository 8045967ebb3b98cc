import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { consent, exchange, installedApp, REDIRECT, registerApp } from "./apps-harness.ts";
import { Client, createTestContext, errorCode, merchantWithStore, type TestContext } from "./harness.ts";

type Installed = Awaited<ReturnType<typeof installedApp>>;

describe("token rules under concurrency, and the lost-response retry", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  /** Refreshes as the installed app would, with an optional Idempotency-Key. */
  const refresher = (inst: Installed) => (token: string, key?: string) =>
    new Client(ctx.app).post(
      "/api/v1/apps/token/refresh",
      {
        slug: inst.merchant.slug,
        refreshToken: token,
        clientId: inst.clientId,
        clientSecret: inst.clientSecret,
      },
      key ? { "idempotency-key": key } : {},
    );

  it("20 parallel redemptions of one code: exactly one succeeds", async () => {
    const a = await registerApp(ctx.app, ["read_products"]);
    const merchant = await merchantWithStore(ctx.app);
    const { code } = await consent(merchant, a.clientId, ["read_products"]);
    const body = {
      slug: merchant.slug,
      code,
      redirectUri: REDIRECT,
      clientId: a.clientId,
      clientSecret: a.clientSecret,
    };
    const results = await Promise.all(Array.from({ length: 20 }, () => exchange(ctx.app, body)));
    const ok = results.filter((r) => r.status === 200);
    assert.equal(ok.length, 1);
    for (const r of results.filter((r) => r.status !== 200)) {
      assert.equal(r.status, 400);
      assert.equal(errorCode(r), "INVALID_GRANT");
    }
    // The losers were second redemptions: the winner's tokens are revoked too (RFC 6749 4.1.2).
    const api = new Client(ctx.app, { authorization: `Bearer ${ok[0]!.data.accessToken}` });
    assert.equal((await api.get("/api/v1/apps/api/products")).status, 401);
  });

  it("10 parallel refreshes of one token: exactly one succeeds", async () => {
    const inst = await installedApp(ctx.app, ["read_products"]);
    const body = {
      slug: inst.merchant.slug,
      refreshToken: inst.tokens.refreshToken,
      clientId: inst.clientId,
      clientSecret: inst.clientSecret,
    };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => new Client(ctx.app).post("/api/v1/apps/token/refresh", body)),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 1);
    assert.equal(results.filter((r) => r.status === 400 && errorCode(r) === "INVALID_GRANT").length, 9);
  });

  it("answers a retry after a lost refresh response with the same pair, once, while it is unused", async () => {
    const inst = await installedApp(ctx.app, ["read_products"]);
    const refresh = refresher(inst);
    const first = await refresh(inst.tokens.refreshToken, "key-00000001");
    assert.equal(first.status, 200);
    // The response was "lost": the app retries with the same token and key.
    const retry = await refresh(inst.tokens.refreshToken, "key-00000001");
    assert.equal(retry.status, 200);
    assert.deepEqual(retry.data, first.data, "the very same pair, not a second one");
    const api = new Client(ctx.app, { authorization: `Bearer ${retry.data.accessToken}` });
    assert.equal((await api.get("/api/v1/apps/api/products")).status, 200);
    // Once the new pair has been used, the retry is no longer honoured and counts as reuse.
    const late = await refresh(inst.tokens.refreshToken, "key-00000001");
    assert.equal(late.status, 400);
    assert.equal((await api.get("/api/v1/apps/api/products")).status, 401, "reuse revoked the family");
  });

  it("treats a retry with another key, or after the window, as reuse", async () => {
    const inst = await installedApp(ctx.app, ["read_products"]);
    const refresh = refresher(inst);
    const first = await refresh(inst.tokens.refreshToken, "key-aaaaaaaa");
    assert.equal((await refresh(inst.tokens.refreshToken, "key-bbbbbbbb")).status, 400);
    assert.equal((await refresh(first.data.refreshToken)).status, 400, "family revoked");

    const inst2 = await installedApp(ctx.app, ["read_products"]);
    const body2 = {
      slug: inst2.merchant.slug,
      refreshToken: inst2.tokens.refreshToken,
      clientId: inst2.clientId,
      clientSecret: inst2.clientSecret,
    };
    const ok = await new Client(ctx.app).post("/api/v1/apps/token/refresh", body2, {
      "idempotency-key": "key-cccccccc",
    });
    assert.equal(ok.status, 200);
    ctx.clock.advance(121_000);
    const tooLate = await new Client(ctx.app).post("/api/v1/apps/token/refresh", body2, {
      "idempotency-key": "key-cccccccc",
    });
    assert.equal(tooLate.status, 400);
  });

  it("expires refresh tokens after REFRESH_TOKEN_TTL_SECONDS", async () => {
    const inst = await installedApp(ctx.app, ["read_products"]);
    ctx.clock.advance(30 * 24 * 3600 * 1000 + 1000);
    const res = await new Client(ctx.app).post("/api/v1/apps/token/refresh", {
      slug: inst.merchant.slug,
      refreshToken: inst.tokens.refreshToken,
      clientId: inst.clientId,
      clientSecret: inst.clientSecret,
    });
    assert.equal(res.status, 400);
    assert.equal(errorCode(res), "INVALID_GRANT");
  });

  it("stores no usable credential: only hashes of secrets, codes and tokens", async () => {
    const inst = await installedApp(ctx.app, ["read_products"]);
    const dump = JSON.stringify(
      await Promise.all(
        ["apps", "authorization_codes", "access_tokens", "refresh_tokens", "token_grants", "sessions"].map(
          (t) =>
            ctx.platform.db
              .selectFrom(t as "apps")
              .selectAll()
              .execute(),
        ),
      ),
    );
    for (const secret of [inst.clientSecret, inst.tokens.accessToken, inst.tokens.refreshToken]) {
      assert.ok(!dump.includes(secret), "a credential is stored in clear");
      assert.ok(!dump.includes(secret.slice(5)), "a credential body is stored in clear");
    }
    assert.ok(dump.includes(inst.clientId), "sanity: the dump holds the app");
  });
});
