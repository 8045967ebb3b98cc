/**
 * Recover benchmark (issue 19): how fast `POST /api/v1/apps/api/webhooks/{id}/recover` queues
 * 100,000 failed deliveries, and how fast the engine then sends them, against the same worker's
 * normal drain of a backlog of new events in the same run. On PostgreSQL; every actor its own
 * process, so none flatters another:
 *
 *   receiver   one local HTTPS receiver (test CA), answers 200 "ok", counts distinct x-webhook-id
 *              (bench/webhooks.ts's receiver role)
 *   api        the service, RUN_MODE=api, as operators start it: it answers the recover call
 *   worker     the service, RUN_MODE=worker: it sends what recover queued
 *   producer   commits outbox events as the API does (bench/webhooks.ts's producer role), for the
 *              normal drain
 *   this       the load generator: seeds, calls recover over HTTP, reads the receiver's counts
 *
 * Per run:
 *   1. N failed deliveries of one subscription are seeded in one statement (8 attempts, HTTP 503,
 *      created over the last two hours), then VACUUM ANALYZE, as a server would have them. One
 *      recover call for the last three hours with the worker stopped: its wall time (queued), and
 *      that it queued exactly N. (In production the worker runs elsewhere; here it would take the
 *      same two cores as the API and PostgreSQL.)
 *   2. Sent: the worker started; from the first to the last arrival of the N recovered deliveries
 *      at the receiver, deliveries/s; and that each original x-webhook-id arrived once.
 *   3. The same seed and call with the worker up, sending what each chunk queues: the wall time
 *      on shared cores.
 *   4. Normal drain, the floor: the worker stopped, M new events committed, the worker started;
 *      deliveries/s from the first arrival to the last (what bench/webhooks.ts calls the drain).
 * Three runs; medians; load average before and after; the worker's and the API's peak RSS.
 *
 *   NODE_EXTRA_CA_CERTS=test/fixtures/tls/ca.pem node bench/recover.ts [--runs 3] [--deliveries 100000] [--floor-events 20000]
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { EVENT, ProductStatus, Scope } from "../src/contracts/index.ts";
import { BENCH_DATABASE_URL } from "./lib/pg.ts";
import { freePort, type Proc, ROOT, startCommand, startProcess, startService, TLS } from "./lib/service.ts";
import { fmt, load, median, now } from "./lib/stats.ts";

const WEBHOOKS_BENCH = join(import.meta.dirname, "webhooks.ts");
const HOUR_MS = 3_600_000;

/** A product as the APIs return it: the typical size of a webhook body (as bench/webhooks.ts). */
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

function role(name: string, args: unknown): ChildProcess {
  return fork(WEBHOOKS_BENCH, [name, JSON.stringify(args)], {
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

export interface RecoverBenchOptions {
  runs: number;
  /** Failed deliveries recover queues and the engine sends (default 100,000). */
  deliveries: number;
  /** New events of the normal drain measured beside it (default 20,000). */
  floorEvents: number;
}

export interface RecoverMedians {
  /** The recover call's wall time with the worker stopped. */
  queuedSeconds: number;
  /** The same with the worker up, sending what each chunk queues, on the same cores. */
  queuedWhileSendingSeconds: number;
  queued: number;
  sentPerSecond: number;
  normalPerSecond: number;
  ratio: number;
  duplicates: number;
  workerRss: number;
  apiRss: number;
}

export async function benchRecover(options: RecoverBenchOptions): Promise<RecoverMedians> {
  const n = options.deliveries;
  // Setup with the service's own code: schema, a store, an installed app, one subscription.
  const { loadConfig } = await import("../src/config.ts");
  const { openDatabase } = await import("../src/db/client.ts");
  const { migrate } = await import("../src/db/migrate.ts");
  const { createPlatform } = await import("../src/platform.ts");
  const { buildApp } = await import("../src/app.ts");
  const { installedApp } = await import("../test/apps-harness.ts");
  const { text } = await import("../test/harness.ts");
  const schema = `bench_rec_${randomBytes(4).toString("hex")}`;
  const secretsKey = randomBytes(32).toString("base64");
  const common = {
    DATABASE_URL: BENCH_DATABASE_URL,
    DATABASE_SCHEMA: schema,
    SECRETS_KEY: secretsKey,
    DEMO_SEED: "false",
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  };
  const config = loadConfig({ LOG_LEVEL: "silent", ...common });
  const database = await openDatabase({ url: BENCH_DATABASE_URL, schema, poolSize: 2 });
  await migrate(database);
  const platform = createPlatform({ config, database });
  const app = await buildApp(platform);
  await app.ready();

  const rx = role("receiver", {});
  const { port } = await message<{ port: number }>(rx, "ready");
  const target = `https://127.0.0.1:${port}/hook`;
  const inst = await installedApp(app, [Scope.read_products, Scope.manage_webhooks]);
  const created = await inst.api.POST("/api/v1/apps/api/webhooks", {
    body: {
      eventName: EVENT.productUpdated,
      targetUrl: target,
    },
  });
  if (created.response.status !== 201) throw new Error(`subscription: ${text(created)}`);
  const subscriptionId = created.data!.data.id;
  const store = (await platform.repos.stores.findBySlug(inst.merchant.slug))!;
  const db = new pg.Client({ connectionString: BENCH_DATABASE_URL, options: `-c search_path=${schema}` });
  await db.connect();
  const { rows: subs } = await db.query<{ installation_id: string; app_id: string }>(
    "SELECT installation_id, app_id FROM webhook_subscriptions WHERE id = $1",
    [subscriptionId],
  );
  const sub = subs[0]!;

  const reset = async () => {
    await db.query("TRUNCATE webhook_attempts, webhook_deliveries");
    await db.query("DELETE FROM events");
    rx.send({ cmd: "reset" });
    await message(rx, "reset");
  };
  /** N failed deliveries, as the engine leaves them after 8 attempts answered 503, over the last two hours. */
  const seed = async () => {
    const salt = randomBytes(4).toString("hex");
    const head = JSON.stringify({ id: "__ID__" }).split("__ID__")[0]!;
    const tail = JSON.stringify({
      event: EVENT.productUpdated,
      createdAt: PAYLOAD.createdAt,
      store: { slug: store.slug },
      data: PAYLOAD,
    }).slice(1);
    await db.query(
      `INSERT INTO webhook_deliveries
         (store_id, id, event_id, event_name, subscription_id, installation_id, app_id, target_url, target_host,
          body, status, attempts, next_attempt_at, last_status_code, last_error, created_at, updated_at, completed_at)
       SELECT $1, 'whd_' || substr(md5($2 || 'd' || i), 1, 22), e.id, $3, $4, $5, $6, $7, $8,
              $9 || e.id || '",' || $10, 'failed', 8, now() - interval '1 hour', 503, 'HTTP 503 Service Unavailable',
              now() - interval '2 hours' + i * ($11::float8 * interval '1 ms'), now() - interval '1 hour',
              now() - interval '1 hour'
         FROM generate_series(1, $12::int) i, LATERAL (SELECT 'evt_' || substr(md5($2 || 'e' || i), 1, 22) AS id) e`,
      [
        store.id,
        salt,
        EVENT.productUpdated,
        subscriptionId,
        sub.installation_id,
        sub.app_id,
        target,
        new URL(target).host,
        head,
        tail,
        (2 * HOUR_MS - 60_000) / n,
        n,
      ],
    );
    await db.query("VACUUM ANALYZE webhook_deliveries");
  };

  const start = startCommand();
  const startWorker = async (): Promise<Proc> => {
    const metricsPort = await freePort();
    return startProcess({
      name: "worker",
      script: join(ROOT, start.script),
      nodeArgs: start.nodeArgs,
      port: metricsPort,
      // The worker's metrics listener answers once the worker runs.
      readyPath: "/metrics",
      env: {
        NODE_EXTRA_CA_CERTS: join(TLS, "ca.pem"),
        ...start.env,
        ...common,
        RUN_MODE: "worker",
        LOG_LEVEL: "warn",
        METRICS_HOST: "127.0.0.1",
        METRICS_PORT: String(metricsPort),
      },
    });
  };
  const api = await startService("api", { ...common, RUN_MODE: "api" });

  console.log(
    `recover on PostgreSQL; ${fmt(n)} failed deliveries; normal drain of ${fmt(options.floorEvents)} new events beside it; load avg ${load()}\n`,
  );
  const rows: RecoverMedians[] = [];
  try {
    /** One recover call for the last three hours, over HTTP: its wall time; it must queue all N. */
    const recover = async () => {
      const since = new Date(Date.now() - 3 * HOUR_MS).toISOString();
      const called = now();
      const res = await fetch(`${api.url}/api/v1/apps/api/webhooks/${subscriptionId}/recover`, {
        method: "POST",
        headers: { authorization: `Bearer ${inst.tokens.accessToken}`, "content-type": "application/json" },
        body: JSON.stringify({ since }),
      });
      const answered = now();
      const body = (await res.json()) as { data?: { queued: number } };
      if (res.status !== 200 || body.data?.queued !== n)
        throw new Error(`recover answered ${res.status}: ${JSON.stringify(body)}`);
      return { seconds: (answered - called) / 1000, queued: body.data.queued };
    };
    /** Starts the worker and waits until the receiver has `count` distinct webhook ids. */
    const drain = async (count: number) => {
      rx.send({ cmd: "wait", n: count });
      const arrived = message<{ first: number; last: number; requests: number; distinct: number }>(
        rx,
        "wait",
      );
      // Rejected when the receiver exits early (a failure stops everything): reported there.
      arrived.catch(() => {});
      const worker = await startWorker();
      try {
        const sent = await arrived;
        return {
          perSecond: (count - 1) / ((sent.last - sent.first) / 1000),
          duplicates: sent.requests - sent.distinct,
          rss: worker.peakRssMb(),
        };
      } finally {
        await worker.stop();
      }
    };
    for (let r = 1; r <= options.runs; r++) {
      // 1. Queued with the worker stopped (in production it runs on other machines; here it would
      //    share the two cores with the API and PostgreSQL), then sent from that backlog.
      await reset();
      await seed();
      const alone = await recover();
      const sent = await drain(n);
      const { rows: ids } = await db.query<{ same: boolean }>(
        `SELECT count(*) = $1 AND count(DISTINCT webhook_id) = $1 AS same FROM webhook_deliveries
          WHERE recovery_of IS NOT NULL AND webhook_id = recovery_of`,
        [n],
      );
      if (!ids[0]?.same) throw new Error("recovered deliveries do not carry their originals' webhook ids");
      // 2. Queued while the worker is up and sends what each chunk queues.
      await reset();
      await seed();
      const worker = await startWorker();
      let busy: Awaited<ReturnType<typeof recover>>;
      try {
        busy = await recover();
      } finally {
        await worker.stop();
      }
      // 3. The floor: the same worker's normal drain of a backlog of new events.
      await reset();
      const producer = role("producer", {
        schema,
        storeId: store.id,
        mode: "backlog",
        n: options.floorEvents,
        rate: 0,
      });
      await message(producer, "done");
      const normal = await drain(options.floorEvents);
      const row: RecoverMedians = {
        queuedSeconds: alone.seconds,
        queuedWhileSendingSeconds: busy.seconds,
        queued: alone.queued,
        sentPerSecond: sent.perSecond,
        normalPerSecond: normal.perSecond,
        ratio: sent.perSecond / normal.perSecond,
        duplicates: sent.duplicates,
        workerRss: Math.max(sent.rss, normal.rss),
        apiRss: api.peakRssMb(),
      };
      rows.push(row);
      console.log(
        `run ${r}: queued ${fmt(row.queued)} in ${fmt(row.queuedSeconds, 2)} s (${fmt(row.queuedWhileSendingSeconds, 2)} s with the worker sending meanwhile); sent ${fmt(row.sentPerSecond)}/s, normal drain ${fmt(row.normalPerSecond)}/s, ratio ${fmt(row.ratio, 2)}, duplicates ${row.duplicates}, worker VmHWM ${fmt(row.workerRss)} MB; load ${load()}`,
      );
    }
  } finally {
    await api.stop();
    rx.send({ cmd: "exit" });
    await db.end();
    await app.close();
    await database.execScript(`DROP SCHEMA "${schema}" CASCADE`);
    await platform.close();
  }
  const m = (k: keyof RecoverMedians) => median(rows.map((row) => row[k]));
  const medians = Object.fromEntries(
    Object.keys(rows[0]!).map((k) => [k, m(k as keyof RecoverMedians)]),
  ) as unknown as RecoverMedians;
  console.log(`\nmedians of ${options.runs} runs (load avg now ${load()}):`);
  console.log(
    "| deliveries | queued in s | … with the worker sending, s | sent /s | normal drain /s | ratio | duplicates | worker peak RSS MB | API peak RSS MB |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  console.log(
    `| ${fmt(n)} | ${fmt(medians.queuedSeconds, 2)} | ${fmt(medians.queuedWhileSendingSeconds, 2)} | ${fmt(medians.sentPerSecond)} | ${fmt(medians.normalPerSecond)} | ${fmt(medians.ratio, 2)} | ${fmt(medians.duplicates)} | ${fmt(medians.workerRss)} | ${fmt(medians.apiRss)} |`,
  );
  return medians;
}

async function main() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      runs: { type: "string", default: "3" },
      deliveries: { type: "string", default: "100000" },
      "floor-events": { type: "string", default: "20000" },
    },
  });
  await benchRecover({
    runs: Number(values.runs),
    deliveries: Number(values.deliveries),
    floorEvents: Number(values["floor-events"]),
  });
}

// Run directly; imported by bench/run.ts, it only exports.
if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) await main();
