/**
 * The search benchmark's queries (bench/search.ts) without wrk: one Node.js client in this
 * process asks each query one at a time against the service in its own process (PostgreSQL,
 * BENCH_DATABASE_URL) and prints p50 and p99 per query, three runs each, with the load average.
 * Sequential requests measure the request, not a queue. For a machine without wrk, or a quick
 * look at one change:
 *
 *   node bench/search-quick.ts [products=1000000] [requests per run=100] [filter]
 */
import { loadavg } from "node:os";
import { benchSchema } from "./lib/pg.ts";
import { type Proc, startApiOnSchema } from "./lib/service.ts";
import { merchantWithStore } from "./lib/setup.ts";
import { fmt, median, percentile } from "./lib/stats.ts";
import { searchQueries, seed } from "./search.ts";

const products = Number(process.argv[2] ?? 1_000_000);
const requests = Number(process.argv[3] ?? 100);
const only = process.argv[4] ?? "";
const people = Math.max(1000, Math.round(products / 5));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

const db = await benchSchema("bench_search_quick");
let api: Proc | null = null;
try {
  api = await startApiOnSchema(db.schema);
  const merchant = await merchantWithStore(api.url);
  const seeding = Date.now();
  await seed(db.client, merchant.slug, products, people, people);
  console.log(
    `seeded ${products.toLocaleString("en-US")} products in ${fmt((Date.now() - seeding) / 1000, 1)} s`,
  );
  const headers = { cookie: merchant.client.jar.cookie! };
  const queries = Object.entries(searchQueries(`/api/v1/dashboard/stores/${merchant.slug}`, products)).filter(
    ([name]) => name.includes(only),
  );
  for (const [name, q] of queries) {
    const res = await fetch(`${api.url}${q.path}`, { headers });
    const n = ((await res.json()) as { data?: unknown[] }).data?.length ?? -1;
    if (res.status !== 200 || (q.rows >= 0 ? n !== q.rows : n < 1))
      throw new Error(`${name}: ${res.status}, ${n} rows`);
  }
  console.log(`load average at start ${load()}; ${requests} sequential requests per run`);
  for (const [name, q] of queries) {
    const p50s: number[] = [];
    const p99s: number[] = [];
    for (let run = 0; run < 3; run++) {
      const times: number[] = [];
      for (let i = 0; i < requests + 10; i++) {
        const start = performance.now();
        const res = await fetch(`${api.url}${q.path}`, { headers });
        await res.arrayBuffer();
        if (i >= 10) times.push(performance.now() - start);
      }
      times.sort((a, b) => a - b);
      p50s.push(percentile(times, 50));
      p99s.push(percentile(times, 99));
    }
    console.log(
      `${name.padEnd(44)} p50 ${p50s.map((x) => fmt(x, 2)).join(" / ")} ms (median ${fmt(median(p50s), 2)}), p99 median ${fmt(median(p99s), 2)} ms`,
    );
  }
  console.log(`load average at end ${load()}`);
} finally {
  if (api) await api.stop();
  await db.drop();
}
