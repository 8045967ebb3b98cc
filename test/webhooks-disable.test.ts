import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import {
  createAdminClient,
  disabledWebhooks,
  enableWebhook,
  PlatformError,
  recoverWebhook,
} from "@merchant-platform/sdk";
import { installedApp } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import { type EventBody, type Scope, text } from "./harness.ts";
import { startReceiver } from "./receiver.ts";
import { createWebhookContext, waitUntil } from "./webhooks-harness.ts";

/**
 * Issue 19, part 5: endpoints are paused, never silently dropped. The disable window is the
 * default 5 days, crossed with the injected clock (access tokens live 10 days here, so the app's
 * token outlives the jump). Real HTTPS receivers; 2 attempts 50 ms apart.
 */
const SCOPES: Scope[] = ["read_products", "write_products", "manage_webhooks"];
const DAY_MS = 24 * 3600 * 1000;

describe("webhooks: endpoints are paused, never silently dropped", () => {
  let ctx: Awaited<ReturnType<typeof createWebhookContext>>;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  /** Status per path; 200 when not listed. */
  const answers = new Map<string, number | { status: number; headers: Record<string, string> }>();
  before(async () => {
    ctx = await createWebhookContext({
      WEBHOOK_MAX_ATTEMPTS: "2",
      WEBHOOK_RETRY_BASE_MS: "50",
      ACCESS_TOKEN_TTL_SECONDS: String(10 * 24 * 3600),
    });
    rx = await startReceiver((r, res) => {
      const answer = answers.get(r.path) ?? 200;
      if (typeof answer === "number") res.writeHead(answer).end();
      else res.writeHead(answer.status, answer.headers).end();
    });
  });
  after(async () => {
    await rx.close();
    await ctx.close();
  });

  const at = (path: string) => rx.received.filter((r) => r.path === path);

  async function setup(path: string) {
    const inst = await installedApp(ctx.app, SCOPES);
    const sub = await inst.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "product.created",
        targetUrl: `${rx.url}${path}`,
      },
    });
    const ops = await inst.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "webhook.disabled",
        targetUrl: `${rx.url}${path}-ops`,
      },
    });
    assert.equal(sub.response.status, 201);
    assert.equal(ops.response.status, 201, "webhook.disabled needs no scope");
    const product = (title: string) =>
      inst.merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: inst.merchant.slug } },
        body: flat({ title, price: "1" }),
      });
    const deliveries = () =>
      ctx.platform.db
        .selectFrom("webhook_deliveries")
        .selectAll()
        .where("subscription_id", "=", sub.data!.data.id)
        .orderBy("created_at")
        .execute();
    const listed = async () =>
      (await inst.api.GET("/api/v1/apps/api/webhooks")).data!.data.find((s) => s.id === sub.data!.data.id)!;
    const disabledEvents = () =>
      ctx.platform.db
        .selectFrom("events")
        .selectAll()
        .where("topic", "=", "webhook.disabled")
        .where("resource_id", "=", sub.data!.data.id)
        .execute();
    return { inst, sub: sub.data!.data, product, deliveries, listed, disabledEvents };
  }

  it("disables after the window of failures, sends webhook.disabled once, records the events of the pause, and enable with recoverSince sends them", async () => {
    answers.set("/down", 503);
    const { inst, sub, product, deliveries, listed, disabledEvents } = await setup("/down");
    const since = new Date(ctx.clock.now().getTime() - 1000).toISOString();
    await product("first failure");
    await waitUntil(
      async () => (await deliveries())[0]?.status === "failed",
      20_000,
      "the first delivery failed",
    );
    // Failing, but for less than the window: still active.
    ctx.clock.advance(4 * DAY_MS);
    await product("four days later");
    await waitUntil(async () => (await deliveries())[1]?.status === "failed", 20_000, "the second failed");
    assert.equal((await listed()).status, "active");

    // Past the window (5 days from the first failure): the next failed attempt disables it.
    ctx.clock.advance(DAY_MS + 1000);
    await product("five days later");
    await waitUntil(async () => (await listed()).status === "disabled", 20_000, "disabled");
    const shown = await listed();
    assert.equal(shown.disabledReason, "HTTP 503 Service Unavailable");
    assert.ok(Date.parse(shown.disabledAt!) >= Date.parse(since) + 5 * DAY_MS);
    await waitUntil(() => at("/down-ops").length >= 1, 10_000, "webhook.disabled");
    const notice = at("/down-ops")[0]!;
    assert.equal(notice.headers["x-webhook-event"], "webhook.disabled");
    const body = JSON.parse(notice.body) as EventBody<"webhook.disabled">;
    assert.equal(body.event, "webhook.disabled");
    assert.equal(body.store.slug, inst.merchant.slug);
    assert.equal(body.data.subscriptionId, sub.id);
    assert.equal(body.data.eventName, "product.created");
    assert.equal(body.data.targetUrl, `${rx.url}/down`);
    assert.equal(body.data.reason, "HTTP 503 Service Unavailable");
    assert.equal(body.data.disabledAt, shown.disabledAt);
    // The run began with the first failure, five days back.
    const first = (await deliveries())[0]!;
    const firstAttempt = await ctx.platform.db
      .selectFrom("webhook_attempts")
      .select("started_at")
      .where("delivery_id", "=", first.id)
      .orderBy("attempt")
      .executeTakeFirstOrThrow();
    assert.equal(body.data.failingSince, firstAttempt.started_at.toISOString());

    // While disabled: nothing is sent, each event is recorded as skipped.
    const sent = at("/down").length;
    await product("paused 1");
    await product("paused 2");
    await waitUntil(
      async () => (await deliveries()).filter((d) => d.status === "skipped").length === 2,
      10_000,
      "two skipped deliveries",
    );
    await ctx.worker.settled();
    assert.equal(at("/down").length, sent, "nothing sent while disabled");
    const skipped = await inst.api.GET("/api/v1/apps/api/webhooks/deliveries", {
      params: { query: { status: "skipped" } },
    });
    assert.equal(skipped.data!.data.length, 2);
    assert.ok(skipped.data!.data.every((d) => d.attempts === 0 && d.subscriptionActive === false));
    assert.equal((await disabledEvents()).length, 1, "webhook.disabled recorded once");
    assert.equal(at("/down-ops").length, 1, "and delivered once");
    // Redeliver and recover wait for enable.
    const redeliver = await inst.api.POST("/api/v1/apps/api/webhooks/deliveries/{id}/redeliver", {
      params: { path: { id: first.id } },
    });
    assert.equal(redeliver.response.status, 409);

    // The receiver is back; enable with recoverSince sends what failed and what was skipped.
    answers.set("/down", 200);
    const enabled = await inst.api.POST("/api/v1/apps/api/webhooks/{id}/enable", {
      params: { path: { id: sub.id } },
      body: { recoverSince: since },
    });
    assert.equal(enabled.response.status, 200, text(enabled));
    assert.equal(enabled.data!.data.subscription.status, "active");
    assert.equal(enabled.data!.data.subscription.disabledAt, null);
    assert.equal(enabled.data!.data.subscription.disabledReason, null);
    assert.equal(enabled.data!.data.queued, 5, "3 failed + 2 skipped");
    await waitUntil(() => at("/down").length === sent + 5, 10_000, "the 5 recovered");
    const titles = at("/down")
      .slice(sent)
      .map((r) => (JSON.parse(r.body) as EventBody<"product.created">).data.title)
      .sort();
    assert.deepEqual(titles, ["first failure", "five days later", "four days later", "paused 1", "paused 2"]);
    // Active again: new events are delivered, and the old run of failures is forgotten.
    await product("after");
    await waitUntil(() => at("/down").length === sent + 6, 10_000, "a new event delivered");
    assert.equal((await listed()).status, "active");
    assert.equal(
      (
        await ctx.platform.db
          .selectFrom("webhook_subscription_failures")
          .selectAll()
          .where("subscription_id", "=", sub.id)
          .execute()
      ).length,
      0,
    );
    assert.equal(at("/down-ops").length, 1, "still one webhook.disabled");
  });

  it("any success resets the run: failures on both sides of one success never add up to the window", async () => {
    answers.set("/flaky", 500);
    const { product, deliveries, listed } = await setup("/flaky");
    await product("fails");
    await waitUntil(async () => (await deliveries())[0]?.status === "failed", 20_000, "a failure");
    ctx.clock.advance(3 * DAY_MS);
    answers.set("/flaky", 200);
    await product("succeeds");
    await waitUntil(async () => (await deliveries())[1]?.status === "delivered", 20_000, "a success");
    ctx.clock.advance(3 * DAY_MS);
    answers.set("/flaky", 500);
    await product("fails again");
    await waitUntil(async () => (await deliveries())[2]?.status === "failed", 20_000, "a failure again");
    assert.equal((await listed()).status, "active", "6 days since the first failure, 0 since the success");
  });

  it("a 410 Gone disables at once, with that reason, and says so", async () => {
    answers.set("/gone", 410);
    const { sub, product, listed } = await setup("/gone");
    await product("gone");
    await waitUntil(async () => (await listed()).status === "disabled", 20_000, "disabled by 410");
    assert.equal((await listed()).disabledReason, "HTTP 410 Gone");
    await waitUntil(() => at("/gone-ops").length === 1, 10_000, "webhook.disabled");
    const body = JSON.parse(at("/gone-ops")[0]!.body) as EventBody<"webhook.disabled">;
    assert.equal(body.data.subscriptionId, sub.id);
    assert.equal(body.data.reason, "HTTP 410 Gone");
    assert.equal(at("/gone").length, 1, "attempted once");
  });

  it("a 503 with Retry-After delays the next attempt at least that long (still within the attempts)", async () => {
    answers.set("/later", { status: 503, headers: { "retry-after": "7200" } });
    const { product, deliveries } = await setup("/later");
    await product("later");
    await waitUntil(
      async () => (await deliveries())[0]?.attempts === 1 && at("/later").length === 1,
      10_000,
      "one attempt",
    );
    const rows = await deliveries();
    await waitUntil(async () => (await deliveries())[0]?.last_status_code === 503, 10_000, "recorded");
    const row = (await deliveries())[0]!;
    const attempt = await ctx.platform.db
      .selectFrom("webhook_attempts")
      .select("started_at")
      .where("delivery_id", "=", row.id)
      .executeTakeFirstOrThrow();
    assert.equal(rows.length, 1);
    assert.equal(row.status, "pending");
    assert.ok(
      row.next_attempt_at.getTime() - attempt.started_at.getTime() >= 7200 * 1000,
      `next attempt ${row.next_attempt_at.toISOString()} after ${attempt.started_at.toISOString()}`,
    );
    // When the clock reaches it, the second (and last) attempt is made.
    answers.set("/later", 200);
    ctx.clock.advance(7200 * 1000);
    await waitUntil(async () => (await deliveries())[0]?.status === "delivered", 10_000, "delivered");
    assert.equal(at("/later").length, 2);
  });

  it("disabling is once: concurrent disables record one webhook.disabled; a run younger than the window disables nothing", async () => {
    const { inst, sub, listed, disabledEvents } = await setup("/race");
    const storeId = (await ctx.platform.repos.stores.findBySlug(inst.merchant.slug))!.id;
    const repo = ctx.platform.webhooks.deliveries;
    const now = ctx.clock.now();
    const ask = (gone: boolean) => [
      {
        store_id: storeId,
        subscription_id: sub.id,
        reason: "HTTP 503 Service Unavailable",
        gone,
        failedAt: now,
      },
    ];
    await ctx.platform.db
      .insertInto("webhook_subscription_failures")
      .values({ store_id: storeId, subscription_id: sub.id, failing_since: new Date(now.getTime() - 1000) })
      .execute();
    const early = await repo.disableSubscriptions(ask(false), now, new Date(now.getTime() - DAY_MS));
    assert.deepEqual(early, [], "failing for a second of a day's window");
    assert.equal((await listed()).status, "active");
    const results = await Promise.all(
      Array.from({ length: 10 }, () => repo.disableSubscriptions(ask(false), now, now)),
    );
    assert.equal(results.flat().length, 1, "one statement moved it from active");
    assert.equal((await listed()).status, "disabled");
    assert.equal((await disabledEvents()).length, 1);
    await waitUntil(() => at("/race-ops").length === 1, 10_000, "webhook.disabled");
  });

  it("SDK: typed disabledWebhooks, enableWebhook with recoverSince and recoverWebhook over HTTP", async () => {
    answers.set("/sdk", 410);
    const { inst, sub, product, listed } = await setup("/sdk");
    const since = new Date(ctx.clock.now().getTime() - 1000);
    await product("gone");
    await waitUntil(async () => (await listed()).status === "disabled", 20_000, "disabled");
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = ctx.app.server.address() as AddressInfo;
    const admin = createAdminClient({
      baseUrl: `http://127.0.0.1:${port}`,
      accessToken: inst.tokens.accessToken,
    });
    const disabled = await disabledWebhooks(admin);
    assert.deepEqual(
      disabled.map((s) => [s.id, s.status, s.disabledReason]),
      [[sub.id, "disabled", "HTTP 410 Gone"]],
    );
    await assert.rejects(
      recoverWebhook(admin, sub.id, { since }),
      (e: unknown) => e instanceof PlatformError && e.code === "CONFLICT",
    );
    answers.set("/sdk", 200);
    const enabled = await enableWebhook(admin, sub.id, { recoverSince: since });
    assert.equal(enabled.subscription.status, "active");
    assert.equal(enabled.queued, 1);
    await waitUntil(() => at("/sdk").length === 2, 10_000, "recovered");
    const again = await recoverWebhook(admin, sub.id, {
      since,
      until: new Date(ctx.clock.now().getTime() + 1),
    });
    assert.equal(again.queued, 0);
    assert.equal(again.since, since.toISOString());
  });

  it("the dashboard lists an app's disabled subscriptions and re-enables one", async () => {
    answers.set("/dash", 410);
    const { inst, sub, product, listed } = await setup("/dash");
    await product("gone");
    await waitUntil(async () => (await listed()).status === "disabled", 20_000, "disabled");
    const banner = await inst.dev.client.GET("/api/v1/dashboard/apps/{clientId}/webhooks", {
      params: { path: { clientId: inst.clientId }, query: { status: "disabled" } },
    });
    assert.equal(banner.response.status, 200);
    assert.equal(banner.data!.data.length, 1);
    assert.equal(banner.data!.data[0]!.id, sub.id);
    assert.equal(banner.data!.data[0]!.storeSlug, inst.merchant.slug);
    assert.equal(banner.data!.data[0]!.disabledReason, "HTTP 410 Gone");
    const stranger = await installedApp(ctx.app, SCOPES);
    assert.equal(
      (
        await stranger.dev.client.POST("/api/v1/dashboard/apps/{clientId}/webhooks/{id}/enable", {
          params: { path: { clientId: inst.clientId, id: sub.id } },
          body: {},
        })
      ).response.status,
      404,
    );
    const enabled = await inst.dev.client.POST("/api/v1/dashboard/apps/{clientId}/webhooks/{id}/enable", {
      params: { path: { clientId: inst.clientId, id: sub.id } },
      body: {},
    });
    assert.equal(enabled.response.status, 200);
    assert.equal(enabled.data!.data.subscription.status, "active");
    assert.equal(enabled.data!.data.queued, 0);
    assert.equal(
      (
        await inst.dev.client.GET("/api/v1/dashboard/apps/{clientId}/webhooks", {
          params: { path: { clientId: inst.clientId }, query: { status: "disabled" } },
        })
      ).data!.data.length,
      0,
    );
  });
});
