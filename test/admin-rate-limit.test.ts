import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Redis } from "ioredis";
import { buildApp } from "../src/app.ts";
import type { App } from "../src/lib/http/types.ts";
import { createPlatform } from "../src/platform.ts";
import { installedApp } from "./apps-harness.ts";
import {
  type Api,
  apiClient,
  createTestContext,
  errorCode,
  TEST_REDIS_URL,
  type TestContext,
} from "./harness.ts";
import { redisSkipReason } from "./requirements.ts";

const LIMIT = 180;

/** `n` reads of the Admin API's products, spread over `clients` in turn. */
async function burst(clients: Api[], n: number) {
  const statuses: number[] = [];
  let last: Awaited<ReturnType<Api["GET"]>> | undefined;
  for (let i = 0; i < n; i++) {
    last = await clients[i % clients.length]!.GET("/api/v1/apps/api/products");
    statuses.push(last.response.status);
  }
  return { statuses, last: last! };
}

function assertQuota(statuses: number[]) {
  assert.equal(statuses.filter((s) => s === 200).length, LIMIT, "exactly the limit is accepted");
  assert.equal(
    statuses.slice(0, LIMIT).every((s) => s === 200),
    true,
  );
  assert.equal(statuses[LIMIT], 429);
}

describe("Admin API rate limit: in-process (one instance)", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({}, { frozenClock: true });
  });
  after(() => ctx.close());

  it("accepts 180 per installation per minute, answers the 181st with 429 and consistent headers, and spares other installations", async () => {
    const a = await installedApp(ctx.app, ["read_products"]);
    const b = await installedApp(ctx.app, ["read_products"]);
    const { statuses, last } = await burst([a.api], LIMIT + 1);
    assertQuota(statuses);
    assert.equal(errorCode(last), "RATE_LIMITED");
    assert.equal(last.response.headers.get("x-ratelimit-limit"), "180");
    assert.equal(last.response.headers.get("x-ratelimit-remaining"), "0");
    const reset = Number(last.response.headers.get("x-ratelimit-reset"));
    assert.equal(reset, 60, "the clock stood still: the oldest request leaves the window in 60 s");
    assert.equal(last.response.headers.get("retry-after"), String(reset));
    // Another installation is untouched.
    const other = await b.api.GET("/api/v1/apps/api/products");
    assert.equal(other.response.status, 200);
    assert.equal(other.response.headers.get("x-ratelimit-remaining"), "179");
    // A minute later the window has moved on.
    ctx.clock.advance(60_001);
    const later = await a.api.GET("/api/v1/apps/api/products");
    assert.equal(later.response.status, 200);
    assert.equal(later.response.headers.get("x-ratelimit-remaining"), "179");
  });
});

describe("Admin API rate limit: Redis, two service instances", { skip: await redisSkipReason() }, () => {
  let ctx: TestContext;
  let second: { app: App; redis: Redis };
  before(async () => {
    ctx = await createTestContext({ REDIS_URL: TEST_REDIS_URL }, { redis: true, frozenClock: true });
    // A second instance: its own process state and Redis connection, the same database.
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

  it("shares one quota per installation across both instances", async () => {
    const a = await installedApp(ctx.app, ["read_products"]);
    const b = await installedApp(ctx.app, ["read_products"]);
    const onFirst = apiClient(ctx.app, { headers: { authorization: `Bearer ${a.tokens.accessToken}` } });
    const onSecond = apiClient(second.app, { headers: { authorization: `Bearer ${a.tokens.accessToken}` } });
    const { statuses, last } = await burst([onFirst, onSecond], LIMIT + 1);
    assertQuota(statuses);
    assert.equal(errorCode(last), "RATE_LIMITED");
    assert.equal(last.response.headers.get("x-ratelimit-remaining"), "0");
    assert.equal(last.response.headers.get("retry-after"), "60");
    // Both instances now refuse it...
    assert.equal((await onFirst.GET("/api/v1/apps/api/products")).response.status, 429);
    // ...and another installation is unaffected on either.
    const bOnSecond = apiClient(second.app, { headers: { authorization: `Bearer ${b.tokens.accessToken}` } });
    const res = await bOnSecond.GET("/api/v1/apps/api/products");
    assert.equal(res.response.status, 200);
    assert.equal(res.response.headers.get("x-ratelimit-remaining"), "179");
  });

  it("revokes on every instance at once (uninstall seen by the other instance)", async () => {
    const a = await installedApp(ctx.app, ["read_products"]);
    const onSecond = apiClient(second.app, { headers: { authorization: `Bearer ${a.tokens.accessToken}` } });
    assert.equal((await onSecond.GET("/api/v1/apps/api/products")).response.status, 200);
    await a.merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/installations/{clientId}", {
      params: { path: { slug: a.merchant.slug, clientId: a.clientId } },
    });
    assert.equal((await onSecond.GET("/api/v1/apps/api/products")).response.status, 401);
  });
});
