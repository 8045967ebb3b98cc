import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import pg from "pg";
import { createRetention } from "../src/modules/retention/retention-repo.ts";
import { installedApp } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import { apiClient, createTestContext, TEST_DATABASE_URL, type TestContext } from "./harness.ts";
import { startReceiver } from "./receiver.ts";
import { createWebhookContext, waitUntil } from "./webhooks-harness.ts";

const DAY = 24 * 3600 * 1000;

async function count(ctx: TestContext, table: string, where = "true"): Promise<number> {
  const { sql } = await import("kysely");
  const { rows } = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE ${sql.raw(where)}`.execute(ctx.platform.db);
  return rows[0]!.n;
}

describe("retention: the delivery log and the outbox", () => {
  let ctx: Awaited<ReturnType<typeof createWebhookContext>>;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    // Retries an hour apart: a failing delivery stays pending after its first attempt. A lease of a
    // minute: a machine too busy to record an attempt within the harness's 5 s would otherwise see
    // the delivery taken over and sent again, and count attempts this test does not expect.
    ctx = await createWebhookContext({ WEBHOOK_RETRY_BASE_MS: "3600000", WEBHOOK_LEASE_MS: "60000" });
    rx = await startReceiver((r, res) => {
      res.statusCode = r.path === "/fail" ? 500 : 200;
      res.end("ok");
    });
  });
  after(async () => {
    await rx.close();
    await ctx.close();
  });

  it("deletes finished deliveries and their attempts after WEBHOOK_LOG_RETENTION_DAYS, events after EVENT_RETENTION_DAYS, in batches; keeps pending deliveries and their events", async () => {
    const inst = await installedApp(ctx.app, ["read_products", "write_products", "manage_webhooks"]);
    for (const path of ["/ok", "/fail"])
      await inst.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "product.created",
          targetUrl: `${rx.url}${path}`,
        },
      });
    for (let i = 0; i < 5; i++) {
      const res = await inst.api.POST("/api/v1/apps/api/products", {
        body: flat({ title: `P${i}`, price: "1.00" }),
      });
      assert.equal(res.response.status, 201);
    }
    await waitUntil(
      async () =>
        (await count(ctx, "webhook_attempts")) === 10 &&
        (await count(ctx, "webhook_deliveries", "status = 'delivered'")) === 5,
      120_000,
      "ten attempts recorded, five of them delivered",
    );
    await ctx.worker.stop();
    assert.equal(await count(ctx, "webhook_deliveries", "status = 'delivered'"), 5);
    assert.equal(await count(ctx, "webhook_deliveries", "status = 'pending'"), 5);
    const events = await count(ctx, "events");
    assert.ok(events >= 5);

    const retention = createRetention(ctx.platform.db, {
      webhookLogDays: 30,
      credentialGraceSeconds: 86_400,
      listenSessionIdleSeconds: 600,
      eventDays: 30,
      batchSize: 2,
    });
    ctx.clock.advance(29 * DAY);
    const early = await retention.run(ctx.clock.now());
    assert.equal(early?.deliveries, 0, "nothing is deleted before 30 days");
    assert.equal(early?.events, 0);
    assert.equal(await count(ctx, "webhook_deliveries"), 10);

    ctx.clock.advance(2 * DAY);
    const late = await retention.run(ctx.clock.now());
    assert.equal(late?.deliveries, 5, "the five delivered ones, two per batch");
    assert.equal(late?.events, events - 5, "every event but the five with a pending delivery");
    assert.equal(await count(ctx, "webhook_deliveries", "status = 'delivered'"), 0);
    assert.equal(await count(ctx, "webhook_deliveries", "status = 'pending'"), 5, "pending deliveries stay");
    assert.equal(await count(ctx, "webhook_attempts"), 5, "the attempts of pending deliveries stay");
    assert.equal(await count(ctx, "events"), 5, "an event stays while a delivery of it is pending");
    // Once those deliveries end, their events go too.
    await sql`UPDATE webhook_deliveries SET status = 'failed', completed_at = ${ctx.clock.now()}
               WHERE status = 'pending'`.execute(ctx.platform.db);
    const last = await retention.run(ctx.clock.now());
    assert.equal(last?.events, 5);
    assert.equal(await count(ctx, "events"), 0);
  });
});

describe("retention: spent credentials", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({}, { frozenClock: true });
  });
  after(async () => ctx.close());

  it("deletes expired codes and tokens and empty families after the grace; revoked families a grace after revocation; live ones stay", async () => {
    const retention = createRetention(ctx.platform.db, {
      webhookLogDays: 30,
      credentialGraceSeconds: 86_400,
      listenSessionIdleSeconds: 600,
      eventDays: 30,
    });
    const older = await installedApp(ctx.app, ["read_products"]);
    // Revoked by reuse detection: the spent refresh token presented again.
    const refresh = (token: string) =>
      apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
        body: {
          slug: older.merchant.slug,
          refreshToken: token,
          clientId: older.clientId,
          clientSecret: older.clientSecret,
        },
      });
    const spentOnce = await refresh(older.tokens.refreshToken);
    assert.equal(spentOnce.response.status, 200);
    // The new pair in use: presenting the spent token again is reuse, no longer a replay.
    assert.equal(
      (await older.bearer(spentOnce.data!.data.accessToken).GET("/api/v1/apps/api/products")).response.status,
      200,
    );
    assert.equal((await refresh(older.tokens.refreshToken)).response.status, 400);
    const revokedGrants = await count(ctx, "token_grants", "revoked_at IS NOT NULL");
    assert.equal(revokedGrants, 1);
    const live = await installedApp(ctx.app, ["read_products"]);
    const before = {
      codes: await count(ctx, "authorization_codes"),
      access: await count(ctx, "access_tokens"),
      refresh: await count(ctx, "refresh_tokens"),
      grants: await count(ctx, "token_grants"),
    };
    assert.deepEqual(before, { codes: 2, access: 3, refresh: 3, grants: 2 });

    // Within the grace: the revoked family and the expired code are still there.
    ctx.clock.advance(12 * 3600 * 1000);
    const first = await retention.run(ctx.clock.now());
    assert.deepEqual(
      { codes: first?.authorizationCodes, access: first?.accessTokens, refresh: first?.refreshTokens },
      { codes: 0, access: 0, refresh: 0 },
    );

    // A day and a bit: codes (10 minutes) and access tokens (1 hour) are past expiry + grace; the
    // revoked family is a grace past its revocation: its refresh tokens and then its grant go.
    ctx.clock.advance(14 * 3600 * 1000);
    const second = await retention.run(ctx.clock.now());
    assert.equal(second?.authorizationCodes, 2);
    assert.equal(second?.accessTokens, 3);
    assert.equal(second?.refreshTokens, 2, "the revoked family's two refresh tokens");
    assert.equal(second?.tokenGrants, 1);
    assert.equal(await count(ctx, "token_grants", "revoked_at IS NOT NULL"), 0);
    // The live family keeps its refresh token (30 days) and works.
    assert.equal(await count(ctx, "refresh_tokens"), 1);
    const renewed = await apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
      body: {
        slug: live.merchant.slug,
        refreshToken: live.tokens.refreshToken,
        clientId: live.clientId,
        clientSecret: live.clientSecret,
      },
    });
    assert.equal(renewed.response.status, 200);

    // 30 days + grace after that refresh: every token of the live family has expired; the family goes.
    ctx.clock.advance(32 * DAY);
    const third = await retention.run(ctx.clock.now());
    assert.equal(third?.refreshTokens, 2);
    assert.equal(third?.tokenGrants, 1);
    for (const table of ["authorization_codes", "access_tokens", "refresh_tokens", "token_grants"])
      assert.equal(await count(ctx, table), 0, table);
  });

  it("one worker at a time: while another holds the retention lock, a run steps aside", {
    skip: TEST_DATABASE_URL ? undefined : "needs TEST_DATABASE_URL (a second session)",
  }, async () => {
    const retention = createRetention(ctx.platform.db, {
      webhookLogDays: 30,
      credentialGraceSeconds: 0,
      listenSessionIdleSeconds: 600,
      eventDays: 30,
    });
    await installedApp(ctx.app, ["read_products"]);
    ctx.clock.advance(2 * DAY);
    const other = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await other.connect();
    try {
      await other.query("BEGIN");
      // The schema named, not current_schema(): the URL may carry its own `options` (CI's does).
      await other.query("SELECT pg_advisory_xact_lock(7231020, hashtext($1))", [ctx.schema]);
      assert.equal(await retention.run(ctx.clock.now()), null, "the run steps aside");
      assert.ok((await count(ctx, "authorization_codes")) > 0, "and deleted nothing");
      await other.query("COMMIT");
      const counts = await retention.run(ctx.clock.now());
      assert.ok(counts && counts.authorizationCodes > 0);
      assert.equal(await count(ctx, "authorization_codes"), 0);
    } finally {
      await other.end();
    }
  });
});
