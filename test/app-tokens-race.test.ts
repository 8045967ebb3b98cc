import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { consent, exchange, installedApp, REDIRECT, registerApp } from "./apps-harness.ts";
import {
  answer,
  apiClient,
  asForm,
  createTestContext,
  errorCode,
  merchantWithStore,
  type TestContext,
  text,
} from "./harness.ts";

type Installed = Awaited<ReturnType<typeof installedApp>>;

describe("token rules under concurrency, and the lost-response retry", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  /** Refreshes as the installed app would, with an optional Idempotency-Key. */
  const refresher = (inst: Installed) => (token: string, key?: string) =>
    apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
      body: {
        slug: inst.merchant.slug,
        refreshToken: token,
        clientId: inst.clientId,
        clientSecret: inst.clientSecret,
      },
      headers: key ? { "idempotency-key": key } : {},
    });

  /** Refresh tokens of the family the given refresh token belongs to. */
  const tokenCounts = async (refreshToken: string) => {
    const hash = createHash("sha256").update(refreshToken).digest("hex");
    return ctx.platform.db
      .selectFrom("refresh_tokens as r")
      .innerJoin("refresh_tokens as f", (j) =>
        j.onRef("f.store_id", "=", "r.store_id").onRef("f.grant_id", "=", "r.grant_id"),
      )
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("r.token_hash", "=", hash)
      .execute()
      .then((rows) => rows.map((row) => ({ n: Number(row.n) })) as [{ n: number }]);
  };

  /** The SQL statements the database receives while `run` runs (BEGIN and COMMIT included). */
  const countStatements = async (run: () => Promise<unknown>): Promise<string[]> => {
    const seen: string[] = [];
    const database = ctx.platform.database;
    if (database.kind === "pglite") {
      const pglite = database.pglite;
      const query = pglite.query.bind(pglite);
      pglite.query = ((text: string, ...rest: unknown[]) => {
        seen.push(text);
        return (query as (...a: unknown[]) => unknown)(text, ...rest);
      }) as typeof pglite.query;
      try {
        await run();
      } finally {
        delete (pglite as { query?: unknown }).query;
      }
    } else {
      const query = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        seen.push(typeof args[0] === "string" ? args[0] : String((args[0] as { text?: string }).text));
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      try {
        await run();
      } finally {
        pg.Client.prototype.query = query;
      }
    }
    return seen;
  };

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
    const ok = results.filter((r) => r.response.status === 200);
    assert.equal(ok.length, 1);
    for (const r of results.filter((r) => r.response.status !== 200)) {
      assert.equal(r.response.status, 400);
      assert.equal(errorCode(r), "INVALID_GRANT");
    }
    // The losers were second redemptions: the winner's tokens are revoked too (RFC 6749 4.1.2).
    const api = apiClient(ctx.app, { headers: { authorization: `Bearer ${ok[0]!.data!.data.accessToken}` } });
    assert.equal((await api.GET("/api/v1/apps/api/products")).response.status, 401);
  });

  it("20 parallel refreshes of one token, no Idempotency-Key: all receive one identical pair, and only one pair exists", async () => {
    const inst = await installedApp(ctx.app, ["read_products"]);
    const refresh = refresher(inst);
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(inst.tokens.refreshToken)));
    assert.deepEqual(
      results.map((r) => r.response.status),
      Array(20).fill(200),
      text(results.find((r) => r.response.status !== 200) ?? results[0]!),
    );
    for (const r of results) assert.deepEqual(r.data!.data, results[0]!.data!.data);
    const [{ n }] = await tokenCounts(inst.tokens.refreshToken);
    assert.equal(n, 2, "one successor pair was issued, no more");
    assert.equal(
      (await inst.bearer(results[0]!.data!.data.accessToken).GET("/api/v1/apps/api/products")).response
        .status,
      200,
    );
    // The pair is in use now: presenting the spent token again is reuse (RFC 9700).
    const reuse = await refresh(inst.tokens.refreshToken);
    assert.equal(reuse.response.status, 400);
    assert.equal(errorCode(reuse), "INVALID_GRANT");
    assert.equal(
      (await inst.bearer(results[0]!.data!.data.accessToken).GET("/api/v1/apps/api/products")).response
        .status,
      401,
    );
    assert.equal(
      (await refresh(results[0]!.data!.data.refreshToken)).response.status,
      400,
      "the family is revoked",
    );
  });

  it("20 parallel presentations with one Idempotency-Key: all get the same pair, and only one pair exists", async () => {
    const inst = await installedApp(ctx.app, ["read_products"]);
    const refresh = refresher(inst);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => refresh(inst.tokens.refreshToken, "key-parallel-1")),
    );
    assert.deepEqual(
      results.map((r) => r.response.status),
      Array(20).fill(200),
    );
    for (const r of results) assert.deepEqual(r.data!.data, results[0]!.data!.data);
    const [{ n }] = await tokenCounts(inst.tokens.refreshToken);
    assert.equal(n, 2, "the original refresh token and its one successor");
    assert.equal(
      (await inst.bearer(results[0]!.data!.data.accessToken).GET("/api/v1/apps/api/products")).response
        .status,
      200,
    );
    assert.equal(
      (await refresh(results[0]!.data!.data.refreshToken)).response.status,
      200,
      "the family is intact",
    );
  });

  it("a refresh racing a revocation of its family never leaves a usable token", async () => {
    for (let round = 0; round < 5; round++) {
      const inst = await installedApp(ctx.app, ["read_products"]);
      const revoke = apiClient(ctx.app).POST("/api/v1/oauth/revoke", {
        body: { token: inst.tokens.refreshToken, client_id: inst.clientId, client_secret: inst.clientSecret },
        ...asForm,
      });
      const [refreshed, revoked] = await Promise.all([refresher(inst)(inst.tokens.refreshToken), revoke]);
      assert.equal(revoked.response.status, 200);
      if (refreshed.response.status === 200) {
        // It committed first; the revocation then took its tokens too.
        const api = inst.bearer(refreshed.data!.data.accessToken);
        assert.equal((await api.GET("/api/v1/apps/api/products")).response.status, 401);
        assert.equal((await refresher(inst)(refreshed.data!.data.refreshToken)).response.status, 400);
      } else {
        assert.equal(errorCode(refreshed), "INVALID_GRANT");
      }
      assert.equal((await inst.api.GET("/api/v1/apps/api/products")).response.status, 401);
    }
  });

  it("a wrong secret, another client or a wrong slug spends nothing", async () => {
    const inst = await installedApp(ctx.app, ["read_products"]);
    const other = await registerApp(ctx.app, ["read_products"]);
    const body = {
      slug: inst.merchant.slug,
      refreshToken: inst.tokens.refreshToken,
      clientId: inst.clientId,
      clientSecret: inst.clientSecret,
    };
    const post = (change: Record<string, string>) =>
      apiClient(ctx.app).POST("/api/v1/apps/token/refresh", { body: { ...body, ...change } });
    const wrongSecret = await post({ clientSecret: other.clientSecret });
    assert.equal(wrongSecret.response.status, 401);
    assert.equal(errorCode(wrongSecret), "INVALID_CLIENT");
    const unknown = await post({ clientId: `mpc_${"x".repeat(24)}` });
    assert.deepEqual(answer(unknown), answer(wrongSecret), "an unknown client answers like a wrong secret");
    const otherClient = await post({ clientId: other.clientId, clientSecret: other.clientSecret });
    assert.equal(otherClient.response.status, 400);
    assert.equal(otherClient.error!.error.message, "The refresh token was not issued to this client.");
    const wrongSlug = await post({ slug: other.dev.slug });
    assert.equal(wrongSlug.response.status, 400);
    assert.equal(wrongSlug.error!.error.message, "The store slug does not match the token.");
    const ok = await post({});
    assert.equal(ok.response.status, 200, "none of the refused requests spent the token");
    assert.equal(
      (await inst.bearer(ok.data!.data.accessToken).GET("/api/v1/apps/api/products")).response.status,
      200,
    );
  });

  it("a successful refresh is one database statement", async () => {
    const inst = await installedApp(ctx.app, ["read_products"]);
    const statements = await countStatements(() =>
      refresher(inst)(inst.tokens.refreshToken, "key-count-1").then((r) =>
        assert.equal(r.response.status, 200),
      ),
    );
    assert.equal(statements.length, 1, statements.join("\n"));
  });

  it("answers a retry after a lost refresh response with the same pair, once, while it is unused", async () => {
    const inst = await installedApp(ctx.app, ["read_products"]);
    const refresh = refresher(inst);
    const first = await refresh(inst.tokens.refreshToken, "key-00000001");
    assert.equal(first.response.status, 200);
    // The response was "lost": the app retries with the same token and key.
    const retry = await refresh(inst.tokens.refreshToken, "key-00000001");
    assert.equal(retry.response.status, 200);
    assert.deepEqual(retry.data!.data, first.data!.data, "the very same pair, not a second one");
    const api = apiClient(ctx.app, { headers: { authorization: `Bearer ${retry.data!.data.accessToken}` } });
    assert.equal((await api.GET("/api/v1/apps/api/products")).response.status, 200);
    // Once the new pair has been used, the retry is no longer honoured and counts as reuse.
    const late = await refresh(inst.tokens.refreshToken, "key-00000001");
    assert.equal(late.response.status, 400);
    assert.equal(
      (await api.GET("/api/v1/apps/api/products")).response.status,
      401,
      "reuse revoked the family",
    );
  });

  it("a replay needs no key (another key or none gets the same pair); after REFRESH_REPLAY_SECONDS, or once the new refresh token was used, it is reuse", async () => {
    const inst = await installedApp(ctx.app, ["read_products"]);
    const refresh = refresher(inst);
    const first = await refresh(inst.tokens.refreshToken, "key-aaaaaaaa");
    const otherKey = await refresh(inst.tokens.refreshToken, "key-bbbbbbbb");
    assert.equal(otherKey.response.status, 200);
    assert.deepEqual(otherKey.data!.data, first.data!.data);
    assert.deepEqual((await refresh(inst.tokens.refreshToken)).data!.data, first.data!.data);
    // The app refreshes on with the new refresh token: the old one is then plain reuse.
    const next = await refresh(first.data!.data.refreshToken);
    assert.equal(next.response.status, 200);
    assert.equal((await refresh(inst.tokens.refreshToken)).response.status, 400);
    assert.equal((await refresh(next.data!.data.refreshToken)).response.status, 400, "family revoked");

    const inst2 = await installedApp(ctx.app, ["read_products"]);
    const body2 = {
      slug: inst2.merchant.slug,
      refreshToken: inst2.tokens.refreshToken,
      clientId: inst2.clientId,
      clientSecret: inst2.clientSecret,
    };
    const ok = await apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
      body: body2,
      headers: {
        "idempotency-key": "key-cccccccc",
      },
    });
    assert.equal(ok.response.status, 200);
    ctx.clock.advance(601_000); // REFRESH_REPLAY_SECONDS (600)
    const tooLate = await apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
      body: body2,
      headers: {
        "idempotency-key": "key-cccccccc",
      },
    });
    assert.equal(tooLate.response.status, 400);
  });

  it("expires refresh tokens after REFRESH_TOKEN_TTL_SECONDS", async () => {
    const inst = await installedApp(ctx.app, ["read_products"]);
    ctx.clock.advance(30 * 24 * 3600 * 1000 + 1000);
    const res = await apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
      body: {
        slug: inst.merchant.slug,
        refreshToken: inst.tokens.refreshToken,
        clientId: inst.clientId,
        clientSecret: inst.clientSecret,
      },
    });
    assert.equal(res.response.status, 400);
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
