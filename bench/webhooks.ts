/**
 * Webhook delivery engine benchmark, on PostgreSQL (the embedded database belongs to one process,
 * and this benchmark needs several). Every actor is its own process, so none flatters another:
 *
 *   receiver   one local HTTPS receiver (test CA), answers 200 "ok", records arrival times
 *   worker     the service itself: `node src/main.ts` with RUN_MODE=worker
 *   producer   commits outbox events the way the API does (INSERT + pg_notify, one transaction)
 *   floor      raw undici HTTPS POSTs to the same receiver at the same concurrency
 *
 * Per run and per-target concurrency (default 4, and 32):
 *   1. backlog drain: N committed events wait, the worker starts; deliveries/s from the first
 *      delivery to the last, and the start-up (spawn to first delivery)
 *   2. floor: N raw POSTs with the same body size, `perTarget` in flight
 *   3. latency: events committed at R/s for S seconds (each its own transaction); commit to
 *      arrival at the receiver, p50 and p99
 * Three runs; medians; load average before and after; the worker's peak RSS (VmHWM). Also the CPU
 * time (user + system) per delivery of the worker, from the first delivery to the last of the
 * drain and over the steady phase, and of the floor per POST: on a shared machine throughput
 * moves with the neighbours' load, CPU time per unit of work much less.
 *
 *   NODE_EXTRA_CA_CERTS=test/fixtures/tls/ca.pem node bench/webhooks.ts \
 *     [--per-target 4,32] [--runs 3] [--events 5000] [--rate 300] [--seconds 10] \
 *     [--worker-root DIR] [--cpu-prof DIR]
 *   BENCH_DATABASE_URL (default postgres://postgres:postgres@127.0.0.1:5432/test); the benchmark
 *   works in a schema of its own and drops it afterwards.
 */
import { type ChildProcess, fork, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { EVENT, ProductStatus, Scope } from "../src/contracts/index.ts";
import { startCommand } from "./lib/service.ts";

const ROOT = join(import.meta.dirname, "..");
const TLS = join(ROOT, "test", "fixtures", "tls");
const DATABASE_URL = process.env.BENCH_DATABASE_URL || "postgres://postgres:postgres@127.0.0.1:5432/test";
const now = () => performance.timeOrigin + performance.now();

/** A product as the APIs return it: the typical size of a webhook body. */
const PAYLOAD = {
  id: "prod_0000000000000000000000",
  title: "Organic cotton T-shirt, heather grey",
  description: "A soft, breathable T-shirt made of 100% organic cotton. Machine washable.",
  status: ProductStatus.active,
  price: "24.90",
  compareAtPrice: "29.90",
  currency: "EUR",
  sku: "TS-ORG-GREY-M",
  inventory: 120,
  tags: ["apparel", "organic", "t-shirt"],
  createdAt: "2026-11-23T09:00:00.000Z",
  updatedAt: "2026-11-23T09:00:00.000Z",
};

// --- receiver -------------------------------------------------------------------------------------
async function receiver() {
  const arrivals = new Map<string, number>();
  const deliveries = new Set<string>();
  let requests = 0;
  let first = 0;
  let last = 0;
  let waiting: { n: number; reply: () => void } | null = null;
  const server = createServer(
    { key: readFileSync(join(TLS, "server-key.pem")), cert: readFileSync(join(TLS, "server.pem")) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const at = now();
        res.end("ok");
        if (req.url !== "/hook") return;
        requests++;
        if (requests === 1) {
          first = at;
          // The orchestrator reads the worker's CPU time from here to the last delivery.
          process.send!({ cmd: "first" });
        }
        last = at;
        const delivery = String(req.headers["x-webhook-id"]);
        deliveries.add(delivery);
        const event = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string }).id;
        if (!arrivals.has(event)) arrivals.set(event, at);
        if (waiting && deliveries.size >= waiting.n) {
          waiting.reply();
          waiting = null;
        }
      });
    },
  );
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const summary = () => ({ requests, distinct: deliveries.size, first, last });
  process.on("message", (m: { cmd: string; n?: number }) => {
    if (m.cmd === "reset") {
      arrivals.clear();
      deliveries.clear();
      requests = 0;
      first = last = 0;
      process.send!({ cmd: "reset" });
    } else if (m.cmd === "wait") {
      const reply = () => process.send!({ cmd: "wait", ...summary() });
      if (deliveries.size >= m.n!) reply();
      else waiting = { n: m.n!, reply };
    } else if (m.cmd === "arrivals") {
      process.send!({ cmd: "arrivals", arrivals: [...arrivals], ...summary() });
    } else if (m.cmd === "exit") {
      server.closeAllConnections();
      server.close(() => process.exit(0));
    }
  });
  process.send!({ cmd: "ready", port: (server.address() as { port: number }).port });
}

// --- producer -------------------------------------------------------------------------------------
/** Inserts events as the service's outbox does; `backlog` in big transactions, `steady` one per transaction. */
async function producer(args: { schema: string; storeId: string; mode: string; n: number; rate: number }) {
  const client = new pg.Client({ connectionString: DATABASE_URL, options: `-c search_path=${args.schema}` });
  await client.connect();
  const payload = JSON.stringify(PAYLOAD);
  const insert = (count: number) =>
    client.query(
      `INSERT INTO events (id, store_id, topic, resource_id, payload, created_at)
       SELECT 'evt_' || md5(random()::text), $1, 'product.updated', 'prod_x', $2::jsonb, now()
         FROM generate_series(1, $3::int) RETURNING id`,
      [args.storeId, payload, count],
    );
  const commits: Array<[string, number]> = [];
  if (args.mode === "backlog") {
    for (let done = 0; done < args.n; done += 500) {
      await client.query("BEGIN");
      await insert(Math.min(500, args.n - done));
      await client.query("SELECT pg_notify('mp_events', $1)", [args.storeId]);
      await client.query("COMMIT");
    }
  } else {
    const started = now();
    for (let i = 0; i < args.n; i++) {
      // Paced against the schedule, not the previous commit, so a slow commit does not lower the rate.
      const due = started + (i * 1000) / args.rate;
      const wait = due - now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await client.query("BEGIN");
      const { rows } = await insert(1);
      await client.query("SELECT pg_notify('mp_events', $1)", [args.storeId]);
      await client.query("COMMIT");
      commits.push([rows[0].id as string, now()]);
    }
  }
  await client.end();
  process.send!({ cmd: "done", commits });
}

// --- floor ----------------------------------------------------------------------------------------
async function floor(args: { url: string; n: number; concurrency: number; bodyBytes: number }) {
  const { Agent, request } = await import("undici");
  const agent = new Agent({
    connections: args.concurrency,
    connect: { ca: readFileSync(join(TLS, "ca.pem")) },
  });
  const body = JSON.stringify({ ...PAYLOAD, pad: "x".repeat(Math.max(0, args.bodyBytes - 400)) });
  const post = async () => {
    const res = await request(args.url, {
      method: "POST",
      dispatcher: agent,
      headers: { "content-type": "application/json", "x-webhook-id": "raw" },
      body,
    });
    await res.body.text();
  };
  for (let i = 0; i < args.concurrency; i++) await post(); // warm the connections
  let sent = 0;
  const cpuBefore = process.cpuUsage();
  const started = now();
  await Promise.all(
    Array.from({ length: args.concurrency }, async () => {
      while (sent < args.n) {
        sent++;
        await post();
      }
    }),
  );
  const seconds = (now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await agent.close();
  process.send!({ cmd: "done", rate: args.n / seconds, cpuUs: (cpu.user + cpu.system) / args.n });
}

// --- orchestration --------------------------------------------------------------------------------
function child(role: string, args: unknown): ChildProcess {
  return fork(import.meta.filename, [role, JSON.stringify(args)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}

function message<T>(proc: ChildProcess, cmd: string): Promise<T> {
  return new Promise((resolvePromise, reject) => {
    const onMessage = (m: { cmd: string }) => {
      if (m.cmd !== cmd) return;
      proc.off("message", onMessage);
      proc.off("exit", onExit);
      resolvePromise(m as T);
    };
    const onExit = (code: number) => reject(new Error(`child exited (${code}) before ${cmd}`));
    proc.on("message", onMessage);
    proc.once("exit", onExit);
  });
}

async function run<T>(role: string, args: unknown): Promise<T> {
  const proc = child(role, args);
  const result = await message<T>(proc, "done");
  await new Promise((r) => (proc.exitCode === null ? proc.once("exit", r) : r(null)));
  return result;
}

/** User + system CPU time of a process so far, in µs (clock ticks of 10 ms). */
function cpuTimeUs(pid: number): number {
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

export interface WebhookBenchOptions {
  perTargets: number[];
  runs: number;
  events: number;
  rate: number;
  seconds: number;
  /** Another checkout whose worker to measure (comparisons); default this one. */
  workerRoot?: string | undefined;
  cpuProf?: string | undefined;
}

/** Medians per per-target concurrency of drain/s, floor/s, ratio, start-up, p50, p99, worker RSS. */
export type WebhookMedians = Record<number, Record<string, number>>;

export async function benchWebhooks(options: WebhookBenchOptions): Promise<WebhookMedians> {
  const { perTargets, runs, events, rate } = options;
  const steadyEvents = Math.round(rate * options.seconds);
  const workerRoot = resolve(options.workerRoot ?? ROOT);
  const cpuProf = options.cpuProf ? resolve(options.cpuProf) : undefined;

  // Setup with the service's own code: schema, a store, an installed app, one subscription.
  const { loadConfig } = await import("../src/config.ts");
  const { openDatabase } = await import("../src/db/client.ts");
  const { migrate } = await import("../src/db/migrate.ts");
  const { createPlatform } = await import("../src/platform.ts");
  const { buildApp } = await import("../src/app.ts");
  const { installedApp } = await import("../test/apps-harness.ts");
  const { text } = await import("../test/harness.ts");
  const schema = `bench_wh_${randomBytes(4).toString("hex")}`;
  const secretsKey = randomBytes(32).toString("base64");
  const config = loadConfig({
    LOG_LEVEL: "silent",
    DEMO_SEED: "false",
    DATABASE_URL,
    DATABASE_SCHEMA: schema,
    SECRETS_KEY: secretsKey,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  });
  const database = await openDatabase({ url: DATABASE_URL, schema, poolSize: 2 });
  await migrate(database);
  const platform = createPlatform({ config, database });
  const app = await buildApp(platform);
  await app.ready();

  const rx = child("receiver", {});
  const { port } = await message<{ port: number }>(rx, "ready");
  const target = `https://127.0.0.1:${port}/hook`;
  const inst = await installedApp(app, [Scope.read_products, Scope.manage_webhooks]);
  const sub = await inst.api.POST("/api/v1/apps/api/webhooks", {
    body: {
      eventName: EVENT.productUpdated,
      targetUrl: target,
    },
  });
  if (sub.response.status !== 201) throw new Error(`subscription: ${text(sub)}`);
  const store = (await platform.repos.stores.findBySlug(inst.merchant.slug))!;
  const bodyBytes = JSON.stringify({
    id: "evt_00000000000000000000000000000000",
    event: EVENT.productUpdated,
    createdAt: PAYLOAD.createdAt,
    store: { slug: store.slug },
    data: PAYLOAD,
  }).length;
  const db = new pg.Client({ connectionString: DATABASE_URL, options: `-c search_path=${schema}` });
  await db.connect();
  const reset = async () => {
    await db.query("TRUNCATE webhook_attempts, webhook_deliveries");
    await db.query("DELETE FROM events");
    await db.query("VACUUM ANALYZE events, webhook_deliveries, webhook_attempts");
    rx.send({ cmd: "reset" });
    await message(rx, "reset");
  };

  console.log(
    `webhook engine on PostgreSQL; worker ${workerRoot === ROOT ? "this checkout" : workerRoot}; node ${process.version}`,
  );
  console.log(
    `backlog ${events} events; steady ${rate}/s for ${options.seconds} s; body ${bodyBytes} bytes; load avg ${load()}\n`,
  );
  const results: Record<number, Array<Record<string, number>>> = {};
  try {
    for (let r = 1; r <= runs; r++) {
      for (const perTarget of perTargets) {
        await reset();
        await run("producer", { schema, storeId: store.id, mode: "backlog", n: events, rate });
        // What autovacuum does on a running server. Without it the statistics are those of the
        // empty tables analysed by reset(), and a worker's prepared dispatch statement can get a
        // generic plan that rescans the whole backlog for each due event (one run measured 41/s
        // and a 42 s start-up that way, on either sender).
        await db.query("ANALYZE events");
        const start = startCommand();
        const nodeArgs = [...start.nodeArgs, ...(cpuProf ? [`--cpu-prof`, `--cpu-prof-dir=${cpuProf}`] : [])];
        const spawnedAt = now();
        const worker = spawn(process.execPath, [...nodeArgs, join(workerRoot, start.script)], {
          cwd: workerRoot,
          stdio: ["ignore", "ignore", "inherit"],
          env: {
            ...process.env,
            ...start.env,
            NODE_EXTRA_CA_CERTS: join(TLS, "ca.pem"),
            RUN_MODE: "worker",
            DATABASE_URL,
            DATABASE_SCHEMA: schema,
            SECRETS_KEY: secretsKey,
            DEMO_SEED: "false",
            LOG_LEVEL: "warn",
            METRICS_PORT: "0",
            WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
            WEBHOOK_PER_TARGET_CONCURRENCY: String(perTarget),
          },
        });
        try {
          // Worker CPU from the first delivery to the last: start-up (module loading) left out.
          let cpuAtFirst = 0;
          const first = message(rx, "first").then(() => {
            cpuAtFirst = cpuTimeUs(worker.pid!);
          });
          rx.send({ cmd: "wait", n: events });
          const drained = await message<{ first: number; last: number; requests: number; distinct: number }>(
            rx,
            "wait",
          );
          await first;
          const drainCpuUs = (cpuTimeUs(worker.pid!) - cpuAtFirst) / (events - 1);
          const drain = (events - 1) / ((drained.last - drained.first) / 1000);
          const startup = drained.first - spawnedAt;
          const raw = await run<{ rate: number; cpuUs: number }>("floor", {
            url: target.replace("/hook", "/raw"),
            n: events,
            concurrency: perTarget,
            bodyBytes,
          });

          rx.send({ cmd: "reset" });
          await message(rx, "reset");
          const cpuBeforeSteady = cpuTimeUs(worker.pid!);
          const { commits } = await run<{ commits: Array<[string, number]> }>("producer", {
            schema,
            storeId: store.id,
            mode: "steady",
            n: steadyEvents,
            rate,
          });
          rx.send({ cmd: "wait", n: steadyEvents });
          await message(rx, "wait");
          const steadyCpuUs = (cpuTimeUs(worker.pid!) - cpuBeforeSteady) / steadyEvents;
          rx.send({ cmd: "arrivals" });
          const { arrivals } = await message<{ arrivals: Array<[string, number]> }>(rx, "arrivals");
          const arrived = new Map(arrivals);
          const latencies = commits.map(([id, at]) => arrived.get(id)! - at).sort((a, b) => a - b);
          const rss = peakRssMb(worker.pid!);
          const row = {
            drain,
            floor: raw.rate,
            ratio: drain / raw.rate,
            startup,
            p50: pct(latencies, 50),
            p99: pct(latencies, 99),
            duplicates: drained.requests - drained.distinct,
            rss,
            drainCpuUs,
            floorCpuUs: raw.cpuUs,
            cpuRatio: raw.cpuUs / drainCpuUs,
            steadyCpuUs,
          };
          results[perTarget] = [...(results[perTarget] ?? []), row];
          console.log(
            `run ${r} per-target ${perTarget}: drain ${drain.toFixed(0)}/s, floor ${raw.rate.toFixed(0)}/s, ratio ${row.ratio.toFixed(3)}, start-up ${startup.toFixed(0)} ms, commit->attempt p50 ${row.p50.toFixed(1)} ms p99 ${row.p99.toFixed(1)} ms, duplicates ${row.duplicates}, worker VmHWM ${rss.toFixed(0)} MB; CPU µs per delivery: worker ${drainCpuUs.toFixed(0)} draining (floor ${raw.cpuUs.toFixed(0)} per POST, ratio ${row.cpuRatio.toFixed(3)}), ${steadyCpuUs.toFixed(0)} at ${rate}/s; load ${load()}`,
          );
        } finally {
          const exited = new Promise((r) => worker.once("exit", r));
          worker.kill("SIGTERM");
          await exited;
        }
      }
    }
    console.log(`\nmedians of ${runs} runs (load avg now ${load()}):`);
    console.log(
      "| per-target | drain /s | undici floor /s | ratio | start-up ms | p50 ms | p99 ms | worker peak RSS MB | worker CPU µs/delivery draining | floor CPU µs/POST | CPU ratio | worker CPU µs/event steady |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
    const medians: WebhookMedians = {};
    for (const perTarget of perTargets) {
      const rows = results[perTarget] ?? [];
      const m = (k: string) => median(rows.map((row) => row[k]!));
      medians[perTarget] = Object.fromEntries(Object.keys(rows[0] ?? {}).map((k) => [k, m(k)]));
      console.log(
        `| ${perTarget} | ${m("drain").toFixed(0)} | ${m("floor").toFixed(0)} | ${m("ratio").toFixed(3)} | ${m("startup").toFixed(0)} | ${m("p50").toFixed(1)} | ${m("p99").toFixed(1)} | ${m("rss").toFixed(0)} | ${m("drainCpuUs").toFixed(0)} | ${m("floorCpuUs").toFixed(0)} | ${m("cpuRatio").toFixed(3)} | ${m("steadyCpuUs").toFixed(0)} |`,
      );
    }
    return medians;
  } finally {
    rx.send({ cmd: "exit" });
    await db.end();
    await app.close();
    await database.execScript(`DROP SCHEMA "${schema}" CASCADE`);
    await platform.close();
  }
}

async function main() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      "per-target": { type: "string", default: "4,32" },
      runs: { type: "string", default: "3" },
      events: { type: "string", default: "5000" },
      rate: { type: "string", default: "300" },
      seconds: { type: "string", default: "10" },
      "worker-root": { type: "string" },
      "cpu-prof": { type: "string" },
    },
  });
  await benchWebhooks({
    perTargets: values["per-target"].split(",").map(Number),
    runs: Number(values.runs),
    events: Number(values.events),
    rate: Number(values.rate),
    seconds: Number(values.seconds),
    workerRoot: values["worker-root"],
    cpuProf: values["cpu-prof"],
  });
}

// Run directly (or forked as one of its own roles); imported by bench/run.ts, it only exports.
if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  const [role, json] = process.argv.slice(2);
  if (role === "receiver") await receiver();
  else if (role === "producer") await producer(JSON.parse(json!));
  else if (role === "floor") await floor(JSON.parse(json!));
  else await main();
}
