/**
 * The embedded default (PGlite on disk, RUN_MODE=all, as `npm start` runs with no DATABASE_URL)
 * against a bare Fastify + PGlite server running the same query on a copy of the same data.
 *
 * The service starts on a fresh data directory (creation, migrations, demo seed), the store and
 * its products are created through the Admin API, the service stops, the directory is copied for
 * the floor (PGlite is one process's database), and the service starts again on the original.
 * Its peak RSS is the higher of the two processes': start on a fresh directory, and load.
 */
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Scope } from "../src/contracts/index.ts";
import type { BenchOptions } from "./lib/options.ts";
import { addFigure, part, printRuns } from "./lib/report.ts";
import { type Proc, startFloor, startService } from "./lib/service.ts";
import { installApp, merchantWithStore } from "./lib/setup.ts";
import { fmt, median } from "./lib/stats.ts";
import { type HttpRequest, wrk } from "./lib/wrk.ts";

const ADMIN = "/api/v1/apps/api";

/** Creates `count` products through the Admin API, `concurrency` requests at a time. */
async function createProducts(base: string, token: string, count: number, concurrency = 8) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const res = await fetch(`${base}${ADMIN}/products`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({
            title: `Organic cotton T-shirt ${i}`,
            description: "A soft, breathable T-shirt made of 100% organic cotton. Machine washable.",
            price: "24.90",
            sku: `SKU-${i}`,
            stock: i % 200,
          }),
        });
        if (res.status !== 201) throw new Error(`create product: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      }
    }),
  );
}

export async function benchEmbedded(o: BenchOptions): Promise<{ peakRss: number }> {
  const end = part("Embedded default (PGlite on disk) vs bare Fastify + PGlite", [
    `${o.embeddedProducts.toLocaleString("en-US")} products created through the Admin API; wrk ${o.connections} connections, ${o.seconds} s per run`,
  ]);
  const dataDir = join(o.dir, "embedded-data");
  const floorDir = join(o.dir, "embedded-floor-data");
  const procs: Proc[] = [];
  let peakRss = Number.NaN;
  try {
    // No DATABASE_URL, RUN_MODE, DEMO_SEED: the defaults an operator gets from `npm start`.
    const env = { DATA_DIR: dataDir };
    const first = await startService("embedded (fresh start)", env, {
      beforeRetry: () => rmSync(dataDir, { recursive: true, force: true }),
    });
    procs.push(first);
    const merchant = await merchantWithStore(first.url);
    const { pairs } = await installApp(first.url, merchant, [Scope.read_products, Scope.write_products], 8);
    const seeding = Date.now();
    await createProducts(first.url, pairs[0]!.accessToken, o.embeddedProducts);
    console.log(
      `  created ${o.embeddedProducts} products in ${fmt((Date.now() - seeding) / 1000, 1)} s (${fmt((o.embeddedProducts * 1000) / (Date.now() - seeding))}/s)`,
    );
    procs.pop();
    const startPeak = await first.stop();
    console.log(`  fresh start + setup: peak RSS (VmHWM) ${fmt(startPeak)} MB`);
    cpSync(dataDir, floorDir, { recursive: true });

    const api = await startService("embedded", env);
    procs.push(api);
    const floor = await startFloor({ FLOOR_DB: "pglite", DATA_DIR: floorDir, STORE_SLUG: merchant.slug });
    procs.push(floor);
    const list: HttpRequest[] = pairs.map((p) => ({
      path: `${ADMIN}/products?limit=50`,
      headers: { authorization: `Bearer ${p.accessToken}` },
    }));
    const floorList = list.map((r) => ({ ...r, path: "/products?limit=50" }));
    const shoot = (base: string, requests: HttpRequest[], label: string, seconds: number) =>
      wrk({ base, requests, dir: o.dir, seconds, connections: o.connections, label });
    await shoot(api.url, list, "embedded list", Math.min(3, o.seconds));
    await shoot(floor.url, floorList, "pglite floor list", Math.min(3, o.seconds));
    const service: number[] = [];
    const bare: number[] = [];
    for (let r = 1; r <= o.runs; r++) {
      const a = await shoot(api.url, list, "embedded list", o.seconds);
      const b = await shoot(floor.url, floorList, "pglite floor list", o.seconds);
      service.push(a.rps);
      bare.push(b.rps);
      console.log(
        `  run ${r}: admin list ${fmt(a.rps)} req/s (p50 ${fmt(a.p50, 1)} ms, ${fmt(a.bytesPerRequest)} B); floor ${fmt(b.rps)} req/s (p50 ${fmt(b.p50, 1)} ms, ${fmt(b.bytesPerRequest)} B); ratio ${fmt(a.rps / b.rps, 3)}`,
      );
    }
    printRuns("embedded admin list", service, "req/s");
    printRuns("PGlite floor list", bare, "req/s");
    const ratio = printRuns(
      "ratio",
      service.map((s, i) => s / bare[i]!),
      "",
      3,
    );
    const rps = median(service);
    addFigure({
      figure: "Embedded default (PGlite on disk) Admin list ÷ Fastify + PGlite same query",
      value: `${fmt(rps)} req/s`,
      floor: `${fmt(median(bare))} req/s`,
      ratio: fmt(ratio, 2),
      target: "≥ 0.80 and ≥ 500 req/s",
      met: ratio >= 0.8 && rps >= 500,
    });
    procs.splice(procs.indexOf(api), 1);
    const loadPeak = await api.stop();
    console.log(`  restart + load: peak RSS (VmHWM) ${fmt(loadPeak)} MB`);
    peakRss = Math.max(startPeak, loadPeak);
  } finally {
    for (const proc of procs.reverse()) {
      const peak = await proc.stop();
      console.log(`  ${proc.name} peak RSS (VmHWM): ${fmt(peak)} MB`);
    }
    end();
  }
  return { peakRss };
}
