/**
 * The events API at a million events (issue 19): p50/p99 of `GET /api/v1/apps/api/events` on
 * PostgreSQL with few connections (--latency-connections), so the request is measured, not the
 * queue: the first page, a deep cursor, a deep cursor with a type filter, and `delivery=failed`
 * with 1,000 failed deliveries among the million. One store's 1,000,000 events (orders, products
 * and customers) are seeded in SQL already numbered, as the sequencer leaves them, and ANALYZEd.
 * Target: p50 under 10 ms, first page and deep cursor.
 */
import { EVENT, Scope } from "../src/contracts/index.ts";
import type { BenchOptions } from "./lib/options.ts";
import { benchSchema } from "./lib/pg.ts";
import { addFigure, part, printRuns } from "./lib/report.ts";
import { type Proc, startApiOnSchema } from "./lib/service.ts";
import { installApp, merchantWithStore } from "./lib/setup.ts";
import { fmt, load, median } from "./lib/stats.ts";
import { wrk } from "./lib/wrk.ts";

const FAILED = 1000;

export async function benchFeed(o: BenchOptions): Promise<void> {
  const events = o.millionRows;
  const end = part(`feed: the events API at ${fmt(events)} events in a store`, [
    `${o.runs} runs, wrk ${o.latencyConnections} connections, ${o.seconds} s per query`,
  ]);
  const db = await benchSchema("bench_feed");
  let api: Proc | null = null;
  try {
    api = await startApiOnSchema(db.schema);
    const merchant = await merchantWithStore(api.url);
    const app = await installApp(api.url, merchant, [
      Scope.read_orders,
      Scope.read_products,
      Scope.read_customers,
      Scope.manage_webhooks,
    ]);
    const token = app.pairs[0]!.accessToken;
    const { rows } = await db.client.query<{ id: string }>("SELECT id FROM stores WHERE slug = $1", [
      merchant.slug,
    ]);
    const storeId = rows[0]!.id;
    const started = performance.now();
    // Orders, product changes and sign-ups, one event per second of history; numbered 1..n.
    await db.client.query(
      `INSERT INTO events (id, store_id, topic, resource_id, payload, created_at, dispatched_at, feed_position)
       SELECT 'evt_' || lpad(i::text, 22, '0'), $1,
              (ARRAY[$3, $4, $5])[1 + i % 5 / 2],
              'res_' || (i % 50000),
              jsonb_build_object('id', 'res_' || (i % 50000), 'title', 'Item ' || i, 'total', '12.00'),
              now() - make_interval(secs => $2::int - i), now() - make_interval(secs => $2::int - i), i
         FROM generate_series(1, $2::int) AS i`,
      [storeId, events, EVENT.orderCreated, EVENT.productUpdated, EVENT.customerCreated],
    );
    await db.client.query(
      "INSERT INTO event_feed_heads (store_id, position) VALUES ($1, $2) ON CONFLICT (store_id) DO UPDATE SET position = $2",
      [storeId, events],
    );
    // 1,000 failed deliveries to the app, spread over the feed.
    const { rows: inst } = await db.client.query<{ id: string; app_id: string }>(
      "SELECT id, app_id FROM installations WHERE store_id = $1",
      [storeId],
    );
    await db.client.query(
      `INSERT INTO webhook_subscriptions (store_id, id, installation_id, app_id, event_name, target_url, secret_ciphertext, status, created_at)
       VALUES ($1, 'whsub_bench00000000000000000', $2, $3, $4, 'https://example.com/hook', 'x', 'active', now())`,
      [storeId, inst[0]!.id, inst[0]!.app_id, EVENT.orderCreated],
    );
    await db.client.query(
      `INSERT INTO webhook_deliveries (store_id, id, event_id, event_name, subscription_id, installation_id, app_id,
                                       target_url, target_host, body, status, attempts, next_attempt_at,
                                       last_error, created_at, updated_at, completed_at)
       SELECT $1, 'whd_' || lpad(g::text, 22, '0'), 'evt_' || lpad((g * ($2::int / $3::int))::text, 22, '0'),
              $4, 'whsub_bench00000000000000000', $5, $6, 'https://example.com/hook', 'example.com', '{}',
              'failed', 8, now(), 'HTTP 500', now(), now(), now()
         FROM generate_series(1, $3::int) AS g`,
      [storeId, events, FAILED, EVENT.orderCreated, inst[0]!.id, inst[0]!.app_id],
    );
    await db.client.query("ANALYZE events; ANALYZE webhook_deliveries");
    console.log(
      `  seeded ${fmt(events)} events in ${fmt((performance.now() - started) / 1000, 1)} s; ${load()}`,
    );

    const headers = { authorization: `Bearer ${token}` };
    const deep = Math.floor(events * 0.9);
    const queries = [
      { label: "first page (limit 100)", path: "/api/v1/apps/api/events?limit=100", target: true },
      {
        label: `deep cursor (after ${fmt(deep)})`,
        path: `/api/v1/apps/api/events?limit=100&after=${deep}`,
        target: true,
      },
      {
        label: "deep cursor, types=customer.created",
        path: `/api/v1/apps/api/events?limit=100&after=${Math.floor(events / 2)}&types=${EVENT.customerCreated}`,
        target: false,
      },
      {
        label: `delivery=failed (${FAILED} of them)`,
        path: "/api/v1/apps/api/events?limit=100&delivery=failed",
        target: false,
      },
    ];
    for (const q of queries) {
      // Each answers a full page before it is timed.
      const check = await fetch(`${api.url}${q.path}`, { headers });
      const body = (await check.json()) as { data?: unknown[] };
      if (check.status !== 200 || body.data?.length !== 100)
        throw new Error(`${q.label}: ${check.status} ${JSON.stringify(body).slice(0, 300)}`);
      const p50s: number[] = [];
      const p99s: number[] = [];
      for (let run = 0; run < o.runs; run++) {
        const r = await wrk({
          base: api.url,
          requests: [{ path: q.path, headers }],
          dir: o.dir,
          seconds: o.seconds,
          connections: o.latencyConnections,
          label: `feed-${q.label}-${run}`,
        });
        p50s.push(r.p50);
        p99s.push(r.p99);
        console.log(
          `  ${q.label} run ${run + 1}: p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms, ${fmt(r.rps)} req/s`,
        );
      }
      const p50 = printRuns(`${q.label} p50`, p50s, "ms", 2);
      addFigure({
        figure: `events API at ${fmt(events)} events: ${q.label} (p50 / p99)`,
        value: `${fmt(p50, 2)} / ${fmt(median(p99s), 2)} ms`,
        floor: "",
        ratio: "",
        target: q.target ? "p50 < 10 ms" : "(none)",
        met: q.target ? p50 < 10 : null,
      });
    }
  } finally {
    await api?.stop();
    await db.drop();
    end();
  }
}
