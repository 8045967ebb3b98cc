/**
 * The benchmark suite of issue 10: every figure against a floor measured in the same run.
 *
 *   npm run bench                                     # admin, webhooks, refresh, embedded, memory
 *   npm run bench -- --million                        # and the 1,000,000-product part
 *   npm run bench -- --only admin,refresh --runs 1 --seconds 3
 *
 * Method: the service runs as operators start it (the start script of package.json, configured by
 * environment), each floor is its own process, and the load generator is another (wrk with a Lua
 * script; a small Node.js client for refresh chains, which wrk cannot do). Three runs per figure,
 * each printed, then the median; the load average at the start and end of each part; peak RSS
 * from /proc/<pid>/status (VmHWM). Machines here are shared and noisy: compare ratios, and read
 * absolute numbers with the load average next to them. See docs/performance.md.
 *
 * Needs wrk (apt-get install wrk), PostgreSQL (BENCH_DATABASE_URL, default
 * postgres://postgres:postgres@127.0.0.1:5432/test; each part works in a schema of its own and
 * drops it) and Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379).
 */
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { benchAdmin } from "./admin.ts";
import { benchCatalogue } from "./catalogue.ts";
import { benchCatalogueMigration } from "./catalogue-migration.ts";
import { benchEmbedded } from "./embedded.ts";
import { benchExport } from "./export.ts";
import { benchExportPaused } from "./export-paused.ts";
import { benchFeed } from "./feed.ts";
import { apiPeakRss, type BenchOptions } from "./lib/options.ts";
import { BENCH_DATABASE_URL, BENCH_REDIS_URL } from "./lib/pg.ts";
import { addFigure, part, printTable } from "./lib/report.ts";
import { startCommand, tempDir } from "./lib/service.ts";
import { fmt } from "./lib/stats.ts";
import { findWrk } from "./lib/wrk.ts";
import { benchListen } from "./listen.ts";
import { benchListenLoad } from "./listen-load.ts";
import { benchMillion } from "./million.ts";
import { benchRecover } from "./recover.ts";
import { benchRefresh } from "./refresh.ts";
import { benchSearch } from "./search.ts";
import { benchWebhooks } from "./webhooks.ts";

const PARTS = [
  "admin",
  "catalogue",
  "catalogue-migration",
  "webhooks",
  "recover",
  "refresh",
  "embedded",
  "million",
  "search",
  "listen",
  "listen-load",
  "feed",
  "export",
  "export-paused",
  "memory",
] as const;
type Part = (typeof PARTS)[number];
const HTTP_PARTS: Part[] = [
  "admin",
  "catalogue",
  "embedded",
  "million",
  "search",
  "listen-load",
  "feed",
  "export-paused",
];

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    only: { type: "string" },
    million: { type: "boolean", default: false },
    runs: { type: "string", default: "3" },
    seconds: { type: "string", default: process.env.BENCH_SECONDS ?? "10" },
    connections: { type: "string", default: "50" },
    "latency-connections": { type: "string", default: "4" },
    products: { type: "string", default: "10000" },
    "embedded-products": { type: "string", default: "2000" },
    "million-rows": { type: "string", default: "1000000" },
    "floor-prepared": { type: "boolean", default: false },
    "refresh-chains": { type: "string", default: "16" },
    "webhook-events": { type: "string", default: "5000" },
    "webhook-rate": { type: "string", default: "300" },
    "webhook-seconds": { type: "string", default: "10" },
    "per-target": { type: "string", default: "4,32" },
    "recover-deliveries": { type: "string", default: "100000" },
    "recover-floor-events": { type: "string", default: "20000" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  console.log(`npm run bench -- [--only ${PARTS.join(",")}] [--million] [--runs 3] [--seconds 10]
  [--connections 50] [--latency-connections 4] [--products 10000] [--embedded-products 2000]
  [--million-rows 1000000] [--floor-prepared] [--refresh-chains 16]
  [--webhook-events 5000] [--webhook-rate 300] [--webhook-seconds 10] [--per-target 4,32]
  [--recover-deliveries 100000] [--recover-floor-events 20000]
env: BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_SECONDS (default of --seconds), BENCH_NODE_ARGS (extra node flags of the service and floor processes)`);
  process.exit(0);
}

const only = values.only?.split(",").map((p) => p.trim()) ?? null;
for (const p of only ?? []) {
  if (!PARTS.includes(p as Part)) {
    console.error(`unknown part ${p}; parts: ${PARTS.join(", ")}`);
    process.exit(2);
  }
}
// The million-row parts seed for a while: only when asked for, by --million or by name.
const selected = (p: Part) =>
  only
    ? only.includes(p)
    : (p !== "million" && p !== "search" && p !== "feed" && p !== "export" && p !== "catalogue-migration") ||
      values.million;

const dir = tempDir();
const options: BenchOptions = {
  runs: Number(values.runs),
  seconds: Number(values.seconds),
  connections: Number(values.connections),
  latencyConnections: Number(values["latency-connections"]),
  products: Number(values.products),
  embeddedProducts: Number(values["embedded-products"]),
  millionRows: Number(values["million-rows"]),
  floorPrepared: values["floor-prepared"],
  refreshChains: Number(values["refresh-chains"]),
  webhookEvents: Number(values["webhook-events"]),
  webhookRate: Number(values["webhook-rate"]),
  webhookSeconds: Number(values["webhook-seconds"]),
  webhookPerTarget: values["per-target"].split(",").map(Number),
  dir,
};

async function describeMachine() {
  const start = startCommand();
  let postgres = "unreachable";
  try {
    const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
    await client.connect();
    postgres = (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!
      .v;
    await client.end();
  } catch (error) {
    postgres = `unreachable (${(error as Error).message})`;
  }
  const wrkPath = findWrk();
  let wrkVersion = "not installed";
  if (wrkPath) {
    try {
      execFileSync(wrkPath, ["-v"], { encoding: "utf8", stdio: "pipe" });
    } catch (error) {
      // wrk -v prints its version and exits 1.
      wrkVersion = String((error as { stdout?: string }).stdout ?? "").split("\n")[0] ?? "";
    }
  }
  console.log("merchant platform benchmarks (issue 10)");
  console.log(`  machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${fmt(totalmem() / 2 ** 30, 1)} GB`);
  console.log(
    `  node ${process.version}; service started as: ${Object.entries(start.env)
      .map(([k, v]) => `${k}=${v} `)
      .join("")}node ${[...start.nodeArgs, start.script].join(" ")}`,
  );
  console.log(
    `  PostgreSQL ${postgres} (${BENCH_DATABASE_URL.replace(/\/\/[^@]*@/, "//…@")}); Redis ${BENCH_REDIS_URL}`,
  );
  console.log(`  wrk: ${wrkVersion}`);
  console.log(`  runs ${options.runs}, ${options.seconds} s each; working directory ${dir}`);
}

async function webhooksPart() {
  const end = part("Webhook delivery engine on PostgreSQL (bench/webhooks.ts)");
  try {
    const medians = await benchWebhooks({
      perTargets: options.webhookPerTarget,
      runs: options.runs,
      events: options.webhookEvents,
      rate: options.webhookRate,
      seconds: options.webhookSeconds,
    });
    // The table's figures are at the default per-target concurrency (WEBHOOK_PER_TARGET_CONCURRENCY=4).
    const perTarget = options.webhookPerTarget.includes(4) ? 4 : options.webhookPerTarget[0]!;
    const m = medians[perTarget]!;
    addFigure({
      figure: `Webhook backlog drain to one local HTTPS receiver (per-target ${perTarget})`,
      value: `${fmt(m.drain!)}/s`,
      floor: "—",
      ratio: "—",
      target: "≥ 1,500/s",
      met: m.drain! >= 1500,
    });
    addFigure({
      figure: "… ÷ raw undici HTTPS POSTs to the same receiver at the same concurrency",
      value: `${fmt(m.drain!)}/s`,
      floor: `${fmt(m.floor!)}/s`,
      ratio: fmt(m.ratio!, 2),
      target: "≥ 0.40",
      met: m.ratio! >= 0.4,
    });
    addFigure({
      figure: `Event commit → first attempt, ${options.webhookRate} events/s steady`,
      value: `p50 ${fmt(m.p50!, 1)} ms, p99 ${fmt(m.p99!, 1)} ms`,
      floor: "—",
      ratio: "—",
      target: "p50 < 10 ms, p99 < 50 ms",
      met: m.p50! < 10 && m.p99! < 50,
    });
  } finally {
    end();
  }
}

async function recoverPart() {
  const n = Number(values["recover-deliveries"]);
  const end = part(`Recover ${fmt(n)} failed deliveries on PostgreSQL (bench/recover.ts)`);
  try {
    const m = await benchRecover({
      runs: options.runs,
      deliveries: n,
      floorEvents: Number(values["recover-floor-events"]),
    });
    addFigure({
      figure: `Recover ${fmt(n)} failed deliveries: queued (POST …/recover answered)`,
      value: `${fmt(m.queuedSeconds, 2)} s (${fmt(m.queuedWhileSendingSeconds, 2)} s with the worker sending on the same cores)`,
      floor: "—",
      ratio: "—",
      target: "< 10 s",
      met: m.queuedSeconds < 10,
    });
    addFigure({
      figure: "… sent ÷ the same worker's drain of a backlog of new events (same run)",
      value: `${fmt(m.sentPerSecond)}/s`,
      floor: `${fmt(m.normalPerSecond)}/s`,
      ratio: fmt(m.ratio, 2),
      target: "≥ 0.90 (the engine's normal drain rate)",
      met: m.ratio >= 0.9,
    });
  } finally {
    end();
  }
}

let embeddedPeak = Number.NaN;
const failures: string[] = [];
await describeMachine();
const wrkMissing = !findWrk();
if (wrkMissing)
  console.error("\nwrk is not installed: apt-get install wrk (the HTTP parts cannot run without it)");

const steps: Array<[Part, () => Promise<unknown>]> = [
  ["admin", () => benchAdmin(options)],
  ["catalogue", () => benchCatalogue(options)],
  ["refresh", () => benchRefresh(options)],
  ["webhooks", webhooksPart],
  ["recover", recoverPart],
  [
    "embedded",
    async () => {
      embeddedPeak = (await benchEmbedded(options)).peakRss;
    },
  ],
  ["million", () => benchMillion(options)],
  ["search", () => benchSearch(options)],
  ["listen", () => benchListen(options)],
  ["listen-load", () => benchListenLoad(options)],
  ["feed", () => benchFeed(options)],
  ["export", () => benchExport(options)],
  ["catalogue-migration", () => benchCatalogueMigration(options)],
  ["export-paused", () => benchExportPaused(options)],
];
try {
  for (const [name, step] of steps) {
    if (!selected(name)) continue;
    if (wrkMissing && HTTP_PARTS.includes(name)) {
      failures.push(`${name}: wrk is not installed (apt-get install wrk)`);
      continue;
    }
    try {
      await step();
    } catch (error) {
      console.error(`\n${name} part failed:`, error);
      failures.push(`${name}: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  if (apiPeakRss.length) {
    const worst = apiPeakRss.reduce((a, b) => (b.mb > a.mb ? b : a));
    console.log(`\n== Memory ==\n${apiPeakRss.map((r) => `  ${r.process}: ${fmt(r.mb)} MB`).join("\n")}`);
    addFigure({
      figure: "API process peak RSS under these loads (PostgreSQL mode)",
      value: `${fmt(worst.mb)} MB (${worst.process})`,
      floor: "—",
      ratio: "—",
      target: "< 200 MB",
      met: worst.mb < 200,
    });
  } else if (selected("memory")) {
    console.log("\nmemory: no PostgreSQL API process ran (select admin, refresh or million with it)");
  }
  if (Number.isFinite(embeddedPeak)) {
    addFigure({
      figure: "Embedded process peak RSS (start on a fresh data dir, and load)",
      value: `${fmt(embeddedPeak)} MB`,
      floor: "—",
      ratio: "—",
      target: "< 400 MB",
      met: embeddedPeak < 400,
    });
  }
  printTable();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (failures.length) {
  console.error(`\nnot measured:\n${failures.map((f) => `  ${f}`).join("\n")}`);
  process.exit(1);
}
