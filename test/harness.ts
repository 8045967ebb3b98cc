import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import type { Kysely } from "kysely";
import pg from "pg";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import type { Clock } from "../src/lib/clock.ts";
import type { App } from "../src/lib/http/types.ts";
import type { PasswordHashing } from "../src/modules/accounts/password.ts";
import { seedDemo } from "../src/modules/demo/demo-seed.ts";
import type { VersionSpec } from "../src/modules/versions/api-versions.ts";
import { createPlatform, type Platform } from "../src/platform.ts";
import { apiClient, type EventData, type EventName, type Json, text } from "./api-client.ts";
import { demoTemplate, embeddedTemplate } from "./db-template.ts";

/**
 * Test harness: a real application on a real database. By default an in-memory embedded
 * PostgreSQL (PGlite); with TEST_DATABASE_URL, a fresh schema on that server, dropped afterwards.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379";

/**
 * A clock the test can move forward; starts at the real time. A `frozen` clock moves only when
 * the test advances it, for assertions about windows and lifetimes that must not depend on how
 * long the machine takes to send the requests (a burst of 181 requests may take seconds on a
 * busy machine).
 */
export function createTestClock(
  options: { frozen?: boolean; startAt?: number } = {},
): Clock & { advance(ms: number): void } {
  const start = Date.now();
  let offset = (options.startAt ?? start) - start;
  return {
    now: () => new Date((options.frozen ? start : Date.now()) + offset),
    advance: (ms: number) => {
      offset += ms;
    },
  };
}

export interface TestContext {
  app: App;
  platform: Platform;
  clock: ReturnType<typeof createTestClock>;
  schema: string;
  /** The demo merchant's sign-in, with `{ demo: true }`. */
  demo?: { email: string; password: string };
  close(): Promise<void>;
}

export async function createTestContext(
  env: Record<string, string> = {},
  options: {
    redis?: boolean;
    schema?: string;
    frozenClock?: boolean;
    /** Where the clock starts (ms since the epoch; default now): a story whose answers hold dates. */
    startAt?: number;
    /** The API's versions (default: the platform's own), for a test of versions. */
    apiVersions?: readonly VersionSpec[];
    /** Password hashing to use instead of argon2id (to count verifications, for example). */
    passwords?: PasswordHashing;
    /**
     * With the demo store (`seedDemo`, 90 days of history). Embedded: from a template the seed made
     * once (test/db-template.ts), the clock starting at the instant it was seeded; PostgreSQL: seeded
     * here.
     */
    demo?: boolean;
    /**
     * A database as an earlier release left it: the migrations before `before`, then `seed` (rows in
     * that schema), then the rest, as an upgraded server applies them at its start.
     */
    upgradeFrom?: { before: string; seed: (db: Kysely<unknown>) => Promise<void> };
  } = {},
): Promise<TestContext> {
  const schema = options.schema ?? (TEST_DATABASE_URL ? `test_${randomBytes(6).toString("hex")}` : "public");
  const config = loadConfig({
    LOG_LEVEL: "silent",
    DEMO_SEED: "false",
    ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL } : {}),
    DATABASE_SCHEMA: schema,
    ...env,
  });
  const demo = options.demo && !config.DATABASE_URL ? await demoTemplate() : undefined;
  const database = await openDatabase({
    url: config.DATABASE_URL,
    schema,
    poolSize: 5,
    // As main.ts opens it: a test's DATABASE_CONNECT_TIMEOUT_MS is the pool's wait.
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    embeddedTemplate:
      config.DATABASE_URL || options.upgradeFrom ? undefined : (demo?.dump ?? (await embeddedTemplate())),
  });
  if (options.upgradeFrom) {
    await migrate(database, { before: options.upgradeFrom.before });
    await options.upgradeFrom.seed(database.db as unknown as Kysely<unknown>);
  }
  await migrate(database); // nothing left to apply when started from the template
  const clock = createTestClock({
    frozen: options.frozenClock ?? false,
    startAt: demo?.seededAt ?? options.startAt,
  });
  const redis = options.redis ? new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 2 }) : null;
  const platform = createPlatform({
    config,
    database,
    clock,
    redis,
    passwords: options.passwords,
    ...(options.apiVersions ? { apiVersions: options.apiVersions } : {}),
  });
  let signIn = demo && { email: demo.email, password: demo.password };
  if (options.demo && !demo) {
    const seeded = await seedDemo(platform);
    await seeded.history!();
    signIn = { email: seeded.email, password: seeded.password! };
  }
  // A platform whose app fails to build is closed here: its pools and timers would keep the test
  // file running after the failure.
  let app: App;
  try {
    app = await buildApp(platform);
    await app.ready();
  } catch (error) {
    await platform.close();
    if (TEST_DATABASE_URL && !options.schema) await dropSchema(schema);
    throw error;
  }
  return {
    app,
    platform,
    clock,
    schema,
    ...(signIn ? { demo: signIn } : {}),
    async close() {
      await app.close();
      await platform.close();
      if (TEST_DATABASE_URL && !options.schema) await dropSchema(schema);
    },
  };
}

export async function dropSchema(schema: string): Promise<void> {
  if (!TEST_DATABASE_URL) return;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

export * from "./api-client.ts";

let counter = 0;
export function uniqueEmail(prefix = "merchant"): string {
  return `${prefix}-${Date.now()}-${counter++}@example.com`;
}

/** Signs up a merchant with a store; returns the signed-in client (`api`) and the store's slug. */
export async function merchantWithStore(app: App, slug?: string) {
  const client = apiClient(app);
  const email = uniqueEmail();
  const password = "correct horse battery";
  const signup = await client.POST("/api/v1/dashboard/auth/signup", {
    body: { email, password, name: "Test Merchant" },
  });
  if (signup.response.status !== 201)
    throw new Error(`signup failed: ${signup.response.status} ${text(signup)}`);
  const storeSlug = slug ?? `store-${randomBytes(4).toString("hex")}`;
  const store = await client.POST("/api/v1/dashboard/stores", {
    body: { name: "Test Store", slug: storeSlug },
  });
  if (store.response.status !== 201 || !store.data)
    throw new Error(`store failed: ${store.response.status} ${text(store)}`);
  return {
    client,
    email,
    password,
    slug: storeSlug,
    store: store.data.data,
    base: `/api/v1/dashboard/stores/${storeSlug}`,
  };
}

/** Rows of the outbox, oldest first. */
export async function outbox(platform: Platform, storeId?: string) {
  let q = platform.db.selectFrom("events").selectAll().orderBy("seq");
  if (storeId) q = q.where("store_id", "=", storeId);
  return q.execute();
}

/** The outbox's events of one topic, oldest first, their payload typed as the event's `data`. */
export async function outboxOf<E extends EventName>(platform: Platform, topic: E, storeId?: string) {
  const rows = (await outbox(platform, storeId)).filter((e) => e.topic === topic);
  // The outbox keeps an event's data as its webhooks send it: what the document declares for the topic.
  return rows.map((row) => ({ ...row, payload: row.payload as EventData<E> }));
}

/**
 * `app.inject` that also answers for a Server-Sent Events operation (a stream never ends): a
 * `text/event-stream` answer is its status and headers, and the stream is closed; any other answer
 * is read whole, as inject would. For the walks over every operation (scopes, the fuzzer), whose
 * paths come from the document at run time: the body is read as plain JSON.
 */
export async function injectAny(
  app: App,
  options: { method: string; url: string; headers?: Record<string, string>; payload?: string },
): Promise<{ statusCode: number; headers: Record<string, unknown>; body: string; json(): Json }> {
  const res = await app.inject({ ...(options as { method: "GET"; url: string }), payloadAsStream: true });
  const stream = res.stream();
  let body = "";
  if (String(res.headers["content-type"] ?? "").startsWith("text/event-stream")) {
    stream.destroy();
  } else {
    for await (const chunk of stream) body += String(chunk);
  }
  return { statusCode: res.statusCode, headers: res.headers, body, json: () => JSON.parse(body) };
}
