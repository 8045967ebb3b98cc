/**
 * Admin API hot path and token refresh, against floors measured in the same run. Every actor is
 * its own process: the service (`node src/main.ts`, RUN_MODE=api), the floor (bare Fastify + pg,
 * or + PGlite, running the Admin API's product SQL), and wrk (50 connections, 10 s).
 *
 *   ./node_modules/.bin/node bench/adminpath-probe.ts [--runs 3] [--seconds 10] [--embedded]
 *     [--redis] [--refresh-seconds 10] [--cpu-prof DIR] [--only list,get,refresh]
 *   BENCH_DATABASE_URL (default postgres://postgres:postgres@127.0.0.1:5432/test); works in a
 *   schema of its own (or a temporary data directory with --embedded) and drops it afterwards.
 *
 * Figures: service ÷ floor for `GET /products?limit=50` and `GET /products/{id}` per run, medians;
 * refresh chains (16 concurrent, over HTTP, each chain refreshing with the token it was just given).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs, promisify } from "node:util";

const ROOT = join(import.meta.dirname, "..");
const NODE = process.execPath;
const DATABASE_URL = process.env.BENCH_DATABASE_URL || "postgres://postgres:postgres@127.0.0.1:5432/test";
const PORT_BASE = Number(process.env.PROBE_PORT_BASE ?? 44600);
const LIST_SQL =
  'select * from "products" where "store_id" = $1 order by "created_at" desc, "id" desc limit $2';
const GET_SQL = 'select * from "products" where "store_id" = $1 and "id" = $2';

// --- floor: bare Fastify + the same SQL --------------------------------------------------------
async function floor() {
  const { default: Fastify } = await import("fastify");
  const port = Number(process.env.PORT);
  const app = Fastify({ logger: false });
  let query: (sql: string, params: unknown[]) => Promise<unknown[]>;
  if (process.env.FLOOR_DATA_DIR) {
    const { PGlite } = await import("@electric-sql/pglite");
    const db = await PGlite.create(join(process.env.FLOOR_DATA_DIR, "pgdata"));
    query = async (sql, params) => (await db.query(sql, params)).rows;
  } else {
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({
      connectionString: DATABASE_URL,
      max: 10,
      options: `-c search_path=${process.env.FLOOR_SCHEMA}`,
    });
    const named = process.env.FLOOR_PREPARED === "1";
    query = async (text, values) =>
      (await pool.query(named ? { name: text === LIST_SQL ? "l" : "g", text, values } : { text, values }))
        .rows;
  }
  const storeId = process.env.FLOOR_STORE_ID!;
  app.get("/products", async () => ({ success: true, data: await query(LIST_SQL, [storeId, 51]) }));
  app.get<{ Params: { id: string } }>("/products/:id", async (request, reply) => {
    const rows = await query(GET_SQL, [storeId, request.params.id]);
    if (!rows[0]) return reply.code(404).send({ success: false });
    return { success: true, data: rows[0] };
  });
  await app.listen({ port, host: "127.0.0.1" });
  process.send?.("ready");
}

// --- setup: a store with products, an installed app, 16 token families --------------------------
async function setup(options: { embedded: boolean; schema: string; dataDir: string }) {
  const { loadConfig } = await import("../src/config.ts");
  const { openDatabase } = await import("../src/db/client.ts");
  const { migrate } = await import("../src/db/migrate.ts");
  const { createPlatform } = await import("../src/platform.ts");
  const { buildApp } = await import("../src/app.ts");
  const { consent, exchange, REDIRECT, registerApp } = await import("../test/apps-harness.ts");
  const { merchantWithStore } = await import("../test/harness.ts");
  const config = loadConfig({
    LOG_LEVEL: "silent",
    DEMO_SEED: "false",
    DATA_DIR: options.dataDir,
    ...(options.embedded ? {} : { DATABASE_URL, SECRETS_KEY: randomBytes(32).toString("base64") }),
    DATABASE_SCHEMA: options.schema,
  });
  const database = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: options.embedded ? options.dataDir : undefined,
    schema: options.schema,
  });
  await migrate(database);
  const platform = createPlatform({ config, database });
  const app = await buildApp(platform);
  await app.ready();
  const registered = await registerApp(app, ["read_products"]);
  const merchant = await merchantWithStore(app);
  const refreshTokens: string[] = [];
  let accessToken = "";
  for (let i = 0; i < 17; i++) {
    const { code } = await consent(merchant, registered.clientId, ["read_products"]);
    const res = await exchange(app, {
      slug: merchant.slug,
      code,
      redirectUri: REDIRECT,
      clientId: registered.clientId,
      clientSecret: registered.clientSecret,
    });
    if (res.status !== 200) throw new Error(`exchange: ${JSON.stringify(res.body)}`);
    if (i === 0) accessToken = res.data.accessToken;
    else refreshTokens.push(res.data.refreshToken);
  }
  const store = (await platform.repos.stores.findBySlug(merchant.slug))!;
  const rows = Array.from({ length: 1000 }, (_, i) => {
    const at = new Date(Date.now() - (1000 - i) * 1000);
    return {
      store_id: store.id,
      id: `prod_${randomBytes(16).toString("hex").slice(0, 22)}`,
      title: `Organic cotton T-shirt ${i}`,
      description: "A soft, breathable T-shirt made of 100% organic cotton. Machine washable.",
      price_minor: 2490 + i,
      sku: `TS-${i}`,
      stock: 120,
      status: "active" as const,
      created_at: at,
      updated_at: at,
    };
  });
  await platform.db.insertInto("products").values(rows).execute();
  await database.execScript("ANALYZE");
  await app.close();
  await platform.close();
  return {
    accessToken,
    refreshTokens,
    clientId: registered.clientId,
    clientSecret: registered.clientSecret,
    storeId: store.id,
    productId: rows[500]!.id,
    secretsKey: config.SECRETS_KEY,
  };
}

// --- processes -----------------------------------------------------------------------------------
function waitForHttp(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = async () => {
      if (child.exitCode !== null) return reject(new Error(`${url}: process exited ${child.exitCode}`));
      try {
        const res = await fetch(url);
        await res.arrayBuffer();
        return resolve();
      } catch {}
      if (Date.now() - started > timeoutMs) return reject(new Error(`${url} did not answer`));
      setTimeout(tick, 100);
    };
    void tick();
  });
}
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
function peakRssMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

const execFileP = promisify(execFile);
async function wrk(url: string, seconds: number, headers: Record<string, string> = {}) {
  const args = ["-t2", "-c50", `-d${seconds}s`, "--latency"];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
  const { stdout } = await execFileP("wrk", [...args, url]);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  if (non2xx) throw new Error(`${url}: ${non2xx} non-2xx answers`);
  const p50 = /50%\s+([\d.]+\w+)/.exec(stdout)?.[1];
  return { rps, p50 };
}

/** 16 refresh chains over HTTP for `seconds`; refreshes per second. */
async function refreshChains(
  base: string,
  client: { id: string; secret: string },
  tokens: string[],
  seconds: number,
) {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  const chains = tokens.map(async (initial, i) => {
    let token = initial;
    while (Date.now() < until) {
      const res = await fetch(`${base}/api/v1/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: token,
          client_id: client.id,
          client_secret: client.secret,
        }),
      });
      const body = (await res.json()) as { refresh_token?: string };
      if (res.status !== 200 || !body.refresh_token)
        throw new Error(`chain ${i}: ${res.status} ${JSON.stringify(body)}`);
      token = body.refresh_token;
      done++;
    }
    return token;
  });
  const started = Date.now();
  const last = await Promise.all(chains);
  return { rate: done / ((Date.now() - started) / 1000), last };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "3" },
      seconds: { type: "string", default: "10" },
      "refresh-seconds": { type: "string", default: "10" },
      embedded: { type: "boolean", default: false },
      redis: { type: "boolean", default: false },
      "floor-prepared": { type: "boolean", default: false },
      "cpu-prof": { type: "string" },
      only: { type: "string", default: "list,get,refresh" },
      "log-level": { type: "string", default: "info" },
    },
  });
  const runs = Number(values.runs);
  const seconds = Number(values.seconds);
  const only = new Set(values.only!.split(","));
  const embedded = values.embedded!;
  const schema = embedded ? "public" : `probe_${randomBytes(4).toString("hex")}`;
  const work = mkdtempSync(join(tmpdir(), "adminpath-"));
  const dataDir = join(work, "service");
  const floorDir = join(work, "floor");
  const fixture = await setup({ embedded, schema, dataDir });
  if (embedded) cpSync(dataDir, floorDir, { recursive: true });
  const servicePort = PORT_BASE;
  const floorPort = PORT_BASE + 1;
  const service = spawn(
    NODE,
    [...(values["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${values["cpu-prof"]}`] : []), "src/main.ts"],
    {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...process.env,
        PORT: String(servicePort),
        HOST: "127.0.0.1",
        METRICS_PORT: "0",
        RUN_MODE: embedded ? "all" : "api",
        LOG_LEVEL: values["log-level"],
        DEMO_SEED: "false",
        DATA_DIR: dataDir,
        DATABASE_SCHEMA: schema,
        RATE_LIMIT_PER_MINUTE: "1000000000",
        ...(embedded ? {} : { DATABASE_URL, SECRETS_KEY: fixture.secretsKey }),
        ...(values.redis ? { REDIS_URL: "redis://127.0.0.1:6379/14" } : {}),
      },
    },
  );
  const floorProcess = spawn(NODE, [import.meta.filename, "--floor"], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      PORT: String(floorPort),
      FLOOR_SCHEMA: schema,
      FLOOR_STORE_ID: fixture.storeId,
      ...(embedded ? { FLOOR_DATA_DIR: floorDir } : {}),
      FLOOR_PREPARED: values["floor-prepared"] ? "1" : "0",
    },
  });
  try {
    const svc = `http://127.0.0.1:${servicePort}`;
    const flr = `http://127.0.0.1:${floorPort}`;
    await waitForHttp(`${svc}/healthz`, service);
    await waitForHttp(`${flr}/products/x`, floorProcess);
    const auth = { authorization: `Bearer ${fixture.accessToken}` };
    const paths = {
      list: [`${svc}/api/v1/apps/api/products?limit=50`, `${flr}/products`],
      get: [`${svc}/api/v1/apps/api/products/${fixture.productId}`, `${flr}/products/${fixture.productId}`],
    } as const;
    console.log(
      `mode ${embedded ? "embedded PGlite" : "PostgreSQL"}${values.redis ? " + Redis" : ""}, node ${process.version}, load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );
    // Warm-up: JIT, pools, prepared statements.
    for (const kind of ["list", "get"] as const) {
      if (!only.has(kind)) continue;
      await wrk(paths[kind][0], 2, auth);
      await wrk(paths[kind][1], 2);
    }
    const ratios: Record<string, number[]> = { list: [], get: [] };
    for (let run = 1; run <= runs; run++) {
      for (const kind of ["list", "get"] as const) {
        if (!only.has(kind)) continue;
        const s = await wrk(paths[kind][0], seconds, auth);
        const f = await wrk(paths[kind][1], seconds);
        ratios[kind]!.push(s.rps / f.rps);
        console.log(
          `run ${run} ${kind.padEnd(4)} service ${s.rps.toFixed(0).padStart(6)} req/s (p50 ${s.p50})  floor ${f.rps.toFixed(0).padStart(6)} req/s (p50 ${f.p50})  ratio ${(s.rps / f.rps).toFixed(3)}`,
        );
      }
    }
    for (const kind of ["list", "get"] as const)
      if (ratios[kind]!.length) console.log(`median ratio ${kind}: ${median(ratios[kind]!).toFixed(3)}`);
    if (only.has("refresh")) {
      const rates: number[] = [];
      let tokens = fixture.refreshTokens;
      for (let run = 1; run <= runs; run++) {
        const r = await refreshChains(
          svc,
          { id: fixture.clientId, secret: fixture.clientSecret },
          tokens,
          Number(values["refresh-seconds"]),
        );
        tokens = r.last;
        rates.push(r.rate);
        console.log(`run ${run} refresh (16 chains) ${r.rate.toFixed(0)}/s`);
      }
      console.log(`median refresh: ${median(rates).toFixed(0)}/s`);
    }
    console.log(
      `service peak RSS ${peakRssMb(service.pid).toFixed(0)} MB; load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );
  } finally {
    await Promise.all([stop(service), stop(floorProcess)]);
    rmSync(work, { recursive: true, force: true });
    if (!embedded) {
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  }
}

if (process.argv.includes("--floor")) await floor();
else await main();
