/**
 * The catalogue of issue 30 on PostgreSQL: a product with 2,048 variants read through the Admin
 * API; the Admin API's list of 50 products of 10 variants each against bare Fastify + pg running
 * the same SQL (products, then their variants); stock adjustments per second on one hot variant
 * and on 64 distinct ones, the load in its own process (bench/lib/adjust-client.ts).
 */
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { Scope } from "../src/contracts/index.ts";
import { download, timed } from "./export.ts";
import type { BenchOptions } from "./lib/options.ts";
import { BENCH_DATABASE_URL, benchSchema, seedProducts } from "./lib/pg.ts";
import { addFigure, part, printRuns } from "./lib/report.ts";
import { type Proc, startApiOnSchema, startFloor } from "./lib/service.ts";
import { installApp, merchantWithStore } from "./lib/setup.ts";
import { fmt, inTurn, median } from "./lib/stats.ts";
import { type HttpRequest, wrk } from "./lib/wrk.ts";

const ADMIN = "/api/v1/apps/api";

interface AdjustResult {
  rate: number;
  count: number;
  p50: number;
  p99: number;
  errors: number;
}

function adjust(args: Record<string, unknown>): Promise<AdjustResult> {
  const child = fork(join(import.meta.dirname, "lib", "adjust-client.ts"), [JSON.stringify(args)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    let result: AdjustResult | null = null;
    child.once("message", (m) => {
      result = m as AdjustResult;
    });
    child.once("exit", (code) =>
      result ? resolve(result) : reject(new Error(`adjust client exited (${code})`)),
    );
  });
}

export async function benchCatalogue(o: BenchOptions): Promise<void> {
  const products = Math.min(o.products, 20_000);
  const end = part("Catalogue (variants, stock) on PostgreSQL", [
    `${products.toLocaleString("en-US")} products of 10 variants, one of 2,048; wrk ${o.connections} connections for the lists, ${o.latencyConnections} for the 2,048-variant read, ${o.seconds} s per run`,
  ]);
  const db = await benchSchema("bench_catalogue");
  const procs: Proc[] = [];
  try {
    const api = await startApiOnSchema(db.schema);
    procs.push(api);
    const merchant = await merchantWithStore(api.url);
    const { pairs } = await installApp(
      api.url,
      merchant,
      [Scope.read_products, Scope.read_inventory, Scope.write_inventory],
      8,
    );
    const storeId = await seedProducts(db.client, merchant.slug, products);
    // Nine more variants per product (a Size option of 10 values), stock at the first location.
    const sizes = Array.from({ length: 10 }, (_, i) => `S${i + 1}`);
    await db.client.query(`UPDATE products SET options = $2::jsonb WHERE store_id = $1`, [
      storeId,
      JSON.stringify([{ name: "Size", values: sizes }]),
    ]);
    await db.client.query(`UPDATE product_variants SET option1 = 'S1', title = 'S1' WHERE store_id = $1`, [
      storeId,
    ]);
    await db.client.query(
      `INSERT INTO product_variants (store_id, id, product_id, position, option1, title, sku, price_minor, tracked, available, created_at, updated_at)
       SELECT v.store_id, 'var_' || left(md5(v.id || k::text), 22), v.product_id, k - 1, 'S' || k, 'S' || k,
              v.sku || '-' || k, v.price_minor + k, true, 5, v.created_at, v.updated_at
         FROM product_variants v CROSS JOIN generate_series(2, 10) AS k WHERE v.store_id = $1`,
      [storeId],
    );
    // One product of 2,048 variants (32 colours x 64 sizes), its stock at the first location.
    const big = `prod_${randomBytes(11).toString("hex").slice(0, 22)}`;
    const colours = Array.from({ length: 32 }, (_, i) => `C${i + 1}`);
    const bigSizes = Array.from({ length: 64 }, (_, i) => `Z${i + 1}`);
    await db.client.query(
      // Older than the seeded products: the list's first page is 50 products of 10 variants.
      `INSERT INTO products (store_id, id, title, price_minor, price_max_minor, stock, status, options, created_at, updated_at)
       VALUES ($1, $2, 'Every colour and size', 1000, 1000, 2048 * 3, 'active', $3::jsonb, '2020-01-01', '2020-01-01')`,
      [
        storeId,
        big,
        JSON.stringify([
          { name: "Colour", values: colours },
          { name: "Size", values: bigSizes },
        ]),
      ],
    );
    await db.client.query(
      `INSERT INTO product_variants (store_id, id, product_id, position, option1, option2, title, sku, price_minor, tracked, available)
       SELECT $1, 'var_' || left(md5($2 || c || '-' || s), 22), $2, (c - 1) * 64 + s - 1, 'C' || c, 'Z' || s,
              'C' || c || ' / Z' || s, 'BIG-' || c || '-' || s, 1000, true, 3
         FROM generate_series(1, 32) AS c CROSS JOIN generate_series(1, 64) AS s`,
      [storeId, big],
    );
    await db.client.query("ANALYZE");
    const { rows: locations } = await db.client.query<{ id: string }>(
      "SELECT id FROM locations WHERE store_id = $1 ORDER BY created_at LIMIT 1",
      [storeId],
    );
    const locationId = locations[0]!.id;
    const { rows: someVariants } = await db.client.query<{ id: string }>(
      "SELECT id FROM product_variants WHERE store_id = $1 AND product_id <> $2 AND position = 0 ORDER BY md5(id) LIMIT 64",
      [storeId, big],
    );
    // Levels for the seeded variants that have none (the extra sizes).
    await db.client.query(
      `INSERT INTO inventory_levels (store_id, id, variant_id, location_id, product_id, available)
       SELECT v.store_id, 'ilvl_' || left(md5(v.id || ':level'), 22), v.id, $2, v.product_id, v.available
         FROM product_variants v WHERE v.store_id = $1
       ON CONFLICT DO NOTHING`,
      [storeId, locationId],
    );

    const floor = await startFloor({
      FLOOR_DB: "pg",
      DATABASE_URL: BENCH_DATABASE_URL,
      DATABASE_SCHEMA: db.schema,
      STORE_SLUG: merchant.slug,
      FLOOR_PREPARED: String(o.floorPrepared),
    });
    procs.push(floor);
    const auth = (i: number) => ({ authorization: `Bearer ${pairs[i % pairs.length]!.accessToken}` });
    const list: HttpRequest[] = pairs.map((_, i) => ({
      path: `${ADMIN}/products?limit=50`,
      headers: auth(i),
    }));
    const bigGet: HttpRequest[] = pairs.map((_, i) => ({
      path: `${ADMIN}/products/${big}`,
      headers: auth(i),
    }));
    const targets = {
      "admin list (50 x 10 variants)": [api.url, list],
      "floor list (50 x 10 variants)": [floor.url, list.map((r) => ({ ...r, path: "/products?limit=50" }))],
      "admin get (2,048 variants)": [api.url, bigGet],
      "floor get (2,048 variants)": [floor.url, bigGet.map((r) => ({ ...r, path: `/products/${big}` }))],
    } as const satisfies Record<string, readonly [string, HttpRequest[]]>;
    type Name = keyof typeof targets;
    const shoot = (name: Name, seconds: number) =>
      wrk({
        base: targets[name][0],
        requests: targets[name][1],
        dir: o.dir,
        seconds,
        // The 2,048-variant read is measured for its latency: a few connections, not a queue of 50.
        connections: name.includes("2,048") ? o.latencyConnections : o.connections,
        label: name,
      });
    for (const name of Object.keys(targets) as Name[]) await shoot(name, Math.min(3, o.seconds));
    const rps: Record<string, number[]> = Object.fromEntries(Object.keys(targets).map((n) => [n, []]));
    const p50: Record<string, number[]> = Object.fromEntries(Object.keys(targets).map((n) => [n, []]));
    const p99: Record<string, number[]> = Object.fromEntries(Object.keys(targets).map((n) => [n, []]));
    const adjustments = { "one hot variant": [] as number[], "64 distinct variants": [] as number[] };
    const exports: number[] = [];
    const copies: number[] = [];
    const copy = `COPY (SELECT p.*, (SELECT json_agg(v ORDER BY v.position) FROM ${db.schema}.product_variants v WHERE v.store_id = p.store_id AND v.product_id = p.id) FROM ${db.schema}.products p WHERE p.store_id = '${storeId}' ORDER BY p.id) TO STDOUT`;
    for (let r = 1; r <= o.runs; r++) {
      const line: string[] = [];
      const order = Object.keys(targets) as Name[];
      for (const name of r % 2 ? order : order.reverse()) {
        const res = await shoot(name, o.seconds);
        rps[name]!.push(res.rps);
        p50[name]!.push(res.p50);
        p99[name]!.push(res.p99);
        line.push(`${name} ${fmt(res.rps)} req/s (p50 ${fmt(res.p50, 1)} ms, p99 ${fmt(res.p99, 1)} ms)`);
      }
      for (const [label, variants] of [
        ["one hot variant", [someVariants[0]!.id]],
        ["64 distinct variants", someVariants.map((v) => v.id)],
      ] as const) {
        const res = await adjust({
          base: api.url,
          token: pairs[0]!.accessToken,
          variants,
          locationId,
          connections: o.connections,
          seconds: o.seconds,
          warmupSeconds: 1,
        });
        adjustments[label].push(res.rate);
        line.push(
          `adjust ${label} ${fmt(res.rate)}/s (p50 ${fmt(res.p50, 1)} ms, p99 ${fmt(res.p99, 1)} ms, ${res.errors} errors)`,
        );
      }
      // The bulk export with variants (a line per product, its options and variants), against
      // psql's COPY of the same rows (each product with its variants as JSON), in turn first.
      const measureExport = async () => {
        const res = await download(`${api.url}${ADMIN}/export/products`, auth(0), false);
        if (res.status !== 200 || res.lines !== products + 1)
          throw new Error(`export run ${r}: HTTP ${res.status}, ${res.lines} lines, not ${products + 1}`);
        return res.lines / res.seconds;
      };
      const measureCopy = async () =>
        (products + 1) / (await timed("psql", [BENCH_DATABASE_URL, "-X", "-q", "-c", copy])).seconds;
      const [exported, copied] = await inTurn(r, measureExport, measureCopy);
      exports.push(exported);
      copies.push(copied);
      line.push(`export ${fmt(exported)} products/s (COPY ${fmt(copied)} rows/s)`);
      console.log(`  run ${r}: ${line.join("; ")}`);
    }
    for (const name of Object.keys(targets)) {
      printRuns(`${name}`, rps[name]!, "req/s");
      printRuns(`${name} p50`, p50[name]!, "ms", 1);
      printRuns(`${name} p99`, p99[name]!, "ms", 1);
    }
    const ratio = (a: Name, b: Name) => rps[a]!.map((x, i) => x / rps[b]![i]!);
    printRuns(
      "ratio admin list / floor list",
      ratio("admin list (50 x 10 variants)", "floor list (50 x 10 variants)"),
      "",
      3,
    );
    printRuns(
      "ratio admin get / floor get (2,048 variants)",
      ratio("admin get (2,048 variants)", "floor get (2,048 variants)"),
      "",
      3,
    );
    for (const [label, runs] of Object.entries(adjustments)) printRuns(`adjustments, ${label}`, runs, "/s");
    printRuns("export with variants, products/s", exports, "/s");
    printRuns("COPY of the same rows, rows/s", copies, "/s");
    const exportRatio = printRuns(
      "ratio export / COPY",
      exports.map((x, i) => x / copies[i]!),
      "",
      3,
    );
    const listRatio = median(ratio("admin list (50 x 10 variants)", "floor list (50 x 10 variants)"));
    const m = (name: Name) => `${fmt(median(rps[name]!))} req/s`;
    addFigure({
      figure: "Admin API list of 50 products × 10 variants ÷ bare Fastify + pg, same SQL",
      value: m("admin list (50 x 10 variants)"),
      floor: m("floor list (50 x 10 variants)"),
      ratio: fmt(listRatio, 2),
      target: "≥ 0.75",
      met: listRatio >= 0.75,
    });
    addFigure({
      figure: "Admin API GET of a product with 2,048 variants: p50 / p99",
      value: `${fmt(median(p50["admin get (2,048 variants)"]!), 1)} / ${fmt(median(p99["admin get (2,048 variants)"]!), 1)} ms`,
      floor: `${fmt(median(p50["floor get (2,048 variants)"]!), 1)} / ${fmt(median(p99["floor get (2,048 variants)"]!), 1)} ms`,
      ratio: fmt(median(ratio("admin get (2,048 variants)", "floor get (2,048 variants)")), 2),
      target: "reported",
      met: null,
    });
    addFigure({
      figure: "Stock adjustments per second: one hot variant / 64 distinct",
      value: `${fmt(median(adjustments["one hot variant"]))} / ${fmt(median(adjustments["64 distinct variants"]))} /s`,
      floor: "",
      ratio: "",
      target: "reported",
      met: null,
    });
    addFigure({
      figure: "Bulk export with variants (products of 10 variants) ÷ COPY of the same rows",
      value: `${fmt(median(exports))} products/s`,
      floor: `${fmt(median(copies))} rows/s`,
      ratio: fmt(exportRatio, 2),
      target: "reported",
      met: null,
    });
  } finally {
    for (const p of procs) console.log(`  ${p.name} peak RSS (VmHWM): ${fmt(await p.stop())} MB`);
    await db.drop();
    end();
  }
}
