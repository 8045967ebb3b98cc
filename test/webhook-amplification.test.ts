import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { Redis } from "ioredis";
import { buildApp } from "../src/app.ts";
import type { App } from "../src/lib/http/types.ts";
import { createPlatform } from "../src/platform.ts";
import { installedApp } from "./apps-harness.ts";
import {
  type Answer,
  type Api,
  apiClient,
  createTestContext,
  detailsOf,
  errorCode,
  fieldErrors,
  injectAny,
  type RequestBody,
  type Scope,
  TEST_REDIS_URL,
  type TestContext,
  text,
} from "./harness.ts";
import { redisSkipReason } from "./requirements.ts";
import { waitUntil } from "./webhooks-harness.ts";

/**
 * Security review, issue 18 item 8: what one app can make the platform send. One installation could
 * hold 100 subscriptions of one event, so one test event became up to 100 signed POSTs, and
 * redelivery had no limit at all (200 of 200 from the dashboard in 2.5 s). Now: at most 10 active
 * subscriptions per event per installation (and 100 in all), test events charged by what they fan
 * out to (60 per app per minute), redeliveries 60 per app per minute; 429 with Retry-After.
 */

const SCOPES: Scope[] = ["read_customers", "manage_webhooks"];
const target = (n: number | string) => `https://127.0.0.1:9/hooks/${n}`;

/** The 429 of a webhook budget: the envelope, Retry-After in the header and in the details. */
function assertBudgetRefusal(res: Answer, retryAfter: number, cost: number) {
  assert.equal(res.response.status, 429, text(res));
  assert.equal(errorCode(res), "RATE_LIMITED");
  assert.equal(res.response.headers.get("retry-after"), String(retryAfter));
  assert.deepEqual(detailsOf(res), {
    limit: 60,
    windowSeconds: 60,
    cost,
    retryAfterSeconds: retryAfter,
  });
}

async function subscribe(
  api: Api,
  count: number,
  eventName: RequestBody<"/api/v1/apps/api/webhooks", "post">["eventName"] = "customer.created",
  from = 0,
) {
  const statuses: number[] = [];
  for (let i = from; i < from + count; i++)
    statuses.push(
      (await api.POST("/api/v1/apps/api/webhooks", { body: { eventName, targetUrl: target(i) } })).response
        .status,
    );
  return statuses;
}

async function testDeliveries(ctx: TestContext, installationId: string) {
  const rows = await ctx.platform.db
    .selectFrom("webhook_deliveries")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("installation_id", "=", installationId)
    .where("test", "=", true)
    .executeTakeFirstOrThrow();
  return Number(rows.n);
}

describe("webhook amplification: subscription bounds", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      RATE_LIMIT_PER_MINUTE: "1000",
      // Lowered so the bound in all is reached in a few requests; the per-event one is the default.
      WEBHOOK_MAX_SUBSCRIPTIONS_PER_INSTALLATION: "15",
    });
  });
  after(() => ctx.close());

  it("allows 10 active subscriptions of one event per installation (409 the 11th), and the bound in all", async () => {
    const a = await installedApp(ctx.app, [...SCOPES, "read_orders"]);
    assert.deepEqual(await subscribe(a.api, 10), Array(10).fill(201));
    const eleventh = await a.api.POST("/api/v1/apps/api/webhooks", {
      body: { eventName: "customer.created", targetUrl: target(10) },
    });
    assert.equal(eleventh.response.status, 409, text(eleventh));
    assert.equal(errorCode(eleventh), "CONFLICT");
    assert.deepEqual(fieldErrors(eleventh), [
      { field: "eventName", message: "has 10 subscriptions already" },
    ]);
    // Another event has its own 10; another installation is untouched.
    assert.deepEqual(await subscribe(a.api, 5, "order.created"), Array(5).fill(201));
    const b = await installedApp(ctx.app, SCOPES);
    assert.equal((await subscribe(b.api, 1))[0], 201);
    // 15 in all (as configured here): the 16th is refused whatever its event.
    const over = await a.api.POST("/api/v1/apps/api/webhooks", {
      body: { eventName: "order.paid", targetUrl: target("x") },
    });
    assert.equal(over.response.status, 409);
    assert.match(over.error!.error.message, /at most 15 active subscriptions/);
    // Deleting one makes room again.
    const list = (await a.api.GET("/api/v1/apps/api/webhooks")).data!.data;
    const one = list.find((s) => s.eventName === "customer.created")!;
    assert.equal(
      (await a.api.DELETE("/api/v1/apps/api/webhooks/{id}", { params: { path: { id: one.id } } })).response
        .status,
      200,
    );
    assert.equal((await subscribe(a.api, 1, "customer.created", 20))[0], 201);
  });

  it("twenty creates at once for one event make exactly 10", async () => {
    const a = await installedApp(ctx.app, SCOPES);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        a.api.POST("/api/v1/apps/api/webhooks", {
          body: { eventName: "customer.created", targetUrl: target(`race-${i}`) },
        }),
      ),
    );
    const statuses = results.map((r) => r.response.status).sort();
    assert.deepEqual(statuses, [...Array(10).fill(201), ...Array(10).fill(409)], statuses.join(","));
    assert.equal((await a.api.GET("/api/v1/apps/api/webhooks")).data!.data.length, 10);
  });
});

describe("webhook amplification: test events and redeliveries are budgeted per app", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext(
      { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", RATE_LIMIT_PER_MINUTE: "1000" },
      { frozenClock: true },
    );
  });
  after(() => ctx.close());

  it("charges a test event what it fans out to: 10 subscriptions and a listen session cost 11, 60 a minute per app", async () => {
    const a = await installedApp(ctx.app, SCOPES);
    assert.deepEqual(await subscribe(a.api, 10), Array(10).fill(201));
    const test = () => a.api.POST("/api/v1/apps/api/webhooks/test", { body: { event: "customer.created" } });
    for (let i = 0; i < 6; i++) assert.equal((await test()).response.status, 202, `test event ${i + 1}`);
    await ctx.platform.webhooks.deliveries.dispatchEvents(ctx.clock.now(), 100);
    const installationId = (
      await ctx.platform.db
        .selectFrom("installations")
        .select("id")
        .where("store_id", "=", a.merchant.store.id)
        .executeTakeFirstOrThrow()
    ).id;
    assert.equal(await testDeliveries(ctx, installationId), 60, "10 signed POSTs per test event");
    // The 7th would make 10 more: refused until the first leaves the window (the clock is frozen).
    assertBudgetRefusal(await test(), 60, 10);
    // An event without subscriptions still costs 1, and nothing is left.
    assertBudgetRefusal(
      await a.api.POST("/api/v1/apps/api/webhooks/test", { body: { event: "app/uninstalled" } }),
      60,
      1,
    );
    // Another app has its own budget.
    const b = await installedApp(ctx.app, SCOPES);
    assert.equal(
      (await b.api.POST("/api/v1/apps/api/webhooks/test", { body: { event: "customer.created" } })).response
        .status,
      202,
    );

    ctx.clock.advance(60_000);
    // A listen session carrying the event is one more target (live after its client went: it
    // keeps its queue for a reconnect).
    const stream = await injectAny(ctx.app, {
      method: "GET",
      url: "/api/v1/apps/api/webhooks/stream?events=customer.created",
      headers: { authorization: `Bearer ${a.tokens.accessToken}` },
    });
    assert.equal(stream.statusCode, 200);
    for (let i = 0; i < 5; i++)
      assert.equal((await test()).response.status, 202, `after the window, ${i + 1}`);
    assertBudgetRefusal(await test(), 60, 11);
    // Dispatched until the five are (one PostgreSQL run under load saw 90 after a single pass;
    // not explained yet, see the closing note of issue 23).
    await waitUntil(
      async () => {
        await ctx.platform.webhooks.deliveries.dispatchEvents(ctx.clock.now(), 100);
        return (await testDeliveries(ctx, installationId)) >= 110;
      },
      20_000,
      "the five test events' deliveries",
    );
    assert.equal(await testDeliveries(ctx, installationId), 110);
  });

  it("redeliveries: 60 per app per minute, dashboard and Admin API together; a refused one keeps nothing of its key", async () => {
    const a = await installedApp(ctx.app, SCOPES);
    assert.equal((await subscribe(a.api, 1))[0], 201);
    assert.equal(
      (await a.api.POST("/api/v1/apps/api/webhooks/test", { body: { event: "customer.created" } })).response
        .status,
      202,
    );
    await ctx.platform.webhooks.deliveries.dispatchEvents(ctx.clock.now(), 100);
    const [delivery] = (await a.api.GET("/api/v1/apps/api/webhooks/deliveries")).data!.data;
    assert.ok(delivery);
    const viaAdmin = (key?: string) =>
      a.api.POST("/api/v1/apps/api/webhooks/deliveries/{id}/redeliver", {
        params: { path: { id: delivery.id } },
        headers: key ? { "idempotency-key": key } : {},
      });
    const viaDashboard = (key?: string) =>
      a.dev.client.POST("/api/v1/dashboard/apps/{clientId}/deliveries/{id}/redeliver", {
        params: { path: { clientId: a.clientId, id: delivery.id } },
        headers: key ? { "idempotency-key": key } : {},
      });
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      statuses.push((await viaAdmin()).response.status);
      statuses.push((await viaDashboard()).response.status);
    }
    assert.deepEqual(statuses, Array(60).fill(201));
    const key = `redeliver-${randomUUID()}`;
    assertBudgetRefusal(await viaDashboard(key), 60, 1);
    assertBudgetRefusal(await viaAdmin(), 60, 1);

    ctx.clock.advance(60_000);
    // The 429 was not kept under the key: its retry runs now.
    const retried = await viaDashboard(key);
    assert.equal(retried.response.status, 201, text(retried));
    assert.equal(retried.response.headers.get("idempotency-replayed"), null);
    assert.equal((await viaDashboard(key)).response.headers.get("idempotency-replayed"), "true");
  });
});

describe("webhook amplification: budgets shared by two instances through Redis", {
  skip: await redisSkipReason(),
}, () => {
  let ctx: TestContext;
  let second: { app: App; redis: Redis };
  before(async () => {
    ctx = await createTestContext(
      { REDIS_URL: TEST_REDIS_URL, WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" },
      { redis: true, frozenClock: true },
    );
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 2 });
    const platform = createPlatform({
      config: ctx.platform.config,
      database: ctx.platform.database,
      clock: ctx.clock,
      redis,
    });
    const app = await buildApp(platform);
    await app.ready();
    second = { app, redis };
  });
  after(async () => {
    await second.app.close();
    second.redis.disconnect();
    await ctx.close();
  });

  it("a test-event budget spent on one instance is spent on the other", async () => {
    const a = await installedApp(ctx.app, SCOPES);
    assert.deepEqual(await subscribe(a.api, 10), Array(10).fill(201));
    const onSecond = apiClient(second.app, { headers: { authorization: `Bearer ${a.tokens.accessToken}` } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push(
        (await a.api.POST("/api/v1/apps/api/webhooks/test", { body: { event: "customer.created" } })).response
          .status,
      );
      statuses.push(
        (await onSecond.POST("/api/v1/apps/api/webhooks/test", { body: { event: "customer.created" } }))
          .response.status,
      );
    }
    assert.deepEqual(statuses, Array(6).fill(202));
    assertBudgetRefusal(
      await onSecond.POST("/api/v1/apps/api/webhooks/test", { body: { event: "customer.created" } }),
      60,
      10,
    );
    assertBudgetRefusal(
      await a.api.POST("/api/v1/apps/api/webhooks/test", { body: { event: "customer.created" } }),
      60,
      10,
    );
  });
});
