/**
 * Bulk export at a million products (issue 22 part 1), on PostgreSQL:
 *
 * - rows/s of `GET /api/v1/apps/api/export/products` end to end over HTTP: the service as
 *   operators start it, the load client (bench/lib/export-client.ts) in its own process, which
 *   reads the whole body and counts its lines (each run must count exactly the store's rows);
 * - the floor, measured in the same run next to it: `COPY (SELECT * FROM products WHERE store_id
 *   = … ORDER BY id) TO STDOUT` of the same rows through psql, in its own process, into /dev/null;
 * - the same export with gzip (the client decompresses and counts);
 * - the API process's memory: VmRSS before the exports, VmHWM after each run (the export must not
 *   grow it by 50 MB, whatever the store's size). Measured after a warm-up export of a smaller
 *   store (50,000 products), as every part warms up first: a fresh process grows V8's young
 *   generation to its configured size (--max-semi-space-size=16: 48 MB) under its first heavy
 *   load of any kind, which is a property of the start script, not of the export. The cold figure
 *   (VmHWM after the warm-up − VmRSS before it) is printed too.
 *
 * Its own database (`bench_export_<pid>`, created on the server of BENCH_DATABASE_URL and dropped
 * afterwards), so nothing of the shared `test` database is touched. Three runs, medians, the load
 * average printed.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { Scope } from "../src/contracts/index.ts";
import type { BenchOptions } from "./lib/options.ts";
import { BENCH_DATABASE_URL, seedProducts } from "./lib/pg.ts";
import { addFigure, part, printRuns } from "./lib/report.ts";
import { type Proc, ROOT, startService } from "./lib/service.ts";
import { installApp, merchantWithStore } from "./lib/setup.ts";
import { fmt, inTurn, load, median } from "./lib/stats.ts";

const TARGET_ROWS_PER_SECOND = 100_000;
const TARGET_RSS_GROWTH_MB = 50;
const WARM_UP_ROWS = 50_000;

/** VmRSS or VmHWM of a live process, MB. */
function memoryMb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN) / 1024;
}

/** Runs a command in its own process; resolves with its wall time (s), stdout to /dev/null unless `capture`. */
export function timed(
  command: string,
  args: string[],
  capture = false,
): Promise<{ seconds: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const devNull = capture ? null : openSync("/dev/null", "w");
    const started = performance.now();
    const child = spawn(command, args, {
      cwd: ROOT,
      stdio: ["ignore", devNull ?? "pipe", "pipe"],
      env: { ...process.env, PGCONNECT_TIMEOUT: "10" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stderr!.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (devNull !== null) closeSync(devNull);
      if (code !== 0) reject(new Error(`${command} exited ${code}: ${stderr.slice(-2000)}`));
      else resolve({ seconds: (performance.now() - started) / 1000, stdout });
    });
  });
}

interface ClientResult {
  status: number;
  lines: number;
  bytes: number;
  wireBytes: number;
  seconds: number;
}

/** One export downloaded by the load client in its own process. */
export async function download(
  url: string,
  headers: Record<string, string>,
  gzip: boolean,
): Promise<ClientResult> {
  const { stdout } = await timed(
    process.execPath,
    [
      join(ROOT, "bench", "lib", "export-client.ts"),
      url,
      JSON.stringify(headers),
      gzip ? "gzip" : "identity",
    ],
    true,
  );
  return JSON.parse(stdout) as ClientResult;
}

export async function benchExport(o: BenchOptions): Promise<void> {
  const rows = o.millionRows;
  const end = part(`export: ${fmt(rows)} products as JSON Lines over HTTP (bench/export.ts)`, [
    `${o.runs} runs; the load client and psql (COPY floor) each in their own process`,
  ]);
  const database = `bench_export_${process.pid}`;
  const server = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  await server.connect();
  await server.query(`CREATE DATABASE "${database}"`);
  const url = new URL(BENCH_DATABASE_URL);
  url.pathname = `/${database}`;
  url.search = "";
  const databaseUrl = url.toString();
  const client = new pg.Client({ connectionString: databaseUrl });
  let api: Proc | null = null;
  try {
    await client.connect();
    api = await startService("api", {
      RUN_MODE: "api",
      DATABASE_URL: databaseUrl,
      SECRETS_KEY: randomBytes(32).toString("base64"),
      DEMO_SEED: "false",
    });
    const merchant = await merchantWithStore(api.url);
    const app = await installApp(api.url, merchant, [Scope.read_products]);
    const headers = { authorization: `Bearer ${app.pairs[0]!.accessToken}` };
    const seeding = performance.now();
    const storeId = await seedProducts(client, merchant.slug, rows);
    console.log(
      `  seeded ${fmt(rows)} products in ${fmt((performance.now() - seeding) / 1000, 1)} s (one INSERT … SELECT generate_series, ANALYZE)`,
    );
    const exportUrl = `${api.url}/api/v1/apps/api/export/products`;
    // Warm-up: another store's smaller export, through the same code.
    const small = await merchantWithStore(api.url);
    const smallApp = await installApp(api.url, small, [Scope.read_products]);
    await seedProducts(client, small.slug, WARM_UP_ROWS);
    const cold = memoryMb(api.pid, "VmRSS");
    const warm = await download(
      exportUrl,
      { authorization: `Bearer ${smallApp.pairs[0]!.accessToken}` },
      false,
    );
    if (warm.lines !== WARM_UP_ROWS) throw new Error(`warm-up export: ${warm.lines} lines`);
    console.log(
      `  warm-up: ${fmt(WARM_UP_ROWS)} products in ${fmt(warm.seconds, 2)} s; api VmRSS ${fmt(cold)} MB before, VmHWM ${fmt(memoryMb(api.pid, "VmHWM"))} MB after (cold growth ${fmt(memoryMb(api.pid, "VmHWM") - cold)} MB)`,
    );
    const copy = `COPY (SELECT * FROM products WHERE store_id = '${storeId}' ORDER BY id) TO STDOUT`;
    const rssBefore = memoryMb(api.pid, "VmRSS");
    const hwmBefore = memoryMb(api.pid, "VmHWM");
    console.log(`  api before the measured exports: VmRSS ${fmt(rssBefore)} MB, VmHWM ${fmt(hwmBefore)} MB`);

    const perSecond: number[] = [];
    const floor: number[] = [];
    const ratios: number[] = [];
    const gzipped: number[] = [];
    const growth: number[] = [];
    let bytes = 0;
    let wire = 0;
    for (let r = 1; r <= o.runs; r++) {
      const loadAtStart = load();
      // Every other run the floor goes first, so neither always runs on a warmer cache.
      const measureExport = async () => {
        const result = await download(exportUrl, headers, false);
        if (result.status !== 200 || result.lines !== rows)
          throw new Error(`export run ${r}: HTTP ${result.status}, ${result.lines} lines, not ${rows}`);
        bytes = result.bytes;
        return rows / result.seconds;
      };
      const measureCopy = async () =>
        rows / (await timed("psql", [databaseUrl, "-X", "-q", "-c", copy])).seconds;
      const [exported, copied] = await inTurn(r, measureExport, measureCopy);
      const zipped = await download(exportUrl, headers, true);
      if (zipped.status !== 200 || zipped.lines !== rows)
        throw new Error(`gzip run ${r}: HTTP ${zipped.status}, ${zipped.lines} lines`);
      wire = zipped.wireBytes;
      const hwm = memoryMb(api.pid, "VmHWM");
      perSecond.push(exported);
      floor.push(copied);
      ratios.push(exported / copied);
      gzipped.push(rows / zipped.seconds);
      growth.push(hwm - rssBefore);
      console.log(
        `  run ${r}: export ${fmt(exported)} rows/s (${fmt(rows / exported, 2)} s); COPY ${fmt(copied)} rows/s (${fmt(rows / copied, 2)} s); ratio ${fmt(exported / copied, 2)}; gzip ${fmt(rows / zipped.seconds)} rows/s; api VmHWM ${fmt(hwm)} MB (+${fmt(hwm - rssBefore)} MB over VmRSS before); load ${loadAtStart} -> ${load()}`,
      );
    }
    console.log(
      `  body ${fmt(bytes / 2 ** 20, 1)} MB (${fmt(bytes / rows)} bytes a line); gzipped on the wire ${fmt(wire / 2 ** 20, 1)} MB (${fmt(bytes / wire, 1)}×)`,
    );
    const m = printRuns("export rows/s", perSecond, "rows/s");
    const f = printRuns("COPY rows/s", floor, "rows/s");
    const ratio = printRuns("export ÷ COPY", ratios, "", 2);
    const g = printRuns("export with gzip rows/s", gzipped, "rows/s");
    const grown = Math.max(...growth);
    console.log(`  api RSS growth (VmHWM after − VmRSS before): ${growth.map((x) => fmt(x)).join(", ")} MB`);
    addFigure({
      figure: `Bulk export of ${fmt(rows)} products over HTTP (JSON Lines) ÷ COPY (SELECT …) TO STDOUT of the same rows`,
      value: `${fmt(m)} rows/s (gzip ${fmt(g)} rows/s)`,
      floor: `${fmt(f)} rows/s`,
      ratio: fmt(ratio, 2),
      target: `≥ ${fmt(TARGET_ROWS_PER_SECOND)} rows/s`,
      met: m >= TARGET_ROWS_PER_SECOND,
    });
    addFigure({
      figure: `API process RSS growth during ${fmt(rows)}-row exports`,
      value: `${fmt(grown)} MB (VmRSS ${fmt(rssBefore)} MB before, VmHWM ${fmt(median(growth) + rssBefore)} MB median after)`,
      floor: "—",
      ratio: "—",
      target: `< ${TARGET_RSS_GROWTH_MB} MB`,
      met: grown < TARGET_RSS_GROWTH_MB,
    });
  } finally {
    if (api) console.log(`  api peak RSS (VmHWM): ${fmt(await api.stop())} MB`);
    await client.end().catch(() => {});
    await server.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await server.end();
    end();
  }
}
