import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_DATABASE_URL } from "./pg.ts";
import { sleep } from "./stats.ts";

export const ROOT = join(import.meta.dirname, "..", "..");
export const TLS = join(ROOT, "test", "fixtures", "tls");

/**
 * How operators start the service: the `start` script of package.json ("exec node src/main.ts",
 * perhaps with `VAR=value` assignments before `node` and flags after it). Read from there, not
 * copied, so a flag added to the start script (a heap limit, say) is benchmarked too.
 */
export function startCommand(): { env: Record<string, string>; nodeArgs: string[]; script: string } {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/).filter((w) => w && w !== "exec");
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[i]!); i++) {
    const [key, ...value] = words[i]!.split("=");
    env[key!] = value.join("=");
  }
  if (words[i] !== "node") throw new Error(`cannot read the start script: ${pkg.scripts.start}`);
  const rest = words.slice(i + 1);
  const scriptAt = rest.findIndex((w) => w.endsWith(".ts") || w.endsWith(".js"));
  if (scriptAt < 0) throw new Error(`no script in the start script: ${pkg.scripts.start}`);
  // BENCH_NODE_ARGS adds flags for one run (a profile: "--cpu-prof --cpu-prof-dir=/tmp/prof").
  const extra = (process.env.BENCH_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
  return { env, nodeArgs: [...rest.slice(0, scriptAt), ...extra], script: rest[scriptAt]! };
}

/** A temporary directory of this benchmark run (/tmp/i10-bench-*). */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "i10-bench-"));
}

let nextPort = 42000 + (process.pid % 100) * 10;
/** A free TCP port in 42000-42999 (the range the benchmark may use). */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 1000; tries++) {
    const port = nextPort;
    nextPort = nextPort >= 42999 ? 42000 : nextPort + 1;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error("no free port in 42000-42999");
}

/** Peak resident set size (VmHWM) of a live process, in MB; NaN once it has exited. */
export function peakRssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
  } catch {
    return Number.NaN;
  }
}

export interface Proc {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Base URL of its HTTP server (http://127.0.0.1:PORT). */
  readonly url: string;
  /** Peak RSS so far (MB). */
  peakRssMb(): number;
  /** Output so far (stderr and stdout), for error messages. */
  output(): string;
  /** Reads the peak RSS, then SIGTERM (SIGKILL after 30 s); resolves with that peak once it exited. */
  stop(): Promise<number>;
}

/**
 * Starts a Node.js process with `nodeArgs` and `script`, on `port`, and waits until GET
 * `readyPath` answers (at most `timeoutMs`); fails at once if the process exits first.
 */
export async function startProcess(options: {
  name: string;
  script: string;
  nodeArgs?: string[];
  args?: string[];
  env: Record<string, string>;
  port: number;
  readyPath?: string;
  timeoutMs?: number;
}): Promise<Proc> {
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), options.script, ...(options.args ?? [])],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...options.env },
    },
  );
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-20_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const alive = () => child.exitCode === null && child.signalCode === null;
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    if (!alive())
      throw new Error(`${options.name} exited (${child.exitCode ?? child.signalCode}):\n${output}`);
    try {
      const res = await fetch(`${url}${options.readyPath ?? "/healthz"}`, {
        signal: AbortSignal.timeout(2000),
      });
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${options.name} did not answer within ${options.timeoutMs ?? 120_000} ms:\n${output}`);
    }
    await sleep(50);
  }
  const pid = child.pid!;
  return {
    name: options.name,
    child,
    pid,
    url,
    peakRssMb: () => peakRssMb(pid),
    output: () => output,
    async stop() {
      const peak = peakRssMb(pid);
      if (!alive()) return peak;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      await exited;
      clearTimeout(timer);
      return peak;
    },
  };
}

/**
 * The service as an operator starts it: the start script's node flags and script, configured by
 * environment only. Defaults for a benchmark: loopback, the metrics listener off, warn-level logs,
 * a rate limit far above what the load reaches (the limiter still runs on every request).
 */
export async function startService(
  name: string,
  env: Record<string, string>,
  options: { beforeRetry?: () => void } = {},
): Promise<Proc> {
  const start = startCommand();
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await startProcess({
        name,
        script: join(ROOT, start.script),
        nodeArgs: start.nodeArgs,
        port,
        env: {
          NODE_EXTRA_CA_CERTS: join(TLS, "ca.pem"),
          HOST: "127.0.0.1",
          PORT: String(port),
          METRICS_PORT: "0",
          LOG_LEVEL: "warn",
          RATE_LIMIT_PER_MINUTE: "1000000000",
          ...start.env,
          ...env,
        },
      });
    } catch (error) {
      // Other processes on the machine may take the port between the check and the service's
      // listen (the embedded start takes seconds in between): try another.
      // The service probes its ports before it starts ("PORT … is already in use"); a listen that
      // loses the race after the probe says EADDRINUSE.
      const message = String((error as Error).message);
      if (attempt >= 3 || !/EADDRINUSE|already in use/.test(message)) throw error;
      options.beforeRetry?.();
    }
  }
}

/**
 * The floor server (bench/lib/floor-server.ts) in its own process, with the service's node flags
 * so both run on the same runtime settings.
 */
export async function startFloor(env: Record<string, string>): Promise<Proc> {
  const port = await freePort();
  return startProcess({
    name: "floor",
    script: join(ROOT, "bench", "lib", "floor-server.ts"),
    nodeArgs: startCommand().nodeArgs,
    port,
    env: { PORT: String(port), ...env },
  });
}

/**
 * The API with one more (made-up) version than the platform has (versioned-service.ts), on the
 * same settings as an API process started with `env`.
 */
export async function startVersioned(env: Record<string, string>): Promise<Proc> {
  const port = await freePort();
  const start = startCommand();
  return startProcess({
    name: "api, versioned",
    script: join(ROOT, "bench", "lib", "versioned-service.ts"),
    nodeArgs: start.nodeArgs,
    port,
    env: {
      // The start script's environment (the allocator's settings, the compile cache), as the API's.
      ...start.env,
      HOST: "127.0.0.1",
      PORT: String(port),
      METRICS_PORT: "0",
      LOG_LEVEL: "warn",
      RATE_LIMIT_PER_MINUTE: "1000000000",
      ...env,
    },
  });
}

/** The environment of an API process on the benchmark's PostgreSQL, in its own schema, with no demo store. */
export function apiEnvOnSchema(schema: string): Record<string, string> {
  return {
    RUN_MODE: "api",
    DATABASE_URL: BENCH_DATABASE_URL,
    DATABASE_SCHEMA: schema,
    SECRETS_KEY: randomBytes(32).toString("base64"),
    DEMO_SEED: "false",
  };
}

/** An API process on the benchmark's PostgreSQL, in its own schema, with no demo store. */
export function startApiOnSchema(schema: string): Promise<Proc> {
  return startService("api", apiEnvOnSchema(schema));
}
