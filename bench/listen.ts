/**
 * `listen` latency (issue 12): an order is placed through the dashboard API, its event streams to
 * the CLI (`merchant-platform listen`, its own process), which POSTs it to a local receiver (this
 * process). Measured per order: request sent -> the local POST received, and the order request's
 * own answer time next to it (the floor: the event cannot reach the receiver before it commits).
 * Orders are placed one at a time at a steady rate, on PostgreSQL; three runs, medians.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { EVENT, Scope } from "../src/contracts/index.ts";
import type { BenchOptions } from "./lib/options.ts";
import { benchSchema } from "./lib/pg.ts";
import { addFigure, part, printRuns } from "./lib/report.ts";
import { type Proc, ROOT, startApiOnSchema } from "./lib/service.ts";
import { installApp, merchantWithStore } from "./lib/setup.ts";
import { fmt, median, percentile } from "./lib/stats.ts";

const ORDERS_PER_RUN = 100;
const ORDERS_PER_SECOND = 20;

export async function benchListen(o: BenchOptions): Promise<void> {
  const end = part("listen: event -> local POST through the CLI", [
    `${o.runs} runs of ${ORDERS_PER_RUN} orders at ${ORDERS_PER_SECOND}/s, one at a time; CLI in its own process`,
  ]);
  const db = await benchSchema("bench_listen");
  let api: Proc | null = null;
  const received = new Map<string, number>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { data?: { id?: string } };
        if (body.data?.id) received.set(body.data.id, at);
      } catch {
        // not an event
      }
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  let cli: ReturnType<typeof spawn> | null = null;
  try {
    api = await startApiOnSchema(db.schema);
    const merchant = await merchantWithStore(api.url);
    const app = await installApp(api.url, merchant, [Scope.read_orders, Scope.manage_webhooks]);
    const path = { slug: merchant.slug };
    const product = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path },
      body: { title: "Mug", variants: [{ price: "9.00", inventoryQuantity: 1_000_000 }] },
    });
    const customer = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path },
      body: { email: "bench@example.com", firstName: "Bench" },
    });
    cli = spawn(
      process.execPath,
      [
        join(ROOT, "packages", "cli", "dist", "cli.js"),
        "listen",
        "--forward-to",
        target,
        "--events",
        EVENT.orderCreated,
      ],
      {
        env: {
          ...process.env,
          MP_BASE_URL: api.url,
          MP_ACCESS_TOKEN: app.pairs[0]!.accessToken,
          MERCHANT_PLATFORM_CONFIG: join(ROOT, ".tmp", "bench-cli.json"),
        },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    await new Promise<void>((resolve, reject) => {
      let out = "";
      cli!.stdout!.on("data", (d) => {
        out += String(d);
        if (out.includes("signing secret")) resolve();
      });
      cli!.once("exit", (code) => reject(new Error(`listen exited ${code}: ${out}`)));
    });
    const p50s: number[] = [];
    const p99s: number[] = [];
    const floors: number[] = [];
    for (let run = 0; run < o.runs; run++) {
      const latencies: number[] = [];
      const answers: number[] = [];
      const started = performance.now();
      for (let i = 0; i < ORDERS_PER_RUN; i++) {
        const due = started + (i * 1000) / ORDERS_PER_SECOND;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const sent = performance.now();
        const res = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
          params: { path },
          body: {
            customerId: customer.data!.data.id,
            lineItems: [{ productId: product.data!.data.id, quantity: 1 }],
          },
        });
        if (res.response.status !== 201) throw new Error(`order: ${res.response.status}`);
        answers.push(performance.now() - sent);
        const id = res.data!.data.id;
        const deadline = performance.now() + 10_000;
        while (!received.has(id)) {
          if (performance.now() > deadline) throw new Error(`order ${id} never reached the receiver`);
          await new Promise((r) => setTimeout(r, 1));
        }
        latencies.push(received.get(id)! - sent);
      }
      latencies.sort((a, b) => a - b);
      answers.sort((a, b) => a - b);
      p50s.push(percentile(latencies, 50));
      p99s.push(percentile(latencies, 99));
      floors.push(percentile(answers, 50));
      console.log(
        `  run ${run + 1}: request -> local POST p50 ${fmt(percentile(latencies, 50), 1)} ms, p99 ${fmt(percentile(latencies, 99), 1)} ms; order answered p50 ${fmt(percentile(answers, 50), 1)} ms`,
      );
    }
    const p50 = printRuns("p50 request -> local POST", p50s, "ms", 1);
    const p99 = printRuns("p99 request -> local POST", p99s, "ms", 1);
    const floor = printRuns("p50 order answered (floor)", floors, "ms", 1);
    addFigure({
      figure: "listen: order placed -> local POST via the CLI (p50 / p99)",
      value: `${fmt(p50, 1)} / ${fmt(p99, 1)} ms`,
      floor: `${fmt(floor, 1)} ms`,
      ratio: `+${fmt(median(p50s.map((v, i) => v - floors[i]!)), 1)} ms`,
      target: "(none)",
      met: null,
    });
  } finally {
    cli?.kill();
    receiver.close();
    await api?.stop();
    await db.drop();
    end();
  }
}
