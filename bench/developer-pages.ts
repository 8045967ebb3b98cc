/**
 * The developer API's page/perPage list at a million products vs the Admin API's keyset first page
 * (issue 10: the ratio must stay ≤ 2). PostgreSQL only; a schema of its own, dropped at the end
 * unless BENCH_KEEP_SCHEMA names one to reuse.
 *
 *   BENCH_DATABASE_URL=postgres://… node bench/developer-pages.ts [products=1000000]
 *
 * Latency, not throughput: 20 sequential requests through the whole HTTP stack (app.inject: routing,
 * authentication, rate limit, validation, query, serialisation) after 5 warm-up ones; medians.
 * Also EXPLAIN ANALYZE of the queries behind them, and the count(*) the counts replaced.
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { sql } from "kysely";
import pg from "pg";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { Scope } from "../src/contracts/index.ts";
import { openDatabase } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { createPlatform } from "../src/platform.ts";
import { installedApp } from "../test/apps-harness.ts";
import { apiClient, text } from "../test/harness.ts";
import { seedProductsSql } from "./lib/seed-catalogue.ts";

const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error("Set BENCH_DATABASE_URL (PostgreSQL).");
const products = Number(process.argv[2] ?? 1_000_000);
const keep = process.env.BENCH_KEEP_SCHEMA;
const schema = keep ?? `bench_${randomBytes(4).toString("hex")}`;
const config = loadConfig({
  LOG_LEVEL: "silent",
  DEMO_SEED: "false",
  RATE_LIMIT_PER_MINUTE: "100000000",
  DATABASE_URL: url,
  DATABASE_SCHEMA: schema,
});
const database = await openDatabase({ url, schema, poolSize: 10 });
await migrate(database);
const platform = createPlatform({ config, database });
const app = await buildApp(platform);
await app.ready();
const db = platform.db;

try {
  const installed = await installedApp(app, [Scope.read_products]);
  const storeId: string = installed.merchant.store.id;
  const key = await installed.merchant.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
    params: { path: { slug: installed.merchant.slug } },
    body: {
      name: "Bench",
      scopes: [Scope.read_products],
    },
  });
  const developer = apiClient(app, {
    headers: { "x-api-key": key.data!.data.keyId, "x-api-secret": key.data!.data.secret },
  });

  let t = performance.now();
  // One statement, as a bulk import would be; creation times 1 ms apart, ids random.
  await sql`
    ${sql.raw(
      seedProductsSql(`SELECT '${storeId}'::text AS store_id, 'prod_' || substr(md5(i::text), 1, 22) AS id,
           'Product ' || i AS title, 'A product for the benchmark.' AS description, 100 + i % 10000 AS price_minor,
           'SKU-' || i AS sku, i % 50 AS stock, 'active' AS status,
           timestamptz '2026-01-01' + i * interval '1 millisecond' AS created_at,
           timestamptz '2026-01-01' + i * interval '1 millisecond' AS updated_at
    FROM generate_series(1, ${Number(products)}::int) AS i`),
    )}`.execute(db);
  console.log(`seeded ${products} products in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  await sql`VACUUM ANALYZE products`.execute(db);
  await sql`ANALYZE store_row_counts`.execute(db);
  console.log(`VACUUM ANALYZE in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  async function median<A extends { response: Response }>(label: string, call: () => Promise<A>, n = 20) {
    for (let i = 0; i < 5; i++) {
      const res = await call();
      if (res.response.status !== 200) throw new Error(`${label}: ${res.response.status} ${text(res)}`);
    }
    const times: number[] = [];
    let last: A | undefined;
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      last = await call();
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const ms = times[Math.floor(n / 2)]!;
    console.log(
      `${label.padEnd(44)} median ${ms.toFixed(2)} ms (min ${times[0]!.toFixed(2)}, max ${times.at(-1)!.toFixed(2)})`,
    );
    return { ms, last: last! };
  }

  const admin = await median("Admin API first page (limit=100)", () =>
    installed.api.GET("/api/v1/apps/api/products", { params: { query: { limit: 100 } } }),
  );
  const admin50 = await median("Admin API first page (limit=50)", () =>
    installed.api.GET("/api/v1/apps/api/products", { params: { query: { limit: 50 } } }),
  );
  const first = await median("developer API page=1&perPage=100", () =>
    developer.GET("/api/v1/developer/products", { params: { query: { page: 1, perPage: 100 } } }),
  );
  const deep = await median("developer API page=100&perPage=100", () =>
    developer.GET("/api/v1/developer/products", { params: { query: { page: 100, perPage: 100 } } }),
  );
  const refused = await developer.GET("/api/v1/developer/products", {
    params: { query: { page: 101, perPage: 100 } },
  });
  console.log(`page=101&perPage=100: ${refused.response.status} ${JSON.stringify(refused.error!.error)}`);
  console.log(`meta: ${JSON.stringify(first.last.data!.meta)}`);
  console.log(
    `ratio developer first page ÷ Admin first page (limit=100): ${(first.ms / admin.ms).toFixed(2)}`,
  );
  console.log(
    `ratio developer first page ÷ Admin first page (limit=50):  ${(first.ms / admin50.ms).toFixed(2)}`,
  );
  console.log(
    `ratio developer page 100 ÷ Admin first page (limit=100):   ${(deep.ms / admin.ms).toFixed(2)}`,
  );

  const explain = async (label: string, query: string) => {
    const plan = await sql<{
      "QUERY PLAN": string;
    }>`${sql.raw(`EXPLAIN (ANALYZE, BUFFERS) ${query}`)}`.execute(db);
    console.log(`\n-- ${label}\n${plan.rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
  };
  const s = storeId.replaceAll("'", "''");
  await explain(
    "developer total (the counts)",
    `SELECT coalesce(sum(n), 0)::bigint AS n FROM store_row_counts WHERE store_id = '${s}' AND resource = 'products'`,
  );
  for (const offset of [0, 9900])
    await explain(
      `developer page, offset ${offset}`,
      `SELECT * FROM products WHERE store_id = '${s}' ORDER BY created_at DESC, id DESC OFFSET ${offset} LIMIT 100`,
    );
  await explain(
    "Admin API first page",
    `SELECT * FROM products WHERE store_id = '${s}' ORDER BY created_at DESC, id DESC LIMIT 101`,
  );
  await explain(
    "what the total cost before (count(*))",
    `SELECT count(*) FROM products WHERE store_id = '${s}'`,
  );
} finally {
  await app.close();
  await platform.close();
  if (!keep) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
}
