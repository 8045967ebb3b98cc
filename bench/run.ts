/**
 * Benchmarks: prints figures and ratios against baselines measured in the same run (machines here
 * are noisy; compare ratios, not absolute numbers). Bounded in requests and time; loopback only.
 *
 *   npm run bench                          # embedded PostgreSQL (PGlite)
 *   BENCH_DATABASE_URL=postgres://… npm run bench
 *
 * 1. Admin API reads over real HTTP (auth + scope + rate limit + query) vs GET /healthz.
 * 2. Keyset pagination: a page deep in a 10,000-product catalogue vs the first page.
 * 3. Webhook engine: events committed -> signed deliveries received, vs raw HTTPS POSTs to the
 *    same receiver at the same concurrency.
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import pino from "pino";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { listenForEvents } from "../src/modules/webhooks/delivery/notifications.ts";
import { createWebhookAgent, sendWebhook } from "../src/modules/webhooks/delivery/sender.ts";
import { createPlatform } from "../src/platform.ts";
import { consent, exchange, REDIRECT, registerApp } from "../test/apps-harness.ts";
import { merchantWithStore } from "../test/harness.ts";
import { startReceiver } from "../test/receiver.ts";

const url = process.env.BENCH_DATABASE_URL;
const schema = url ? `bench_${randomBytes(4).toString("hex")}` : "public";
const config = loadConfig({
  LOG_LEVEL: "silent",
  DEMO_SEED: "false",
  RATE_LIMIT_PER_MINUTE: "100000000",
  WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  ...(url ? { DATABASE_URL: url } : {}),
  DATABASE_SCHEMA: schema,
});
const database = await openDatabase({ url, schema, poolSize: 10 });
await migrate(database);
const platform = createPlatform({ config, database });
const app = await buildApp(platform);
const base = await app.listen({ port: 0, host: "127.0.0.1" });

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** `total` GETs with `concurrency` in flight; returns requests/s and latency percentiles (ms). */
async function load(path: string, headers: Record<string, string>, total: number, concurrency: number) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const t = performance.now();
        const res = await fetch(`${base}${path}`, { headers });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { rps: total / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const fmt = (n: number, d = 1) => n.toFixed(d);
console.log(`database: ${url ? "PostgreSQL server" : "embedded PGlite"}; node ${process.version}\n`);

// --- 1. Admin API reads -------------------------------------------------------------------------
const registered = await registerApp(app, ["read_products", "manage_webhooks"]);
const merchant = await merchantWithStore(app);
const { code } = await consent(merchant, registered.clientId, ["read_products", "manage_webhooks"]);
const tokens = (
  await exchange(app, {
    slug: merchant.slug,
    code,
    redirectUri: REDIRECT,
    clientId: registered.clientId,
    clientSecret: registered.clientSecret,
  })
).data;
const store = (await platform.repos.stores.findBySlug(merchant.slug))!;
const PRODUCTS = 10_000;
const t0 = performance.now();
const rows = Array.from({ length: PRODUCTS }, (_, i) => {
  const at = new Date(Date.now() - (PRODUCTS - i) * 1000);
  return {
    store_id: store.id,
    id: `prod_${randomBytes(16).toString("hex").slice(0, 22)}`,
    title: `Bench ${i}`,
    description: "",
    price_minor: 100 + i,
    sku: null,
    stock: 5,
    status: "active" as const,
    created_at: at,
    updated_at: at,
  };
});
for (let i = 0; i < rows.length; i += 1000)
  await platform.db
    .insertInto("products")
    .values(rows.slice(i, i + 1000))
    .execute();
// What autovacuum does on a server and startEmbeddedMaintenance does on the embedded database.
await database.execScript("ANALYZE");
console.log(`seeded ${PRODUCTS} products in ${fmt((performance.now() - t0) / 1000, 2)} s`);

const auth = { authorization: `Bearer ${tokens.accessToken}` };
const N = 2000;
const C = 16;
await load("/healthz", {}, 200, C);
await load("/api/v1/apps/api/products?limit=50", auth, 200, C);
const health = await load("/healthz", {}, N, C);
const admin = await load("/api/v1/apps/api/products?limit=50", auth, N, C);
console.log("1. Admin API GET /products?limit=50 (token lookup, scope, rate limit, keyset query, 50 rows)");
console.log(
  `   baseline /healthz:    ${fmt(health.rps, 0)} req/s  p50 ${fmt(health.p50, 2)} ms  p99 ${fmt(health.p99, 2)} ms`,
);
console.log(
  `   admin products list:  ${fmt(admin.rps, 0)} req/s  p50 ${fmt(admin.p50, 2)} ms  p99 ${fmt(admin.p99, 2)} ms`,
);
console.log(`   ratio admin/baseline throughput: ${fmt(admin.rps / health.rps, 3)}\n`);

// --- 2. Keyset pagination depth -----------------------------------------------------------------
let cursor: string | null = null;
for (let page = 0; page < 190; page++) {
  const res = await fetch(`${base}/api/v1/apps/api/products?limit=50${cursor ? `&cursor=${cursor}` : ""}`, {
    headers: auth,
  });
  cursor = ((await res.json()) as { meta: { nextCursor: string | null } }).meta.nextCursor;
}
const first = await load("/api/v1/apps/api/products?limit=50", auth, 500, 4);
const deep = await load(`/api/v1/apps/api/products?limit=50&cursor=${cursor}`, auth, 500, 4);
console.log("2. Keyset pagination: page 191 (rows 9,500-9,550) vs page 1");
console.log(`   page 1:   p50 ${fmt(first.p50, 2)} ms;  page 191: p50 ${fmt(deep.p50, 2)} ms`);
console.log(`   ratio deep/first p50: ${fmt(deep.p50 / first.p50, 3)} (1.0 = cost independent of depth)\n`);

// --- 3. Webhook engine --------------------------------------------------------------------------
const rx = await startReceiver((_r, res) => res.end("ok"));
const api = { "content-type": "application/json", ...auth };
await fetch(`${base}/api/v1/apps/api/webhooks`, {
  method: "POST",
  headers: api,
  body: JSON.stringify({ eventName: "product.updated", targetUrl: `${rx.url}/bench` }),
});
const worker = platform.webhooks.createWorker(pino({ level: "silent" }));
const unlisten = await listenForEvents(database, worker.poke, () => {});
worker.start();
const EVENTS = 1000;
const view = { id: "prod_x", title: "x" };
const before = rx.received.length;
const startedEngine = performance.now();
for (let i = 0; i < EVENTS; i += 100) {
  await platform.db.transaction().execute(async (tx) => {
    for (let j = 0; j < 100; j++) {
      await tx
        .insertInto("events")
        .values({
          id: `evt_${randomBytes(11).toString("hex")}`,
          store_id: store.id,
          topic: "product.updated",
          resource_id: "prod_x",
          payload: JSON.stringify(view),
          created_at: new Date(),
        })
        .execute();
    }
  });
}
worker.poke();
await rx.waitFor(before + EVENTS, 120_000);
const engineSeconds = (performance.now() - startedEngine) / 1000;
await unlisten();
await worker.stop();

const agent = createWebhookAgent(config.WEBHOOK_CONCURRENCY);
const body = JSON.stringify({ id: "evt", event: "product.updated", data: view });
let sent = 0;
const startedRaw = performance.now();
await Promise.all(
  Array.from({ length: config.WEBHOOK_PER_TARGET_CONCURRENCY }, async () => {
    while (sent < EVENTS) {
      sent++;
      await sendWebhook({
        url: `${rx.url}/raw`,
        headers: { "content-type": "application/json" },
        body,
        timeoutMs: 5000,
        allowPrivate: true,
        agent,
      });
    }
  }),
);
const rawSeconds = (performance.now() - startedRaw) / 1000;
console.log(
  `3. Webhooks: ${EVENTS} committed events -> signed, logged deliveries (per-target concurrency ${config.WEBHOOK_PER_TARGET_CONCURRENCY})`,
);
console.log(`   baseline raw HTTPS POSTs: ${fmt(EVENTS / rawSeconds, 0)} /s`);
console.log(
  `   delivery engine:          ${fmt(EVENTS / engineSeconds, 0)} /s (fan-out, claim, sign, send, record)`,
);
console.log(`   ratio engine/raw: ${fmt(rawSeconds / engineSeconds, 3)}`);

await rx.close();
await app.close();
if (url) await database.execScript(`DROP SCHEMA "${schema}" CASCADE`);
await platform.close();
