import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";
import { createPlatform } from "../src/platform.ts";
import { installedApp } from "./apps-harness.ts";
import { flat, SYSTEM_ACTOR } from "./catalogue.ts";
import { createTestContext, type EventBody, type TestContext } from "./harness.ts";
import { postgresBinDir, startTempPostgres, type TempPostgres } from "./pg-server.ts";
import { type ServiceProcess, startService as startProcess } from "./processes.ts";
import { startReceiver } from "./receiver.ts";
import { postgresServerSkipReason } from "./requirements.ts";
import { waitUntil } from "./webhooks-harness.ts";

/**
 * PostgreSQL going away under a running service: a server of the test's own is stopped (fast and
 * immediate shutdown) and started again while real service processes (`node src/main.ts`) serve
 * requests and deliver webhooks, and processes are started while it is down. Every wait polls for
 * a condition with a generous upper bound; nothing depends on how fast the machine is.
 */
const skip = postgresServerSkipReason();
/** An upper bound for one request, far above any answer of a working service on a loaded machine. */
const REQUEST_BOUND_MS = 15_000;
const secretsKey = randomBytes(32).toString("base64");

/** What every service process of this file runs with, on top of processes.ts's defaults. */
const SERVICE_ENV = {
  SECRETS_KEY: secretsKey,
  WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  WEBHOOK_RETRY_BASE_MS: "200",
  WEBHOOK_TIMEOUT_MS: "3000",
  WEBHOOK_LEASE_MS: "5000",
};
const startService = (mode: "api" | "worker", env: Record<string, string>): ServiceProcess =>
  startProcess(mode, { ...SERVICE_ENV, ...env });

/** The database-unavailable warnings of a process that waits for PostgreSQL at start. */
const startRetry = (r: Record<string, unknown>) =>
  r.level === 40 && /database unavailable/i.test(String(r.msg)) && typeof r.retryInMs === "number";

interface Answer {
  status: number | "timeout" | "network";
  ms: number;
  body: string;
  retryAfter: string | null;
}

/** Plain HTTP with a session cookie, each request bounded by REQUEST_BOUND_MS. */
async function call(base: string, method: string, path: string, body?: unknown, cookie?: string) {
  const started = Date.now();
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...(cookie ? { cookie } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(REQUEST_BOUND_MS),
    });
    return {
      status: res.status,
      ms: Date.now() - started,
      body: await res.text(),
      retryAfter: res.headers.get("retry-after"),
      setCookie: res.headers.get("set-cookie"),
    };
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError";
    return {
      status: timedOut ? ("timeout" as const) : ("network" as const),
      ms: Date.now() - started,
      body: String(error),
      retryAfter: null,
      setCookie: null,
    };
  }
}

/** A 503 with the failure envelope, SERVICE_UNAVAILABLE and a Retry-After in seconds. */
function isUnavailableAnswer(a: Answer): boolean {
  if (a.status !== 503 || !a.retryAfter || !/^\d+$/.test(a.retryAfter)) return false;
  try {
    const b = JSON.parse(a.body);
    return b.success === false && b.error?.code === "SERVICE_UNAVAILABLE" && typeof b.message === "string";
  } catch {
    return false;
  }
}

describe("PostgreSQL unavailable, restarting or starting", { skip }, () => {
  let server: TempPostgres;
  const services: ServiceProcess[] = [];
  const contexts: TestContext[] = [];
  before(async () => {
    server = await startTempPostgres(postgresBinDir()!);
  });
  after(async () => {
    // Killed, not drained: a drain may wait on a database this file has just stopped.
    await Promise.all(services.map((s) => s.stop("SIGKILL")));
    for (const ctx of contexts) await ctx.close().catch(() => {});
    await server?.destroy();
  });

  /** The test's own view of a schema on the server: data set-up and checks, in-process. */
  async function contextOn(schema: string) {
    const ctx = await createTestContext(
      { DATABASE_URL: server.url, SECRETS_KEY: secretsKey, WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" },
      { schema },
    );
    contexts.push(ctx);
    return ctx;
  }

  it("a) API under steady requests: PostgreSQL stopped (fast, immediate) and restarted — only 2xx or 503 with Retry-After, no hang, serving again without a restart", async () => {
    const api = startService("api", { DATABASE_URL: server.url, DATABASE_SCHEMA: "fault_api" });
    services.push(api);
    const base = await api.url();
    const signup = await call(base, "POST", "/api/v1/dashboard/auth/signup", {
      email: `fault-${Date.now()}@example.com`,
      password: "correct horse battery",
      name: "Fault Merchant",
    });
    assert.equal(signup.status, 201, signup.body);
    const cookie = signup.setCookie!.split(";")[0]!;
    const slug = `fault-${randomBytes(3).toString("hex")}`;
    const store = await call(base, "POST", "/api/v1/dashboard/stores", { name: "Fault", slug }, cookie);
    assert.equal(store.status, 201, store.body);
    const storePath = `/api/v1/dashboard/stores/${slug}`;

    // Steady load: three readers and one writer, each sending its next request when the last answered.
    const answers: Array<Answer & { at: number }> = [];
    let stopping = false;
    let n = 0;
    const loop = async (next: () => Promise<Answer>) => {
      while (!stopping) answers.push({ ...(await next()), at: Date.now() });
    };
    const loops = [
      loop(() => call(base, "GET", `${storePath}/products?limit=20`, undefined, cookie)),
      loop(() => call(base, "GET", storePath, undefined, cookie)),
      loop(() => call(base, "GET", `${storePath}/products?limit=5`, undefined, cookie)),
      loop(() =>
        call(
          base,
          "POST",
          `${storePath}/products`,
          { title: `P${n++}`, variants: [{ price: "1.00" }] },
          cookie,
        ),
      ),
    ];
    const countSince = (t: number, ok: (a: Answer) => boolean) =>
      answers.filter((a) => a.at > t && ok(a)).length;
    const is2xx = (a: Answer) => typeof a.status === "number" && a.status >= 200 && a.status < 300;

    try {
      await waitUntil(() => countSince(0, is2xx) >= 20, 60_000, "20 answers before the outage");
      for (const mode of ["fast", "immediate"] as const) {
        await server.stop(mode);
        const down = Date.now();
        // Whatever they are: the final check judges every answer.
        await waitUntil(
          () => countSince(down, (a) => !is2xx(a)) >= 10 || !api.alive(),
          60_000,
          `failed answers while PostgreSQL is down (${mode} shutdown)`,
        );
        assert.ok(api.alive(), `the API process exited after a ${mode} shutdown: ${api.stderr()}`);
        await server.start();
        const up = Date.now();
        // Served again by the same process: every reader and the writer get 2xx answers again.
        await waitUntil(
          () => countSince(up, is2xx) >= 20 || !api.alive(),
          60_000,
          `2xx answers after PostgreSQL came back (${mode} shutdown)`,
        );
        assert.ok(
          api.alive(),
          `the API process exited after PostgreSQL came back (${mode}): ${api.stderr()}`,
        );
      }
    } finally {
      stopping = true;
      await Promise.all(loops);
    }

    const bad = answers.filter((a) => !is2xx(a) && !isUnavailableAnswer(a));
    assert.deepEqual(
      bad.slice(0, 5).map((a) => `${a.status} ${a.retryAfter} ${a.body.slice(0, 200)}`),
      [],
      `${bad.length} of ${answers.length} answers were neither 2xx nor 503 + envelope + Retry-After`,
    );
    const slowest = Math.max(...answers.map((a) => a.ms));
    assert.ok(slowest < REQUEST_BOUND_MS, `a request took ${slowest} ms`);
    const unavailable = answers.filter(isUnavailableAnswer).length;
    console.log(
      `a) ${answers.length} answers: ${answers.length - unavailable} 2xx, ${unavailable} 503; slowest ${slowest} ms`,
    );
    // The writer's products that were answered 201 are all there.
    const created = answers.filter((a) => a.status === 201).length;
    const list = await call(base, "GET", `${storePath}/products?limit=250`, undefined, cookie);
    assert.equal(list.status, 200);
    assert.ok(JSON.parse(list.body).data.length >= Math.min(created, 250));
    await api.stop("SIGKILL");
  });

  it("b) delivery running while PostgreSQL restarts (fast, then immediate): every event arrives, the worker stays up", async () => {
    await server.start();
    const ctx = await contextOn("fault_delivery");
    const rx = await startReceiver();
    try {
      const inst = await installedApp(ctx.app, ["read_products", "manage_webhooks"]);
      const sub = await inst.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "product.created",
          targetUrl: `${rx.url}/b`,
        },
      });
      assert.equal(sub.response.status, 201);
      // The receiver can hold its answers, so attempts are certainly in flight when the database goes.
      let holding = true;
      const held: Array<() => void> = [];
      rx.setResponder((_r, res) => {
        if (holding) held.push(() => res.end("ok"));
        else res.end("ok");
      });
      const store = (await ctx.platform.repos.stores.findBySlug(inst.merchant.slug))!;
      const eventIds = new Set<string>();
      const createProducts = async (count: number, prefix: string) => {
        for (let i = 0; i < count; i++)
          await ctx.platform.services.products.create(
            store,
            flat({ title: `${prefix}${i}`, price: "1" }),
            SYSTEM_ACTOR,
          );
        const events = await ctx.platform.db
          .selectFrom("events")
          .select("id")
          .where("store_id", "=", store.id)
          .where("topic", "=", "product.created")
          .execute();
        for (const e of events) eventIds.add(e.id);
      };
      await createProducts(80, "B");

      // A lease far longer than the test: an attempt is repeated only if its outcome was lost.
      const worker = startService("worker", {
        DATABASE_URL: server.url,
        DATABASE_SCHEMA: "fault_delivery",
        WEBHOOK_LEASE_MS: "120000",
        // Held answers must not time out, however slow the machine: that would be a second attempt.
        WEBHOOK_TIMEOUT_MS: "100000",
      });
      services.push(worker);
      const delivered = () => new Set(rx.received.map((r) => JSON.parse(r.body).id as string));
      for (const mode of ["fast", "immediate"] as const) {
        holding = true;
        // WEBHOOK_PER_TARGET_CONCURRENCY (4) attempts at the receiver, waiting for their answers.
        await worker.waitFor(() => held.length >= 4, "attempts in flight");
        const before = worker.logs.length;
        await server.stop(mode);
        // The worker meets the outage (and says so at warn) ...
        await worker.waitFor(
          () => worker.logs.slice(before).some((r) => (r.level as number) >= 40),
          `the worker to notice the ${mode} shutdown`,
        );
        // ... and the receiver answers the attempts in flight while the database is down.
        holding = false;
        for (const answer of held.splice(0)) answer();
        await server.start();
      }
      // Events committed after the outage are delivered too (notifications or polling resumed).
      await createProducts(5, "After");
      await waitUntil(
        () => [...eventIds].every((id) => delivered().has(id)) || !worker.alive(),
        90_000,
        "every event delivered after the restarts",
      );
      assert.ok(worker.alive(), `the worker process exited: ${worker.stderr()}`);
      assert.equal([...eventIds].filter((id) => !delivered().has(id)).length, 0);
      await waitUntil(
        async () =>
          (
            await ctx.platform.db
              .selectFrom("webhook_deliveries")
              .select("id")
              .where("status", "!=", "delivered")
              .execute()
          ).length === 0,
        60_000,
        "every delivery recorded as delivered",
      );
      // The outcomes of the attempts in flight during the outages were kept, not lost and sent again.
      const attempts = await ctx.platform.db
        .selectFrom("webhook_attempts")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      console.log(`b) ${eventIds.size} events, ${rx.received.length} requests received`);
      assert.equal(rx.received.length, eventIds.size, "an attempt was sent again: its outcome was lost");
      assert.equal(Number(attempts.n), eventIds.size, "every attempt is in the delivery log once");
      await worker.stop("SIGKILL");
    } finally {
      await rx.close();
    }
  });

  it("c) API and worker started while PostgreSQL is down: they log retries, stay up, then serve and deliver", async () => {
    await server.stop("fast");
    const env = { DATABASE_URL: server.url, DATABASE_SCHEMA: "fault_start" };
    const api = startService("api", env);
    const worker = startService("worker", env);
    services.push(api, worker);
    for (const [name, s] of [
      ["api", api],
      ["worker", worker],
    ] as const) {
      await s.waitFor(() => s.logs.filter(startRetry).length >= 2, `${name}: two start retries`);
    }
    await server.start();
    const base = await api.url();
    await waitUntil(
      async () => (await call(base, "GET", "/readyz")).status === 200,
      60_000,
      "the API to be ready",
    );
    await worker.waitFor(
      () => worker.logs.some((r) => r.msg === "webhook delivery worker started"),
      "the worker to start",
    );

    const ctx = await contextOn("fault_start");
    const rx = await startReceiver();
    try {
      const inst = await installedApp(ctx.app, ["read_products", "manage_webhooks"]);
      await inst.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "product.created",
          targetUrl: `${rx.url}/c`,
        },
      });
      const store = (await ctx.platform.repos.stores.findBySlug(inst.merchant.slug))!;
      await ctx.platform.services.products.create(store, flat({ title: "First", price: "1" }), SYSTEM_ACTOR);
      await rx.waitFor(1, 60_000);
      assert.equal((JSON.parse(rx.received[0]!.body) as EventBody).event, "product.created");
      // The API process answers real requests on the same database.
      const health = await call(base, "GET", "/api/v1/dashboard/stores", undefined, "mp_session=nope");
      assert.equal(health.status, 401);
      assert.ok(api.alive() && worker.alive());
      const retries = api.logs.filter(startRetry);
      assert.ok(
        retries.every((r) => typeof r.retryInMs === "number" && r.retryInMs > 0),
        "each retry is logged with the next delay",
      );
    } finally {
      await rx.close();
    }
  });
});

describe("PostgreSQL that accepts connections but never answers", () => {
  it("answers 503 with Retry-After within the connect time-out instead of hanging", async () => {
    // A blackholed or wedged server: TCP connects, the start-up handshake never gets an answer.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    const config = loadConfig({
      LOG_LEVEL: "silent",
      DEMO_SEED: "false",
      DATABASE_URL: `postgres://app@127.0.0.1:${port}/app`,
      DATABASE_CONNECT_TIMEOUT_MS: "300",
    });
    const database = await openDatabase({
      url: config.DATABASE_URL,
      poolSize: 2,
      connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    });
    const platform = createPlatform({ config, database });
    const app = await buildApp(platform);
    try {
      const answers = await Promise.all(
        [1, 2, 3, 4].map(async () => {
          let timer: NodeJS.Timeout | undefined;
          const bound = new Promise<"hung">((resolve) => {
            timer = setTimeout(() => resolve("hung"), REQUEST_BOUND_MS);
          });
          const res = await Promise.race([
            app.inject({ method: "GET", url: "/api/v1/dashboard/stores", cookies: { mp_session: "mps_x" } }),
            bound,
          ]);
          clearTimeout(timer);
          return res;
        }),
      );
      for (const res of answers) {
        assert.notEqual(res, "hung", `a request did not answer within ${REQUEST_BOUND_MS} ms`);
        if (res === "hung") continue;
        assert.equal(res.statusCode, 503, res.body);
        assert.equal(res.json().error.code, "SERVICE_UNAVAILABLE");
        assert.match(String(res.headers["retry-after"]), /^[1-9]\d*$/);
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
      await app.close();
      await platform.close().catch(() => {});
    }
  });
});
