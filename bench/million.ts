/**
 * A million products in one store (PostgreSQL): does a list cost the same at any depth? Latency
 * of the Admin API's first page, of pages deep in the catalogue (keyset cursors at 50%-95% depth),
 * and of the developer API's `page=1&perPage=100` (which also reports the totals). Each list
 * answers 100 rows, so the three compare the same work. Measured with few connections
 * (--latency-connections), so what is compared is the request, not the queue in front of it.
 */
import { Scope } from "../src/contracts/index.ts";
import { DEFAULT_SORT, encodeCursor } from "../src/lib/pagination.ts";
import { apiPeakRss, type BenchOptions } from "./lib/options.ts";
import { benchSchema, seedProducts } from "./lib/pg.ts";
import { addFigure, part, printRuns } from "./lib/report.ts";
import { type Proc, startApiOnSchema } from "./lib/service.ts";
import { createApiKey, installApp, merchantWithStore } from "./lib/setup.ts";
import { fmt, median } from "./lib/stats.ts";
import { type HttpRequest, wrk } from "./lib/wrk.ts";

const ADMIN = "/api/v1/apps/api";
const ROWS = 100;

export async function benchMillion(o: BenchOptions): Promise<void> {
  const end = part(`${o.millionRows.toLocaleString("en-US")} products: cost by depth`, [
    `wrk ${o.latencyConnections} connections, ${o.seconds} s per run; p50 latency; ${ROWS} rows per answer`,
  ]);
  const db = await benchSchema("bench_million");
  let api: Proc | null = null;
  try {
    api = await startApiOnSchema(db.schema);
    const merchant = await merchantWithStore(api.url);
    const { pairs } = await installApp(api.url, merchant, [Scope.read_products], 4);
    const key = await createApiKey(merchant, [Scope.read_products]);
    const seeding = Date.now();
    const storeId = await seedProducts(db.client, merchant.slug, o.millionRows);
    console.log(
      `  seeded ${o.millionRows.toLocaleString("en-US")} products in ${fmt((Date.now() - seeding) / 1000, 1)} s (one INSERT … SELECT generate_series)`,
    );

    // Deep positions: keyset cursors of the rows at 50%..99% of the catalogue, encoded by the
    // service's own cursor function (walking a million rows page by page would take minutes).
    const cursors: string[] = [];
    for (let twentieth = 10; twentieth < 20; twentieth++) {
      const depth = twentieth / 20;
      const { rows } = await db.client.query<{ created_at: Date; id: string }>(
        `SELECT created_at, id FROM products WHERE store_id = $1
          ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
        [storeId, Math.floor(o.millionRows * depth)],
      );
      cursors.push(encodeCursor({ sort: DEFAULT_SORT, bound: "" }, rows[0]!.created_at, rows[0]!.id));
    }
    const auth = (i: number) => ({ authorization: `Bearer ${pairs[i % pairs.length]!.accessToken}` });
    const first: HttpRequest[] = pairs.map((_, i) => ({
      path: `${ADMIN}/products?limit=${ROWS}`,
      headers: auth(i),
    }));
    const deep: HttpRequest[] = cursors.map((c, i) => ({
      path: `${ADMIN}/products?limit=${ROWS}&cursor=${c}`,
      headers: auth(i),
    }));
    const developer: HttpRequest[] = [
      { path: `/api/v1/developer/products?page=1&perPage=${ROWS}`, headers: key },
    ];

    // Each answer must be the work it claims: 100 rows, and the developer API's true total (a
    // seed that bypassed a counter the service keeps would make the figure meaningless).
    for (const [name, r] of [
      ["first", first[0]!],
      ["deep", deep[deep.length - 1]!],
      ["developer", developer[0]!],
    ] as const) {
      const res = await fetch(`${api.url}${r.path}`, { headers: r.headers });
      const body = (await res.json()) as { data?: unknown[]; meta?: { total?: number } };
      if (res.status !== 200 || body.data?.length !== ROWS)
        throw new Error(
          `${name} page: ${res.status}, ${body.data?.length} rows: ${JSON.stringify(body).slice(0, 300)}`,
        );
      if (name === "developer" && body.meta?.total !== o.millionRows)
        throw new Error(`developer API reports total ${body.meta?.total}, not ${o.millionRows}`);
    }

    const targets = { "admin first page": first, "admin deep cursor": deep, "developer page 1": developer };
    type Name = keyof typeof targets;
    const shoot = (name: Name, seconds: number) =>
      wrk({
        base: api!.url,
        requests: targets[name],
        dir: o.dir,
        seconds,
        connections: o.latencyConnections,
        label: name,
      });
    for (const name of Object.keys(targets) as Name[]) await shoot(name, Math.min(3, o.seconds));
    const p50: Record<string, number[]> = Object.fromEntries(Object.keys(targets).map((n) => [n, []]));
    for (let r = 1; r <= o.runs; r++) {
      const line: string[] = [];
      // Every other run in reverse order, so no figure always runs first (or after the same one).
      const order = Object.keys(targets) as Name[];
      for (const name of r % 2 ? order : order.reverse()) {
        const res = await shoot(name, o.seconds);
        p50[name]!.push(res.p50);
        line.push(`${name} p50 ${fmt(res.p50, 2)} ms p99 ${fmt(res.p99, 2)} ms (${fmt(res.rps)} req/s)`);
      }
      console.log(`  run ${r}: ${line.join("; ")}`);
    }
    for (const name of Object.keys(targets)) printRuns(`${name} p50`, p50[name]!, "ms", 2);
    const ratio = (a: Name) => p50[a]!.map((x, i) => x / p50["admin first page"]![i]!);
    const deepRatio = printRuns("ratio deep / first", ratio("admin deep cursor"), "", 2);
    const devRatio = printRuns("ratio developer / admin first", ratio("developer page 1"), "", 2);
    const ms = (name: Name) => `p50 ${fmt(median(p50[name]!), 2)} ms`;
    addFigure({
      figure: `${o.millionRows.toLocaleString("en-US")} products: Admin list deep cursor ÷ first page (latency)`,
      value: ms("admin deep cursor"),
      floor: ms("admin first page"),
      ratio: fmt(deepRatio, 2),
      target: "≤ 1.5",
      met: deepRatio <= 1.5,
    });
    addFigure({
      figure: `${o.millionRows.toLocaleString("en-US")} products: developer API page=1&perPage=100 ÷ Admin first page (latency)`,
      value: ms("developer page 1"),
      floor: ms("admin first page"),
      ratio: `${fmt(devRatio, 2)}×`,
      target: "≤ 2×",
      met: devRatio <= 2,
    });
  } finally {
    if (api) {
      const peak = await api.stop();
      console.log(`  api peak RSS (VmHWM): ${fmt(peak)} MB`);
      apiPeakRss.push({ process: "million part, api", mb: peak });
    }
    await db.drop();
    end();
  }
}
