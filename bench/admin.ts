/**
 * Admin API reads on PostgreSQL against a bare Fastify + pg server running the same SQL, and the
 * Admin API with the Redis limiter against the in-process one. Three service processes side by
 * side on one schema: the API (in-process limiter), the API with REDIS_URL, the floor; wrk drives
 * each in turn, so every run's figure has its floor measured next to it.
 */
import { readFileSync } from "node:fs";
import { Scope } from "../src/contracts/index.ts";
import { API_VERSIONS } from "../src/modules/versions/versions.ts";
import { apiPeakRss, type BenchOptions } from "./lib/options.ts";
import {
  BENCH_DATABASE_URL,
  BENCH_REDIS_URL,
  benchSchema,
  sampleProductIds,
  seedProducts,
} from "./lib/pg.ts";
import { addFigure, part, printRuns } from "./lib/report.ts";
import { apiEnvOnSchema, type Proc, startFloor, startService, startVersioned } from "./lib/service.ts";
import { installApp, merchantWithStore } from "./lib/setup.ts";
import { fmt, median } from "./lib/stats.ts";
import { type HttpRequest, wrk } from "./lib/wrk.ts";

const ADMIN = "/api/v1/apps/api";
const CURRENT = API_VERSIONS.at(-1)!.version;
/** The made-up older version of bench/lib/versioned-service.ts. */
const BEHIND = "2026-06-01";

export async function benchAdmin(o: BenchOptions): Promise<void> {
  const end = part("Admin API on PostgreSQL vs bare Fastify + pg", [
    `${o.products.toLocaleString("en-US")} products in the store; wrk ${o.connections} connections, ${o.seconds} s per run; floor statements ${o.floorPrepared ? "named (prepared)" : "unnamed"}`,
  ]);
  const db = await benchSchema("bench_admin");
  const procs: Proc[] = [];
  try {
    const env = apiEnvOnSchema(db.schema);
    const api = await startService("api", env);
    procs.push(api);
    const merchant = await merchantWithStore(api.url);
    const { pairs } = await installApp(api.url, merchant, [Scope.read_products], 8);
    const storeId = await seedProducts(db.client, merchant.slug, o.products);
    const ids = await sampleProductIds(db.client, storeId, 200);
    const apiRedis = await startService("api+redis", { ...env, REDIS_URL: BENCH_REDIS_URL });
    procs.push(apiRedis);
    // The same API with one more version than the platform has (bench/lib/versioned-service.ts):
    // today's version against one behind, on the same records, in the same process.
    const versioned = await startVersioned(env);
    procs.push(versioned);
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
    const get: HttpRequest[] = ids.map((id, i) => ({ path: `${ADMIN}/products/${id}`, headers: auth(i) }));
    const floorList: HttpRequest[] = list.map((r) => ({ ...r, path: "/products?limit=50" }));
    const floorGet: HttpRequest[] = get.map((r) => ({ ...r, path: r.path.slice(ADMIN.length) }));
    const targets = {
      "admin list": [api.url, list],
      "floor list": [floor.url, floorList],
      "admin get": [api.url, get],
      "floor get": [floor.url, floorGet],
      "admin list, Redis limiter": [apiRedis.url, list],
      "versioned list, current": [versioned.url, at(list, CURRENT)],
      "versioned list, one behind": [versioned.url, at(list, BEHIND)],
      "floor hello": [floor.url, [{ path: "/healthz" }]],
    } as const satisfies Record<string, readonly [string, HttpRequest[]]>;
    type Name = keyof typeof targets;
    // The process each target loads, for its CPU time per request: unlike req/s, that does not
    // depend on how much of the two cores other work leaves the run.
    const procOf = {
      "admin list": api,
      "floor list": floor,
      "admin get": api,
      "floor get": floor,
      "versioned list, current": versioned,
      "versioned list, one behind": versioned,
    } as Partial<Record<Name, Proc>>;
    const shoot = (name: Name, seconds: number) =>
      wrk({
        base: targets[name][0],
        requests: targets[name][1],
        dir: o.dir,
        seconds,
        connections: o.connections,
        label: name,
      });

    // JIT, pools and caches warm before anything counts.
    for (const name of Object.keys(targets) as Name[]) await shoot(name, Math.min(3, o.seconds));
    const results: Record<string, number[]> = Object.fromEntries(Object.keys(targets).map((n) => [n, []]));
    const cpuPerRequest: Record<string, number[]> = Object.fromEntries(
      Object.keys(procOf).map((n) => [n, []]),
    );
    for (let r = 1; r <= o.runs; r++) {
      const line: string[] = [];
      // Every other run in reverse order, so no figure always runs first (or after the same one).
      const order = Object.keys(targets) as Name[];
      for (const name of r % 2 ? order : order.reverse()) {
        const proc = procOf[name];
        const cpuBefore = proc ? cpuMs(proc.pid) : 0;
        const res = await shoot(name, o.seconds);
        results[name]!.push(res.rps);
        if (proc) cpuPerRequest[name]!.push(((cpuMs(proc.pid) - cpuBefore) * 1000) / res.requests);
        line.push(
          `${name} ${fmt(res.rps)} req/s (p50 ${fmt(res.p50, 1)} ms, p99 ${fmt(res.p99, 1)} ms, ${fmt(res.bytesPerRequest)} B)`,
        );
      }
      console.log(`  run ${r}: ${line.join("; ")}`);
    }
    const ratios = (a: Name, b: Name) => results[a]!.map((x, i) => x / results[b]![i]!);
    for (const name of Object.keys(targets)) printRuns(name, results[name]!, "req/s");
    for (const name of Object.keys(cpuPerRequest))
      printRuns(`${name}, CPU per request (user + system)`, cpuPerRequest[name]!, "µs");
    // Floor CPU ÷ service CPU per request: the req/s ratio both would reach with a core each to themselves.
    const cpuRatio = (a: Name, b: Name) => cpuPerRequest[b]!.map((x, i) => x / cpuPerRequest[a]![i]!);
    printRuns(
      "CPU ratio admin list / floor list (floor µs ÷ admin µs)",
      cpuRatio("admin list", "floor list"),
      "",
      3,
    );
    printRuns("CPU ratio admin get / floor get", cpuRatio("admin get", "floor get"), "", 3);
    const listRatio = printRuns("ratio admin list / floor list", ratios("admin list", "floor list"), "", 3);
    const getRatio = printRuns("ratio admin get / floor get", ratios("admin get", "floor get"), "", 3);
    const redisRatio = printRuns(
      "ratio Redis limiter / in-process limiter",
      ratios("admin list, Redis limiter", "admin list"),
      "",
      3,
    );
    // CPU per request one version behind ÷ at the current version, run by run: what rendering
    // every product down a version and serialising it with that version's schema costs.
    const behindCpu = printRuns(
      "CPU one version behind ÷ current (versioned service, µs per request)",
      cpuPerRequest["versioned list, one behind"]!.map(
        (x, i) => x / cpuPerRequest["versioned list, current"]![i]!,
      ),
      "",
      3,
    );
    const m = (name: Name) => `${fmt(median(results[name]!))} req/s`;
    const cpu = (name: Name) => `${fmt(median(cpuPerRequest[name]!))} µs CPU`;
    addFigure({
      figure: "Admin API list one API version behind ÷ current: CPU per request",
      value: cpu("versioned list, one behind"),
      floor: cpu("versioned list, current"),
      ratio: fmt(behindCpu, 2),
      target: "≤ 1.10",
      met: behindCpu <= 1.1,
    });
    addFigure({
      figure: "Admin API GET /products?limit=50 ÷ bare Fastify + pg, same SQL",
      value: m("admin list"),
      floor: m("floor list"),
      ratio: fmt(listRatio, 2),
      target: "≥ 0.75",
      met: listRatio >= 0.75,
    });
    addFigure({
      figure: "Admin API GET /products/{id} ÷ the same floor for one row",
      value: m("admin get"),
      floor: m("floor get"),
      ratio: fmt(getRatio, 2),
      target: "≥ 0.60",
      met: getRatio >= 0.6,
    });
    addFigure({
      figure: "Admin API list with the Redis limiter ÷ in-process limiter",
      value: m("admin list, Redis limiter"),
      floor: m("admin list"),
      ratio: fmt(redisRatio, 2),
      target: "≥ 0.90",
      met: redisRatio >= 0.9,
    });
  } finally {
    for (const proc of procs.reverse()) {
      const peak = await proc.stop();
      console.log(`  ${proc.name} peak RSS (VmHWM): ${fmt(peak)} MB`);
      if (proc.name.startsWith("api")) apiPeakRss.push({ process: `admin part, ${proc.name}`, mb: peak });
    }
    await db.drop();
    end();
  }
}

/** The requests at one API version (its `Api-Version` header). */
function at(requests: HttpRequest[], version: string): HttpRequest[] {
  return requests.map((r) => ({ ...r, headers: { ...r.headers, "api-version": version } }));
}

/** CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat. */
function cpuMs(pid: number): number {
  // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name; in clock ticks (100 a second).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
