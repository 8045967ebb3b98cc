import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { Redis } from "ioredis";
import { flat } from "./catalogue.ts";
import {
  type Answer,
  type Api,
  apiClient,
  asForm,
  createTestContext,
  type EventBody,
  errorCode,
  type Scope,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  type TestContext,
  text,
} from "./harness.ts";
import { type ServiceProcess, startService } from "./processes.ts";
import { startReceiver } from "./receiver.ts";
import { redisSkipReason } from "./requirements.ts";
import { waitUntil } from "./webhooks-harness.ts";

/**
 * Scale-out: two API processes and two worker processes (`node src/main.ts`, RUN_MODE=api and
 * worker, as operators run them) on one PostgreSQL schema and one Redis database, checked across
 * instances: the per-installation rate limit holds in total, a revocation, an uninstall or a
 * secret rotation through one instance is refused by the other on the very next request (whatever
 * the instances cache), and 1,000 events committed through both APIs are each delivered once, with
 * both workers delivering at the same time and never two on one delivery.
 *
 * Nothing here depends on how fast the machine is: every wait polls a condition with a generous
 * bound, and the one figure that involves a clock (a 60-second rate-limit window) is asserted
 * exactly when the burst fitted in the window and as the sliding-window bound otherwise.
 */
const skip = TEST_DATABASE_URL
  ? await redisSkipReason()
  : "needs TEST_DATABASE_URL: several processes share one PostgreSQL server (the PostgreSQL pass runs it)";

const LIMIT = 30;
const REDIRECT = "https://app.example.com/oauth/callback";
const PASSWORD = "correct horse battery";
const secretsKey = randomBytes(32).toString("base64");

/**
 * A Redis database index (1-15) of this run's own, claimed with SET NX, so concurrent runs on one
 * Redis never share counters (the per-IP credential throttle key is the same in every run).
 */
async function claimRedisDatabase(): Promise<{ url: string; client: Redis; release(): Promise<void> }> {
  const claimKey = "mp:test:scale-out:claim";
  const owner = randomBytes(8).toString("hex");
  for (let db = 15; db >= 1; db--) {
    const url = new URL(TEST_REDIS_URL);
    url.pathname = `/${db}`;
    const client = new Redis(url.toString(), { maxRetriesPerRequest: 2, lazyConnect: true });
    client.on("error", () => {});
    try {
      await client.connect(); // selects the database: fails if the server has fewer
      if ((await client.set(claimKey, owner, "PX", 30 * 60_000, "NX")) === "OK") {
        return {
          url: url.toString(),
          client,
          async release() {
            const keys: string[] = [];
            for await (const batch of client.scanStream({ match: "mp:rl:*", count: 500 }))
              keys.push(...(batch as string[]));
            if (keys.length) await client.del(...keys);
            if ((await client.get(claimKey)) === owner) await client.del(claimKey);
            client.disconnect();
          },
        };
      }
    } catch {
      // No such database on this server: try the next index.
    }
    client.disconnect();
  }
  throw new Error("no Redis database index 1-15 is free for the scale-out test");
}

async function signupWithStore(base: string) {
  const client = apiClient(base);
  const email = `fleet-${Date.now()}-${randomBytes(3).toString("hex")}@example.com`;
  const signup = await client.POST("/api/v1/dashboard/auth/signup", {
    body: {
      email,
      password: PASSWORD,
      name: "Fleet",
    },
  });
  assert.equal(signup.response.status, 201, text(signup));
  const slug = `fleet-${randomBytes(5).toString("hex")}`;
  const store = await client.POST("/api/v1/dashboard/stores", { body: { name: "Fleet Store", slug } });
  assert.equal(store.response.status, 201, text(store));
  return { client, slug, base: `/api/v1/dashboard/stores/${slug}` };
}

/**
 * An app registered through one instance, installed through the other, its code exchanged on the
 * first: the whole OAuth flow over real HTTP, across instances.
 */
async function installOverHttp(a: string, b: string, scopes: Scope[]) {
  const dev = await signupWithStore(a);
  const registered = await dev.client.POST("/api/v1/dashboard/apps", {
    body: {
      name: "Fleet App",
      redirectUris: [REDIRECT],
      scopes,
    },
  });
  assert.equal(registered.response.status, 201, text(registered));
  const clientId: string = registered.data!.data.clientId;
  const clientSecret: string = registered.data!.data.clientSecret;
  const merchant = await signupWithStore(b);
  const consent = await merchant.client.POST("/api/v1/dashboard/oauth/consent", {
    body: {
      clientId,
      redirectUri: REDIRECT,
      scopes,
      state: "st-fleet",
      storeSlug: merchant.slug,
      approve: true,
    },
  });
  assert.equal(consent.response.status, 200, text(consent));
  const code = new URL(consent.data!.data.redirectTo).searchParams.get("code")!;
  const exchange = await apiClient(a).POST("/api/v1/apps/token", {
    body: {
      slug: merchant.slug,
      code,
      redirectUri: REDIRECT,
      clientId,
      clientSecret,
    },
  });
  assert.equal(exchange.response.status, 200, text(exchange));
  return {
    dev,
    merchant,
    clientId,
    clientSecret,
    accessToken: exchange.data!.data.accessToken,
    refreshToken: exchange.data!.data.refreshToken,
  };
}

/** One Admin API read with a bearer token on an instance. */
const adminRead = (base: string, token: string) =>
  apiClient(base, { headers: { authorization: `Bearer ${token}` } }).GET("/api/v1/apps/api/products", {
    params: { query: { limit: 1 } },
  });

/** The spec's refresh (`/api/v1/apps/token/refresh`) on an instance; the installation's own credentials unless given. */
const refreshOn = (
  base: string,
  inst: { clientId: string; clientSecret: string; refreshToken: string; merchant: { slug: string } },
  use: { clientSecret?: string; refreshToken?: string } = {},
) =>
  apiClient(base).POST("/api/v1/apps/token/refresh", {
    body: {
      clientId: inst.clientId,
      clientSecret: use.clientSecret ?? inst.clientSecret,
      refreshToken: use.refreshToken ?? inst.refreshToken,
      slug: inst.merchant.slug,
    },
  });

function assertRefused(answer: Answer, status: number, code: string, what: string) {
  assert.equal(answer.response.status, status, `${what}: ${text(answer)}`);
  assert.equal(errorCode(answer), code, what);
}

/** The same browser (its session cookie) on another instance, as a load balancer sends it. */
const at = (client: Api, base: string) => apiClient(base, { jar: client.jar });

/**
 * Admin API reads on `base` from `loops` back-to-back loops until stopped, each recorded with the
 * moment it was sent: what an app's other threads would send while the revocation happens.
 */
function hammer(base: string, token: string, loops = 2) {
  const sent: Array<{ at: number; status: number }> = [];
  let stopping = false;
  const running = Array.from({ length: loops }, async () => {
    while (!stopping) {
      const at = performance.now();
      const answer = await adminRead(base, token);
      sent.push({ at, status: answer.response.status });
    }
  });
  return {
    sent,
    async stop() {
      stopping = true;
      await Promise.all(running);
    },
  };
}

describe("scale-out: two API and two worker processes on one PostgreSQL and one Redis", { skip }, () => {
  let ctx: TestContext;
  let redis: Awaited<ReturnType<typeof claimRedisDatabase>>;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  const processes: ServiceProcess[] = [];
  let A: string;
  let B: string;
  /** Both directions: revoke through the first instance, check on the second, and the reverse. */
  let directions: Array<[string, string]>;

  const env = () => ({
    DATABASE_URL: TEST_DATABASE_URL!,
    DATABASE_SCHEMA: ctx.schema,
    SECRETS_KEY: secretsKey,
    REDIS_URL: redis.url,
    // The limits are shared, not per instance, only while Redis answers: give a loaded machine
    // room, so the burst below never falls back to per-instance counters (faults-redis covers that).
    REDIS_COMMAND_TIMEOUT_MS: "5000",
    RATE_LIMIT_PER_MINUTE: String(LIMIT),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    // At most 8 attempts open per worker, all of them to the one receiver when it has a backlog:
    // 9 open at once (the barrier below) means both workers are delivering.
    WEBHOOK_CONCURRENCY: "8",
    WEBHOOK_PER_TARGET_CONCURRENCY: "8",
    // No attempt may time out or outlive its lease while the receiver holds answers (below): a
    // second attempt would be a retry, not a fault of the claims this test is about.
    WEBHOOK_TIMEOUT_MS: "120000",
    WEBHOOK_LEASE_MS: "300000",
  });

  before(async () => {
    // The test's own view of the schema (created and migrated here, dropped by close()): checks only.
    ctx = await createTestContext({ SECRETS_KEY: secretsKey });
    redis = await claimRedisDatabase();
    rx = await startReceiver();
    const apis = [startService("api", env(), "api-1"), startService("api", env(), "api-2")];
    processes.push(...apis);
    [A, B] = (await Promise.all(apis.map((p) => p.url()))) as [string, string];
    directions = [
      [A, B],
      [B, A],
    ];
  });
  after(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await rx?.close();
    await redis?.release();
    await ctx?.close();
  });

  it("the per-installation rate limit holds in total: requests split across both APIs get exactly the limit", async () => {
    // Redis is ready on both (a process that started before its connection was up counts in
    // memory until its probe finds Redis; the limit is shared only from then on).
    for (const base of [A, B]) {
      await waitUntil(
        async () => (await apiClient(base).GET("/readyz")).data?.data?.redis === "ok",
        60_000,
        `Redis shared on ${base}`,
      );
    }
    const inst = await installOverHttp(A, B, ["read_products"]);
    // 2x the limit, all at once, half to each instance.
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 2 * LIMIT }, (_, i) => adminRead(i % 2 ? B : A, inst.accessToken)),
    );
    const elapsed = performance.now() - started;
    const statuses = answers.map((a) => a.response.status);
    const accepted = statuses.filter((s) => s === 200).length;
    assert.equal(statuses.filter((s) => s !== 200 && s !== 429).length, 0, `only 200 or 429: ${statuses}`);
    for (const refused of answers.filter((a) => a.response.status === 429)) {
      assert.equal(refused.error!.error.code, "RATE_LIMITED");
      assert.equal(refused.response.headers.get("x-ratelimit-limit"), String(LIMIT));
      assert.equal(refused.response.headers.get("x-ratelimit-remaining"), "0");
      assert.ok(Number(refused.response.headers.get("retry-after")) >= 1);
    }
    if (elapsed < 60_000) {
      // Every request fell in one window: exactly the limit, however they were split.
      assert.equal(accepted, LIMIT, `accepted ${accepted} of ${2 * LIMIT} across two instances`);
      const fromA = answers.filter((a, i) => a.response.status === 200 && i % 2 === 0).length;
      console.log(
        `rate limit: ${accepted} accepted (${fromA} by api-1, ${accepted - fromA} by api-2) in ${Math.round(elapsed)} ms`,
      );
      // ...and the next request is refused by either instance while the window is full.
      for (const base of [A, B]) {
        const at = performance.now();
        const next = await adminRead(base, inst.accessToken);
        if (at - started < 60_000) assert.equal(next.response.status, 429, `next request on ${base}`);
      }
    } else {
      // A machine so slow the burst outlasted the window: the sliding-window bound still holds.
      assert.ok(accepted >= LIMIT && accepted <= LIMIT * Math.ceil(elapsed / 60_000), `accepted ${accepted}`);
    }
    // No instance fell back to counting in its own memory.
    for (const p of processes)
      assert.equal(
        p.logs.filter((r) => /Redis is unavailable/.test(String(r.msg))).length,
        0,
        `${p.name} lost Redis during the burst`,
      );
    // Another installation has its own quota, on both instances.
    const other = await installOverHttp(B, A, ["read_products"]);
    const onA = await adminRead(A, other.accessToken);
    const onB = await adminRead(B, other.accessToken);
    assert.equal(onA.response.status, 200);
    assert.equal(onB.response.status, 200);
    assert.deepEqual(
      [onA.response.headers.get("x-ratelimit-remaining"), onB.response.headers.get("x-ratelimit-remaining")],
      [String(LIMIT - 1), String(LIMIT - 2)],
      "one quota shared by both instances",
    );
  });

  it("an access token revoked (RFC 7009) through one instance is refused by the other on the very next request", async () => {
    for (const [x, y] of directions) {
      const inst = await installOverHttp(x, y, ["read_products"]);
      // Both instances have just accepted the token (whatever they cache, they hold it now).
      assert.equal((await adminRead(y, inst.accessToken)).response.status, 200);
      assert.equal((await adminRead(x, inst.accessToken)).response.status, 200);
      const load = hammer(y, inst.accessToken);
      await waitUntil(() => load.sent.length >= 2, 60_000, "reads in flight on the other instance");
      const revoked = await apiClient(x).POST("/api/v1/oauth/revoke", {
        body: {
          token: inst.accessToken,
          token_type_hint: "access_token",
          client_id: inst.clientId,
          client_secret: inst.clientSecret,
        },
        ...asForm,
      });
      const answeredAt = performance.now();
      assert.equal(revoked.response.status, 200, text(revoked));
      assertRefused(
        await adminRead(y, inst.accessToken),
        401,
        "INVALID_TOKEN",
        "the very next request on the other instance",
      );
      // Every read sent after the revocation answered was refused, by both instances.
      await waitUntil(
        () => load.sent.filter((s) => s.at > answeredAt).length >= 6,
        60_000,
        "reads after the revocation",
      );
      await load.stop();
      const late = load.sent.filter((s) => s.at > answeredAt);
      assert.deepEqual(
        late.filter((s) => s.status !== 401),
        [],
        "a read sent after the revocation had answered was accepted",
      );
      assert.ok(
        load.sent.some((s) => s.at < answeredAt && s.status === 200),
        "the token was in use before",
      );
      assertRefused(await adminRead(x, inst.accessToken), 401, "INVALID_TOKEN", "the revoking instance");
      // Only that token: the refresh token still works, and its new access token is accepted on both.
      const refreshed = await refreshOn(y, inst);
      assert.equal(refreshed.response.status, 200, text(refreshed));
      // Accepted: 200, or 429 when the reads above spent the installation's quota (the limit
      // comes after authentication, so a 429 is an accepted token too).
      for (const base of [x, y]) {
        const read = await adminRead(base, refreshed.data!.data.accessToken);
        assert.ok(
          read.response.status === 200 || read.response.status === 429,
          `the new access token on ${base}: ${read.response.status}`,
        );
      }
    }
  });

  it("a refresh token revoked (RFC 7009) through one instance: its whole family is refused by the other at once", async () => {
    for (const [x, y] of directions) {
      const inst = await installOverHttp(x, y, ["read_products"]);
      assert.equal((await adminRead(y, inst.accessToken)).response.status, 200);
      const revoked = await apiClient(x).POST("/api/v1/oauth/revoke", {
        body: {
          token: inst.refreshToken,
          token_type_hint: "refresh_token",
          client_id: inst.clientId,
          client_secret: inst.clientSecret,
        },
        ...asForm,
      });
      assert.equal(revoked.response.status, 200);
      assertRefused(
        await adminRead(y, inst.accessToken),
        401,
        "INVALID_TOKEN",
        "the family's access token on the other instance",
      );
      assertRefused(
        await refreshOn(y, inst),
        400,
        "INVALID_GRANT",
        "the revoked refresh token on the other instance",
      );
    }
  });

  it("an uninstall through one instance is refused by the other on the very next request", async () => {
    for (const [x, y] of directions) {
      const inst = await installOverHttp(x, y, ["read_products"]);
      assert.equal((await adminRead(y, inst.accessToken)).response.status, 200);
      assert.equal((await adminRead(x, inst.accessToken)).response.status, 200);
      // The merchant's browser session, sent to instance x by the load balancer.
      const uninstalled = await at(inst.merchant.client, x).DELETE(
        "/api/v1/dashboard/stores/{slug}/installations/{clientId}",
        {
          params: { path: { slug: inst.merchant.slug, clientId: inst.clientId } },
        },
      );
      assert.equal(uninstalled.response.status, 200, text(uninstalled));
      assertRefused(
        await adminRead(y, inst.accessToken),
        401,
        "INVALID_TOKEN",
        "the very next request on the other instance",
      );
      assertRefused(await adminRead(x, inst.accessToken), 401, "INVALID_TOKEN", "the uninstalling instance");
      assertRefused(await refreshOn(y, inst), 400, "INVALID_GRANT", "a refresh on the other instance");
    }
  });

  it("a rotated client secret is refused by the other instance on the very next token request", async () => {
    for (const [x, y] of directions) {
      const inst = await installOverHttp(x, y, ["read_products"]);
      // The other instance has just accepted the old secret.
      const warm = await refreshOn(y, inst);
      assert.equal(warm.response.status, 200, text(warm));
      const refreshToken: string = warm.data!.data.refreshToken;
      const rotated = await at(inst.dev.client, x).POST("/api/v1/dashboard/apps/{clientId}/secret", {
        params: { path: { clientId: inst.clientId } },
      });
      assert.equal(rotated.response.status, 200, text(rotated));
      const newSecret: string = rotated.data!.data.clientSecret;
      assertRefused(
        await refreshOn(y, inst, { refreshToken }),
        401,
        "INVALID_CLIENT",
        "the very next token request with the old secret on the other instance",
      );
      // The standard endpoints too (HTTP Basic), on both instances.
      for (const base of [y, x]) {
        const basic = `Basic ${Buffer.from(`${inst.clientId}:${inst.clientSecret}`).toString("base64")}`;
        const token = await apiClient(base, { headers: { authorization: basic } }).POST(
          "/api/v1/oauth/token",
          { body: { grant_type: "refresh_token", refresh_token: refreshToken }, ...asForm },
        );
        assert.equal(token.response.status, 401, text(token));
        assert.equal(token.error!.error, "invalid_client");
      }
      // Nothing was spent by the refused requests: the new secret refreshes on the other instance.
      const fresh = await refreshOn(y, inst, { clientSecret: newSecret, refreshToken });
      assert.equal(fresh.response.status, 200, text(fresh));
      assert.equal((await adminRead(x, fresh.data!.data.accessToken)).response.status, 200);
    }
  });

  it("two workers deliver 1,000 events committed through both APIs: every one, once, never by both at once", async () => {
    const BARRIER = 9; // more than one worker may have in flight (WEBHOOK_CONCURRENCY=8)
    const inst = await installOverHttp(A, B, ["read_products", "manage_webhooks"]);
    const subscribed = await apiClient(B, { headers: { authorization: `Bearer ${inst.accessToken}` } }).POST(
      "/api/v1/apps/api/webhooks",
      { body: { eventName: "product.created", targetUrl: `${rx.url}/fleet` } },
    );
    assert.equal(subscribed.response.status, 201, text(subscribed));

    // The receiver answers nothing until BARRIER attempts are open at once: more than one worker
    // can hold, so both workers are then delivering at the same time. From then on it answers
    // after 5 ms, and notes any delivery that arrives while an attempt of it is still open.
    const open = new Map<string, number>();
    const attemptsOf = new Map<string, number>();
    const overlaps: string[] = [];
    const held: Array<() => void> = [];
    let released = false;
    let maxOpen = 0;
    rx.setResponder((r, res) => {
      if (r.path !== "/fleet") return res.end("ok");
      const id = String(r.headers["x-webhook-id"]);
      attemptsOf.set(id, (attemptsOf.get(id) ?? 0) + 1);
      if (open.get(id)) overlaps.push(id);
      open.set(id, (open.get(id) ?? 0) + 1);
      const answer = () =>
        setTimeout(() => {
          open.set(id, open.get(id)! - 1);
          res.end("ok");
        }, 5);
      const openNow = [...open.values()].reduce((n, v) => n + v, 0);
      maxOpen = Math.max(maxOpen, openNow);
      if (released) return answer();
      held.push(answer);
      if (openNow >= BARRIER) {
        released = true;
        for (const release of held.splice(0)) release();
      }
    });

    const workers = [startService("worker", env(), "worker-1"), startService("worker", env(), "worker-2")];
    processes.push(...workers);
    for (const w of workers)
      await w.waitFor(
        () => w.logs.some((r) => r.msg === "webhook delivery worker started"),
        "the delivery worker to start",
      );

    // 1,000 products through the dashboard, split over both API processes, 8 at a time.
    const started = performance.now();
    const merchant = inst.merchant;
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 1000) {
          const i = next++;
          const created = await at(merchant.client, i % 2 ? B : A).POST(
            "/api/v1/dashboard/stores/{slug}/products",
            {
              params: { path: { slug: merchant.slug } },
              body: flat({ title: `Fleet ${i}`, price: "1.00" }),
            },
          );
          assert.equal(created.response.status, 201, text(created));
        }
      }),
    );
    await waitUntil(() => released, 120_000, `${BARRIER} attempts open at once (both workers delivering)`);
    await waitUntil(() => attemptsOf.size >= 1000, 150_000, "1,000 distinct deliveries");
    const elapsed = performance.now() - started;

    const store = await ctx.platform.db
      .selectFrom("stores")
      .select("id")
      .where("slug", "=", merchant.slug)
      .executeTakeFirstOrThrow();
    // Every delivery recorded as delivered after exactly one attempt.
    await waitUntil(
      async () =>
        (
          await ctx.platform.db
            .selectFrom("webhook_deliveries")
            .select("id")
            .where("store_id", "=", store.id)
            .where("status", "=", "delivered")
            .execute()
        ).length === 1000,
      120_000,
      "1,000 deliveries recorded as delivered",
    );
    const rows = await ctx.platform.db
      .selectFrom("webhook_deliveries")
      .select(["id", "attempts", "status"])
      .where("store_id", "=", store.id)
      .execute();
    assert.equal(rows.length, 1000);
    assert.deepEqual(
      rows.filter((r) => r.attempts !== 1),
      [],
      "with a healthy receiver every delivery takes one attempt",
    );
    assert.deepEqual(overlaps, [], "a delivery was attempted by two workers at once");
    assert.deepEqual(
      [...attemptsOf.entries()].filter(([, n]) => n > 1),
      [],
      "a delivery arrived twice",
    );
    // Each committed event arrived: the event ids in the bodies are exactly the store's events.
    const events = await ctx.platform.db
      .selectFrom("events")
      .select("id")
      .where("store_id", "=", store.id)
      .where("topic", "=", "product.created")
      .execute();
    assert.equal(events.length, 1000);
    const bodies = new Set(
      rx.received
        .filter((r) => r.path === "/fleet")
        .map((r) => (JSON.parse(r.body) as EventBody<"product.created">).id),
    );
    assert.deepEqual([...bodies].sort(), events.map((e) => e.id).sort());
    console.log(
      `two workers: 1,000 events created through two APIs and delivered in ${Math.round(elapsed)} ms (at most ${maxOpen} attempts open at once)`,
    );
    for (const p of processes) assert.ok(p.alive(), `${p.name} exited: ${p.stderr()}`);
  });
});
