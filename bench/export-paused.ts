/**
 * Paused bulk exports (issue 27, item 1), on PostgreSQL: one merchant with 40 key pairs opens two
 * exports on each at once and reads nothing past the headers (bench/lib/paused-exports-client.ts,
 * its own process), while another merchant's key pair reads its products (wrk, its own process).
 *
 * Measured, in each of three runs on one API process started as operators start it:
 * - how many of the 80 exports run (the store's bound) and how many are refused (429);
 * - the API process's memory before, while they are held open, and 2, 10 and 20 s after they
 *   close: VmRSS and VmHWM from /proc, the V8 heap in use from its metrics listener
 *   (nodejs_heap_size_used_bytes); targets: growth < 100 MB while held, back within 30 MB of the
 *   start after they close;
 * - the other merchant's latency (wrk, 4 connections, `GET /api/v1/developer/products`) before and
 *   while the exports are held: target ≤ 2× (p50 and p99).
 *
 * The exporting store holds 20,000 products with 4,000-character descriptions (80 MB of JSON
 * Lines): an unread export never finishes into the sockets' buffers. Its own database
 * (`bench_paused_<pid>`), dropped afterwards.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import { Scope } from "../src/contracts/index.ts";
import type { BenchOptions } from "./lib/options.ts";
import { BENCH_DATABASE_URL, seedProducts } from "./lib/pg.ts";
import { addFigure, part, printRuns } from "./lib/report.ts";
import { seedProductsSql } from "./lib/seed-catalogue.ts";
import { freePort, type Proc, ROOT, startService } from "./lib/service.ts";
import { createApiKey, merchantWithStore } from "./lib/setup.ts";
import { fmt, load, median, sleep } from "./lib/stats.ts";
import { wrk } from "./lib/wrk.ts";

const KEYS = 40;
const PER_KEY = 2;
const EXPORT_PRODUCTS = 20_000;
const DESCRIPTION_CHARS = 4000;
const TARGET_GROWTH_MB = 100;
const TARGET_AFTER_MB = 30;
const TARGET_LATENCY_RATIO = 2;
const AFTER_SAMPLES_S = [2, 10, 20];

function memoryMb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN) / 1024;
}

/** The V8 heap in use (MB), from the process's metrics listener; NaN when it has none. */
async function heapMb(metricsUrl: string): Promise<number> {
  try {
    const text = await (await fetch(metricsUrl)).text();
    return Number(/^nodejs_heap_size_used_bytes (\d+(\.\d+)?)/m.exec(text)?.[1] ?? Number.NaN) / 2 ** 20;
  } catch {
    return Number.NaN;
  }
}

/** Starts the attacker; resolves with its counts once every answer's headers are in. */
function openPaused(url: string, keys: Array<Record<string, string>>) {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, "bench", "lib", "paused-exports-client.ts"), url, JSON.stringify(keys), String(PER_KEY)],
    { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout! });
  const next = () => new Promise<string>((resolve) => lines.once("line", resolve));
  return {
    counts: next().then((line) => JSON.parse(line) as { running: number; refused: number; other: number }),
    /** Closes every connection; resolves once the client says so. */
    async close() {
      const closed = next();
      child.stdin!.write("close\n");
      await closed;
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

export async function benchExportPaused(o: BenchOptions): Promise<void> {
  const end = part(
    "export-paused: 80 paused bulk exports of one store, and another merchant's reads (bench/export-paused.ts)",
    [
      `${o.runs} runs on one API process; ${KEYS} key pairs × ${PER_KEY} exports of ${fmt(EXPORT_PRODUCTS)} products (${DESCRIPTION_CHARS}-character descriptions) left unread; the other merchant's load from wrk (4 connections, ${o.seconds} s)`,
    ],
  );
  const database = `bench_paused_${process.pid}`;
  const server = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  await server.connect();
  await server.query(`CREATE DATABASE "${database}"`);
  const url = new URL(BENCH_DATABASE_URL);
  url.pathname = `/${database}`;
  url.search = "";
  const client = new pg.Client({ connectionString: url.toString() });
  let api: Proc | null = null;
  try {
    await client.connect();
    const metricsPort = await freePort();
    api = await startService("api", {
      RUN_MODE: "api",
      DATABASE_URL: url.toString(),
      SECRETS_KEY: randomBytes(32).toString("base64"),
      DEMO_SEED: "false",
      METRICS_PORT: String(metricsPort),
    });
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const attacker = await merchantWithStore(api.url, "paused");
    const { rows } = await client.query<{ id: string }>("SELECT id FROM stores WHERE slug = $1", [
      attacker.slug,
    ]);
    await client.query(
      seedProductsSql(`SELECT $1::text AS store_id, 'prod_' || substr(md5($2 || i::text), 1, 22) AS id,
              'Paused ' || i AS title, repeat('d', $4::int) AS description, 1000 + i AS price_minor, NULL::text AS sku,
              5 AS stock, 'active' AS status, now() - interval '1 day' AS created_at, now() - interval '1 day' AS updated_at
         FROM generate_series(1, $3::int) AS i`),
      [rows[0]!.id, randomBytes(4).toString("hex"), EXPORT_PRODUCTS, DESCRIPTION_CHARS],
    );
    await client.query("ANALYZE products");
    const keys: Array<Record<string, string>> = [];
    for (let i = 0; i < KEYS; i++) keys.push(await createApiKey(attacker, [Scope.read_products]));
    const victim = await merchantWithStore(api.url, "victim");
    await seedProducts(client, victim.slug, 2000);
    const victimKey = await createApiKey(victim, [Scope.read_products]);
    const victimLoad = (label: string) =>
      wrk({
        base: api!.url,
        requests: [{ path: "/api/v1/developer/products?page=1&perPage=50", headers: victimKey }],
        dir: o.dir,
        seconds: o.seconds,
        connections: 4,
        label,
      });
    // Warm-up: the other merchant's reads and one whole export of the big store, through the same code.
    await victimLoad("paused-warm-up");
    const warm = await fetch(`${api.url}/api/v1/developer/export/products`, { headers: keys[0]! });
    let warmLines = 0;
    for await (const chunk of warm.body!)
      for (const byte of chunk as Uint8Array) if (byte === 10) warmLines++;
    if (warmLines !== EXPORT_PRODUCTS) throw new Error(`warm-up export: ${warmLines} lines`);

    const exportUrl = `${api.url}/api/v1/developer/export/products`;
    const admitted: string[] = [];
    const growth: number[] = [];
    const heapGrowth: number[] = [];
    const afterClose: number[] = [];
    const p50s: number[] = [];
    const p99s: number[] = [];
    for (let r = 1; r <= o.runs; r++) {
      const loadAtStart = load();
      const before = await victimLoad(`paused-before-${r}`);
      const rss0 = memoryMb(api.pid, "VmRSS");
      const heap0 = await heapMb(metricsUrl);
      const paused = openPaused(exportUrl, keys);
      const counts = await paused.counts;
      admitted.push(
        `${counts.running} of ${KEYS * PER_KEY} (${counts.refused} refused${counts.other ? `, ${counts.other} other` : ""})`,
      );
      await sleep(3000);
      const during = await victimLoad(`paused-during-${r}`);
      const rssHeld = memoryMb(api.pid, "VmRSS");
      const heapHeld = await heapMb(metricsUrl);
      const hwm = memoryMb(api.pid, "VmHWM");
      await paused.close();
      const samples: string[] = [];
      let waited = 0;
      let rssAfter = Number.NaN;
      for (const at of AFTER_SAMPLES_S) {
        await sleep((at - waited) * 1000);
        waited = at;
        rssAfter = memoryMb(api.pid, "VmRSS");
        samples.push(`${at} s: ${fmt(rssAfter)} MB (heap ${fmt(await heapMb(metricsUrl))} MB)`);
      }
      growth.push(Math.max(rssHeld, hwm) - rss0);
      heapGrowth.push(heapHeld - heap0);
      afterClose.push(rssAfter - rss0);
      p50s.push(during.p50 / before.p50);
      p99s.push(during.p99 / before.p99);
      console.log(
        `  run ${r}: ${admitted[r - 1]} running; api VmRSS ${fmt(rss0)} MB before (heap ${fmt(heap0)} MB), ${fmt(rssHeld)} MB while held (heap ${fmt(heapHeld)} MB, VmHWM ${fmt(hwm)} MB); after close ${samples.join(", ")}; other merchant p50 ${fmt(before.p50, 2)} -> ${fmt(during.p50, 2)} ms, p99 ${fmt(before.p99, 2)} -> ${fmt(during.p99, 2)} ms (${fmt(before.rps)} -> ${fmt(during.rps)} req/s); load ${loadAtStart} -> ${load()}`,
      );
    }
    const grown = Math.max(...growth);
    const left = median(afterClose);
    const p50 = printRuns("other merchant p50 while held ÷ before", p50s, "", 2);
    const p99 = printRuns("other merchant p99 while held ÷ before", p99s, "", 2);
    printRuns("api RSS growth while held (MB)", growth, "MB");
    printRuns("api heap growth while held (MB)", heapGrowth, "MB");
    printRuns("api RSS 20 s after close − before (MB)", afterClose, "MB");
    addFigure({
      figure: `${KEYS * PER_KEY} paused exports of one store over ${KEYS} key pairs: running`,
      value: admitted.join("; "),
      floor: "—",
      ratio: "—",
      target: "the store's bound (EXPORT_MAX_PER_STORE)",
      met: null,
    });
    addFigure({
      figure: "API RSS growth while they are held / 20 s after they close",
      value: `${fmt(grown)} MB / ${fmt(left)} MB`,
      floor: "—",
      ratio: "—",
      target: `< ${TARGET_GROWTH_MB} MB / < ${TARGET_AFTER_MB} MB`,
      met: grown < TARGET_GROWTH_MB && left < TARGET_AFTER_MB,
    });
    addFigure({
      figure: "Another merchant's latency while they are held ÷ before (p50, p99)",
      value: `${fmt(p50, 2)}×, ${fmt(p99, 2)}×`,
      floor: "—",
      ratio: fmt(Math.max(p50, p99), 2),
      target: `≤ ${TARGET_LATENCY_RATIO}×`,
      met: p50 <= TARGET_LATENCY_RATIO && p99 <= TARGET_LATENCY_RATIO,
    });
  } finally {
    if (api) console.log(`  api peak RSS (VmHWM): ${fmt(await api.stop())} MB`);
    await client.end().catch(() => {});
    await server.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await server.end();
    end();
  }
}
