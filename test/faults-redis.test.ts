import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { buildApp } from "../src/app.ts";
import type { Config } from "../src/config.ts";
import type { App } from "../src/lib/http/types.ts";
import { connectRedis, createPlatform, type Platform } from "../src/platform.ts";
import { installedApp } from "./apps-harness.ts";
import {
  type Answer,
  type Api,
  apiClient,
  createTestContext,
  type Json,
  merchantWithStore,
  type TestContext,
  text,
} from "./harness.ts";
import { type RedisServer, startRedisServer } from "./redis-server.ts";
import { redisServerSkipReason } from "./requirements.ts";
import { waitUntil } from "./webhooks-harness.ts";

/**
 * Fault suite: Redis (shared rate limits and credential throttles) is killed with SIGKILL and
 * started again on the same port while the Admin API, the developer API and the login answer a
 * steady load on several service instances. Redis is an accelerator: nothing may fail or slow
 * down, limits hold per instance during the outage and are shared again once it is back.
 */
const LIMIT = 20;
/**
 * The bound: an outage adds less than this to any request. It is measured against the
 * slowest request of the same kind while Redis was up, in the same run, so that a busy machine
 * (a saturated CPU makes an argon2id login take most of a second by itself) does not fail it,
 * while a request that waits on a dead or hung Redis (seconds) does.
 */
const SLOW_MS = 1000;

/** Each sample's kind: what it asked, whatever instance answered (`admin@a` → `admin`). */
const kindOf = (what: string) => what.split("@")[0]!;

/** The samples slower than the slowest of their kind while Redis was up, plus SLOW_MS. */
function slowerThanUp(samples: Sample[]): Sample[] {
  const up = new Map<string, number>();
  for (const s of samples) {
    if (s.phase === "up") up.set(kindOf(s.what), Math.max(up.get(kindOf(s.what)) ?? 0, s.ms));
  }
  return samples.filter((s) => s.ms >= (up.get(kindOf(s.what)) ?? 0) + SLOW_MS);
}

interface Instance {
  name: string;
  app: App;
  platform: Platform;
  /** The instance's log lines (pino's JSON, which the document does not describe). */
  logs: Json[];
  close(): Promise<void>;
}

interface Sample {
  what: string;
  status: number;
  ms: number;
  phase: string;
}

describe("Redis outage and return under load", { skip: redisServerSkipReason() }, () => {
  let ctx: TestContext;
  let redis: RedisServer;
  const instances: Instance[] = [];
  const samples: Sample[] = [];
  let phase = "up";
  let stopLoad: () => Promise<void> = async () => {};

  /**
   * A service instance as main.ts builds one (connectRedis, a pino logger), sharing the test's
   * database and clock with the others, each with its own Redis connection and process state.
   */
  async function startInstance(name: string, rateLimit: number, commandTimeoutMs: number): Promise<Instance> {
    const logs: Json[] = []; // pino's lines, plain JSON
    const logger = pino({ level: "debug" }, { write: (line: string) => void logs.push(JSON.parse(line)) });
    const config: Config = {
      ...ctx.platform.config,
      REDIS_URL: redis.url,
      RATE_LIMIT_PER_MINUTE: rateLimit,
      REDIS_COMMAND_TIMEOUT_MS: commandTimeoutMs,
    };
    const client = connectRedis(redis.url, { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS, logger });
    const platform = createPlatform({
      config,
      database: ctx.platform.database,
      clock: ctx.clock,
      redis: client,
      logger,
    });
    const app = await buildApp(platform);
    await app.ready();
    await waitUntil(() => client.status === "ready", 20_000, `${name} connected to Redis`);
    const instance: Instance = {
      name,
      app,
      platform,
      logs,
      async close() {
        await app.close();
        platform.sharedCounters?.close();
        client.disconnect();
      },
    };
    instances.push(instance);
    return instance;
  }

  /** Every request of the test goes through here: its status and duration are kept. */
  async function timed<A extends Answer>(what: string, request: () => Promise<A>): Promise<A> {
    const started = performance.now();
    const res = await request();
    samples.push({ what, status: res.response.status, ms: performance.now() - started, phase });
    return res;
  }

  const readyz = (inst: Instance) => timed(`readyz@${inst.name}`, () => apiClient(inst.app).GET("/readyz"));
  const redisState = async (inst: Instance) => (await readyz(inst)).data?.data?.redis;

  /** `n` Admin API calls of one installation, alternating over `on`; the statuses in order. */
  async function burst(on: Instance[], token: string, n: number) {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) {
      const inst = on[i % on.length]!;
      const client = apiClient(inst.app, { headers: { authorization: `Bearer ${token}` } });
      statuses.push(
        (await timed(`burst@${inst.name}`, () => client.GET("/api/v1/apps/api/products"))).response.status,
      );
    }
    return statuses;
  }

  function assertExactlyLimit(statuses: number[], what: string) {
    assert.deepEqual(
      statuses,
      [...Array(LIMIT).fill(200), 429],
      `${what}: ${LIMIT} accepted, then 429 (got ${statuses.join(",")})`,
    );
  }

  const metric = async (inst: Instance, name: string) => {
    const text = await inst.platform.metrics.registry.metrics();
    const match = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
    return match ? Number(match[1]) : undefined;
  };
  const warnings = (inst: Instance) => inst.logs.filter((l) => l.level >= 40);
  const redisInfo = (inst: Instance) => inst.logs.filter((l) => l.level === 30 && /redis/i.test(l.msg));

  before(async () => {
    redis = await startRedisServer();
    ctx = await createTestContext();
  });
  after(async () => {
    await stopLoad();
    for (const inst of instances) await inst.close();
    await redis?.close();
    await ctx?.close();
  });

  it("answers every request in normal time through a SIGKILL of Redis and its return; limits per instance meanwhile, shared again after", async (t) => {
    // A killed Redis fails every call at once, so the time-out plays no part here; it is generous
    // because an event-loop stall on a saturated machine times a call out, switches an instance to
    // its own counters for a second (a second "Redis is unavailable" warning, rightly) and breaks
    // the exact counts below. 500 ms was not enough at load 13 (two busy loops beside the suite);
    // the hung server's time-out is the next test's, at the production default.
    const timeoutMs = 5000;
    const [a, b] = [await startInstance("a", LIMIT, timeoutMs), await startInstance("b", LIMIT, timeoutMs)];
    // The steady load runs on two instances of its own with a quota it never reaches, so every
    // request does its full work (the pair above is for exact quota counts).
    const [l1, l2] = [
      await startInstance("l1", 1_000_000, timeoutMs),
      await startInstance("l2", 1_000_000, timeoutMs),
    ];

    const loadApp = await installedApp(ctx.app, ["read_products"]);
    const keyOwner = await merchantWithStore(ctx.app);
    const key = await keyOwner.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
      params: { path: { slug: keyOwner.slug } },
      body: {
        name: "Load",
        scopes: ["read_products"],
      },
    });
    assert.equal(key.response.status, 201);
    const keyHeaders = { "x-api-key": key.data!.data.keyId, "x-api-secret": key.data!.data.secret };
    const login = { email: keyOwner.email, password: keyOwner.password };
    const [quotaBefore, quotaDuring, quotaAfter] = [
      await installedApp(ctx.app, ["read_products"]),
      await installedApp(ctx.app, ["read_products"]),
      await installedApp(ctx.app, ["read_products"]),
    ];

    // Redis up: one quota across both instances.
    assertExactlyLimit(await burst([a, b], quotaBefore.tokens.accessToken, LIMIT + 1), "shared before");

    // Steady load: one client each for the Admin API, the developer API and the login, each
    // going back and forth between the two load instances.
    let running = true;
    const worker = async (what: string, request: (c: Api) => Promise<Answer>) => {
      for (let i = 0; running; i++) {
        const inst = i % 2 ? l2 : l1;
        await timed(`${what}@${inst.name}`, () => request(apiClient(inst.app)));
        // Real clients arrive through sockets. app.inject on the embedded database, with the
        // counters in memory, completes in microtasks alone: yield, or the timers starve.
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const workers = [
      worker("admin", (c) =>
        c.GET("/api/v1/apps/api/products", {
          headers: { authorization: `Bearer ${loadApp.tokens.accessToken}` },
        }),
      ),
      worker("developer", (c) => c.GET("/api/v1/developer/products", { headers: keyHeaders })),
      worker("login", (c) => c.POST("/api/v1/dashboard/auth/login", { body: login })),
    ];
    stopLoad = async () => {
      running = false;
      await Promise.all(workers);
    };
    const loadIn = (p: string) =>
      samples.filter((s) => s.phase === p && /^(admin|developer|login)@/.test(s.what));
    const logins = (p: string) => samples.filter((s) => s.phase === p && s.what.startsWith("login@"));
    await waitUntil(
      () => loadIn("up").length >= 30 && logins("up").length >= 4,
      60_000,
      "load before the outage",
    );

    // The outage.
    phase = "down";
    await redis.kill();
    for (const inst of instances) {
      await waitUntil(async () => (await redisState(inst)) === "degraded", 20_000, `${inst.name} degraded`);
    }
    const ready = await readyz(a);
    assert.equal(ready.response.status, 200, "the service still serves: ready, with Redis degraded");
    assert.equal(ready.data!.data.status, "ready");
    assert.equal(ready.data!.data.redis, "degraded");

    // Limits hold per instance: a counts its own 20, b has not seen any of them.
    assertExactlyLimit(await burst([a], quotaDuring.tokens.accessToken, LIMIT + 1), "on a during the outage");
    const onB = await burst([b], quotaDuring.tokens.accessToken, 1);
    assert.deepEqual(onB, [200], "b counts on its own during the outage");
    await waitUntil(() => loadIn("down").length >= 60, 60_000, "load during the outage");

    for (const inst of instances) {
      assert.equal(await metric(inst, "merchant_redis_degraded"), 1, `${inst.name} gauge`);
      assert.ok(
        (await metric(inst, "merchant_redis_fallback_operations_total"))! > 0,
        `${inst.name} counts fallback operations`,
      );
    }

    // Redis returns (empty, on the same port); every instance goes back to it by itself.
    phase = "back";
    await redis.start();
    for (const inst of instances) {
      await waitUntil(async () => (await redisState(inst)) === "ok", 30_000, `${inst.name} back on Redis`);
    }
    assertExactlyLimit(await burst([a, b], quotaAfter.tokens.accessToken, LIMIT + 1), "shared after");
    await waitUntil(() => loadIn("back").length >= 30, 60_000, "load after the return");
    await stopLoad();

    for (const inst of instances) {
      // Logged once when entered (warn), once when left (info): not per request.
      const warned = warnings(inst);
      assert.equal(warned.length, 1, `${inst.name} warnings: ${JSON.stringify(warned)}`);
      assert.match(warned[0]!.msg, /redis/i);
      assert.equal(redisInfo(inst).length, 1, `${inst.name}: ${JSON.stringify(redisInfo(inst))}`);
      assert.equal(await metric(inst, "merchant_redis_degraded"), 0, `${inst.name} gauge after`);
    }

    const load = samples.filter((s) => /^(admin|developer|login)@/.test(s.what));
    const failed = samples.filter((s) => (s.what.startsWith("burst") ? s.status >= 500 : s.status !== 200));
    assert.deepEqual(failed, [], "no request failed");
    assert.deepEqual(
      slowerThanUp(samples),
      [],
      `no request took ${SLOW_MS} ms longer than the slowest of its kind with Redis up`,
    );
    for (const p of ["up", "down", "back"]) {
      for (const kind of ["admin", "developer", "login"]) {
        const ms = load.filter((s) => s.phase === p && s.what.startsWith(kind)).map((s) => s.ms);
        t.diagnostic(
          `Redis ${p}, ${kind}: ${ms.length} requests, p50 ${pct(ms, 50)} ms, max ${pct(ms, 100)} ms`,
        );
      }
    }
  });

  it("Admin API latency with Redis up, killed and hung (SIGSTOP)", async (t) => {
    // The production default time-out (50 ms), which the hung server exercises.
    const inst = await startInstance("m", 1_000_000, 50);
    const installed = await installedApp(ctx.app, ["read_products"]);
    const api = apiClient(inst.app, { headers: { authorization: `Bearer ${installed.tokens.accessToken}` } });
    let slowestUp = 0;
    const measure = async (label: string) => {
      const ms: number[] = [];
      for (let i = 0; i < 200; i++) {
        const started = performance.now();
        const res = await api.GET("/api/v1/apps/api/products");
        ms.push(performance.now() - started);
        assert.equal(res.response.status, 200, `${label}: ${text(res)}`);
      }
      t.diagnostic(
        `Admin API, Redis ${label}: p50 ${pct(ms, 50)} ms, p99 ${pct(ms, 99)} ms, max ${pct(ms, 100)} ms`,
      );
      // Against the same requests with Redis up, in this run (SLOW_MS).
      if (label === "up") slowestUp = Math.max(...ms);
      else
        assert.ok(pct(ms, 100) < slowestUp + SLOW_MS, `${label}: max ${pct(ms, 100)} ms, up ${slowestUp} ms`);
    };
    const waitFor = (state: string) =>
      waitUntil(async () => (await redisState(inst)) === state, 30_000, `Redis ${state}`);

    await waitFor("ok");
    await measure("up");
    await redis.kill();
    await measure("killed");
    await redis.start();
    await waitFor("ok");
    redis.pause();
    try {
      await measure("hung");
      const hung = await readyz(inst);
      assert.equal(hung.data!.data.redis, "degraded");
    } finally {
      redis.resume();
    }
    await waitFor("ok");
    assert.deepEqual(
      samples.filter((s) => s.what.startsWith("readyz") && s.status !== 200),
      [],
      "readyz answered 200 every time",
    );
    assert.deepEqual(slowerThanUp(samples), [], "readyz within a second of its time with Redis up");
  });
});

describe("readiness without Redis", () => {
  it("is ready with redis not_configured, and says nothing of Redis in /metrics", async () => {
    const ctx = await createTestContext();
    try {
      const res = await apiClient(ctx.app).GET("/readyz");
      assert.equal(res.response.status, 200);
      assert.deepEqual(res.data!.data, { status: "ready", redis: "not_configured" });
      const metrics = await ctx.platform.metrics.registry.metrics();
      assert.doesNotMatch(metrics, /merchant_redis/);
    } finally {
      await ctx.close();
    }
  });
});

/** The p-th percentile (nearest rank), rounded to 0.1 ms. */
function pct(values: number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round((sorted[at] ?? 0) * 10) / 10;
}
