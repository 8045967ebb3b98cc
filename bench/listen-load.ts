/**
 * What one installation's listen streams cost everyone else (issue 18, item 2). On PostgreSQL, the
 * service started as operators start it (RUN_MODE=all), wrk in its own process as the other
 * tenant, the attacker's streams and the event load from this process:
 *
 * - another tenant's Admin API latency (wrk, p50 / p99 / max) alone, and while one installation
 *   holds the cap's worth of streams (having asked for 50) in a store where orders are placed at a
 *   steady rate: the ratio is the figure (target: within 2x);
 * - the same tenant's latency while 100 streams (LISTEN_MAX_STREAMS=100, the most the setting
 *   allows) close at once, against its latency alone in the same run;
 * - an order's answer time with 16,000 disconnected sessions in its store (rows inserted
 *   directly, as the attack left them before) against none, and the rows the order wrote for
 *   listen sessions (0: streams read the event feed).
 *
 * Three runs of each, medians; load average at the start and end of the part.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { Agent, fetch } from "undici";
import { EVENT, Scope } from "../src/contracts/index.ts";
import { text } from "../test/api-client.ts";
import type { BenchOptions } from "./lib/options.ts";
import { BENCH_DATABASE_URL, benchSchema } from "./lib/pg.ts";
import { addFigure, part, printRuns } from "./lib/report.ts";
import { type Proc, startService } from "./lib/service.ts";
import { installApp, merchantWithStore } from "./lib/setup.ts";
import { fmt, median, percentile, sleep } from "./lib/stats.ts";
import { type WrkResult, wrk } from "./lib/wrk.ts";

const ASKED_STREAMS = 50;
const CLOSING_STREAMS = 100;
const IDLE_SESSIONS = 16_000;
const ORDERS_PER_SECOND = 20;

/** A store with a product and a customer, and a way to place orders in it. */
async function shop(url: string) {
  const merchant = await merchantWithStore(url);
  const path = { slug: merchant.slug };
  const product = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
    params: { path },
    body: { title: "Mug", variants: [{ price: "9.00", inventoryQuantity: 10_000_000 }] },
  });
  const customer = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
    params: { path },
    body: { email: `load-${randomBytes(4).toString("hex")}@example.com`, firstName: "Load" },
  });
  const order = async () => {
    const started = performance.now();
    const res = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path },
      body: {
        customerId: customer.data!.data.id,
        lineItems: [{ productId: product.data!.data.id, quantity: 1 }],
      },
    });
    if (res.response.status !== 201) throw new Error(`order: ${res.response.status} ${text(res)}`);
    return performance.now() - started;
  };
  return { merchant, order };
}

/** Opens `n` listen streams at once with `token`; answers the open ones and how many were refused. */
async function openStreams(url: string, token: string, n: number, dispatcher: Agent) {
  const results = await Promise.all(
    Array.from({ length: n }, async () => {
      const controller = new AbortController();
      const res = await fetch(`${url}/api/v1/apps/api/webhooks/stream?events=${EVENT.orderCreated}`, {
        headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
        signal: controller.signal,
        dispatcher,
      });
      if (res.status !== 200) {
        await res.arrayBuffer();
        return { status: res.status, close: () => {} };
      }
      // Read (and drop) what arrives, as a client does, until closed.
      const reader = res.body!.getReader();
      void (async () => {
        try {
          for (;;) if ((await reader.read()).done) return;
        } catch {
          // closed
        }
      })();
      return { status: 200, close: () => controller.abort() };
    }),
  );
  return {
    open: results.filter((r) => r.status === 200),
    refused: results.filter((r) => r.status === 429).length,
  };
}

/** Orders placed at a steady rate until `stop` resolves. */
async function steadyOrders(order: () => Promise<number>, stop: Promise<unknown>) {
  let done = false;
  void stop.then(() => {
    done = true;
  });
  let placed = 0;
  const started = performance.now();
  while (!done) {
    const due = started + (placed * 1000) / ORDERS_PER_SECOND;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    await order();
    placed++;
  }
  return placed;
}

export async function benchListenLoad(o: BenchOptions): Promise<void> {
  const end = part("listen-load: one installation's listen streams, seen by another tenant", [
    `${o.runs} runs; wrk ${o.latencyConnections} connections for ${o.seconds} s per figure as the other tenant (GET /products, limit 50)`,
  ]);
  const db = await benchSchema("bench_listen_load");
  let api: Proc | null = null;
  const dispatcher = new Agent({ connections: 256 });
  const victimLatency = async (url: string, token: string, label: string): Promise<WrkResult> =>
    wrk({
      base: url,
      requests: [
        { path: "/api/v1/apps/api/products?limit=50", headers: { authorization: `Bearer ${token}` } },
      ],
      dir: o.dir,
      seconds: o.seconds,
      connections: o.latencyConnections,
      label,
    });
  const env = {
    RUN_MODE: "all",
    DATABASE_URL: BENCH_DATABASE_URL,
    DATABASE_SCHEMA: db.schema,
    SECRETS_KEY: randomBytes(32).toString("base64"),
    DEMO_SEED: "false",
  };
  try {
    // 1. The cap's worth of streams, with events flowing.
    api = await startService("api", env);
    const victim = await shop(api.url);
    const victimApp = await installApp(api.url, victim.merchant, [Scope.read_products]);
    const victimToken = victimApp.pairs[0]!.accessToken;
    for (let i = 0; i < 200; i++) await victim.order(); // some rows to list
    const attacker = await shop(api.url);
    const attackerApp = await installApp(api.url, attacker.merchant, [
      Scope.read_orders,
      Scope.manage_webhooks,
    ]);
    const attackerToken = attackerApp.pairs[0]!.accessToken;
    const alone: WrkResult[] = [];
    const loaded: WrkResult[] = [];
    let accepted = 0;
    let refused = 0;
    for (let run = 0; run < o.runs; run++) {
      alone.push(await victimLatency(api.url, victimToken, `alone-${run}`));
      const streams = await openStreams(api.url, attackerToken, ASKED_STREAMS, dispatcher);
      accepted = streams.open.length;
      refused = streams.refused;
      let stop!: () => void;
      const stopped = new Promise<void>((r) => {
        stop = r;
      });
      const ordering = steadyOrders(attacker.order, stopped);
      loaded.push(await victimLatency(api.url, victimToken, `loaded-${run}`));
      stop();
      const placed = await ordering;
      for (const s of streams.open) s.close();
      console.log(
        `  run ${run + 1}: alone p50 ${fmt(alone[run]!.p50, 2)} ms p99 ${fmt(alone[run]!.p99, 2)} ms; with ${accepted} streams open (${refused} of ${ASKED_STREAMS} refused) and ${placed} orders: p50 ${fmt(loaded[run]!.p50, 2)} ms p99 ${fmt(loaded[run]!.p99, 2)} ms`,
      );
      await sleep(500);
    }
    const p50Ratio = printRuns(
      "other tenant p50, streams open / alone",
      loaded.map((l, i) => l.p50 / alone[i]!.p50),
      "x",
      2,
    );
    const p99Ratio = printRuns(
      "other tenant p99, streams open / alone",
      loaded.map((l, i) => l.p99 / alone[i]!.p99),
      "x",
      2,
    );
    addFigure({
      figure: `listen: other tenant's latency with ${accepted} streams open (of ${ASKED_STREAMS} asked), p50 / p99`,
      value: `${fmt(median(loaded.map((l) => l.p50)), 2)} / ${fmt(median(loaded.map((l) => l.p99)), 2)} ms`,
      floor: `${fmt(median(alone.map((l) => l.p50)), 2)} / ${fmt(median(alone.map((l) => l.p99)), 2)} ms alone`,
      ratio: `${fmt(p50Ratio, 2)} / ${fmt(p99Ratio, 2)}`,
      target: "<= 2",
      met: p50Ratio <= 2 && p99Ratio <= 2,
    });

    // 2. Orders with 16,000 disconnected sessions in the store, against none.
    const pool = new pg.Client({ connectionString: BENCH_DATABASE_URL });
    await pool.connect();
    await pool.query(`SET search_path TO "${db.schema}"`);
    const timeOrders = async () => {
      const times: number[] = [];
      for (let i = 0; i < 100; i++) times.push(await attacker.order());
      return percentile(
        times.sort((a, b) => a - b),
        50,
      );
    };
    const listenRows = async () =>
      Number(
        (
          await pool.query(
            "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'webhook_listen_%' AND table_name <> 'webhook_listen_sessions'",
            [db.schema],
          )
        ).rows[0].n,
      );
    const without: number[] = [];
    const withIdle: number[] = [];
    const { rows: stores } = await pool.query("SELECT id FROM stores WHERE slug = $1", [
      attacker.merchant.slug,
    ]);
    const storeId = stores[0].id as string;
    const { rows: inst } = await pool.query(
      "SELECT id, app_id FROM installations WHERE store_id = $1 AND status = 'active'",
      [storeId],
    );
    for (let run = 0; run < o.runs; run++) {
      await pool.query("DELETE FROM webhook_listen_sessions WHERE store_id = $1", [storeId]);
      without.push(await timeOrders());
      await pool.query(
        `INSERT INTO webhook_listen_sessions (store_id, id, installation_id, app_id, events, secret_ciphertext, created_at, seen_at)
         SELECT $1, 'whls_' || lpad(g::text, 22, '0'), $2, $3, ARRAY[$4, 'app/uninstalled'], 'x', now(), now()
           FROM generate_series(1, $5) g`,
        [storeId, inst[0].id, inst[0].app_id, EVENT.orderCreated, IDLE_SESSIONS],
      );
      withIdle.push(await timeOrders());
      console.log(
        `  run ${run + 1}: order p50 ${fmt(without[run]!, 2)} ms without sessions, ${fmt(withIdle[run]!, 2)} ms with ${IDLE_SESSIONS} idle sessions`,
      );
    }
    const idleRatio = printRuns(
      `order p50 with ${IDLE_SESSIONS} idle sessions / none`,
      withIdle.map((v, i) => v / without[i]!),
      "x",
      2,
    );
    addFigure({
      figure: `listen: order answered with ${IDLE_SESSIONS} idle sessions in its store (p50)`,
      value: `${fmt(median(withIdle), 2)} ms`,
      floor: `${fmt(median(without), 2)} ms with none`,
      ratio: fmt(idleRatio, 2),
      target: "<= 2",
      met: idleRatio <= 2,
    });
    console.log(
      `  tables written per session per event: ${await listenRows()} (streams read the event feed)`,
    );
    await pool.query("DELETE FROM webhook_listen_sessions WHERE store_id = $1", [storeId]);
    await pool.end();
    await api.stop();
    api = null;

    // 3. 100 streams closing at once.
    api = await startService("api", { ...env, LISTEN_MAX_STREAMS: String(CLOSING_STREAMS) });
    const quiet: WrkResult[] = [];
    const closing: WrkResult[] = [];
    for (let run = 0; run < o.runs; run++) {
      quiet.push(await victimLatency(api.url, victimToken, `quiet-${run}`));
      const streams = await openStreams(api.url, attackerToken, CLOSING_STREAMS, dispatcher);
      const measuring = victimLatency(api.url, victimToken, `closing-${run}`);
      await sleep((o.seconds * 1000) / 2);
      for (const s of streams.open) s.close();
      closing.push(await measuring);
      console.log(
        `  run ${run + 1}: ${streams.open.length} streams closed at once mid-run: other tenant p99 ${fmt(closing[run]!.p99, 2)} ms, max ${fmt(closing[run]!.max, 1)} ms; quiet p99 ${fmt(quiet[run]!.p99, 2)} ms, max ${fmt(quiet[run]!.max, 1)} ms`,
      );
      await sleep(500);
    }
    const maxRatio = printRuns(
      "other tenant max latency, closing / quiet",
      closing.map((c, i) => c.max / quiet[i]!.max),
      "x",
      2,
    );
    addFigure({
      figure: `listen: other tenant's worst request while ${CLOSING_STREAMS} streams close at once`,
      value: `${fmt(median(closing.map((c) => c.max)), 1)} ms`,
      floor: `${fmt(median(quiet.map((c) => c.max)), 1)} ms quiet`,
      ratio: fmt(maxRatio, 2),
      target: "(no stall)",
      met: null,
    });
  } finally {
    await dispatcher.close();
    await api?.stop();
    await db.drop();
    end();
  }
}
