import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { prepareDataDir } from "./db-template.ts";
import { TEST_PORTS } from "./ports.ts";

/**
 * Operating the service as operators do: real processes (`node src/main.ts`, `npm start`, the CLI)
 * on the embedded database in a temporary DATA_DIR, on fixed local ports (TEST_PORT_BASE moves
 * them). Waits are polls with generous upper bounds, never fixed sleeps.
 */
const ROOT = join(import.meta.dirname, "..");
const NODE = process.execPath;
const PORT_BASE = Number(process.env.TEST_PORT_BASE || TEST_PORTS.operations);
const READY_WITHIN_MS = 180_000; // an upper bound for a loaded machine, not an expectation
const EXIT_WITHIN_MS = 60_000;

const made: string[] = [];
const running = new Set<Proc>();
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mp-ops-"));
  made.push(dir);
  return dir;
}
/** A DATA_DIR holding a migrated database already (the first start is the first test's). */
async function preparedDir(): Promise<string> {
  const dir = freshDir();
  await prepareDataDir(dir);
  return dir;
}

after(async () => {
  for (const proc of running) proc.killAll();
  await Promise.all([...running].map((p) => p.exited));
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

class Proc {
  readonly child: ChildProcess;
  readonly exited: Promise<Exit>;
  stdout = "";
  stderr = "";
  constructor(command: string, args: string[], env: Record<string, string>) {
    // Own process group: the clean-up can end whatever the command started, orphans included.
    this.child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    this.child.stdout!.on("data", (d) => {
      this.stdout += d;
    });
    this.child.stderr!.on("data", (d) => {
      this.stderr += d;
    });
    running.add(this);
    this.exited = new Promise((resolve) =>
      this.child.once("exit", (code, signal) => {
        running.delete(this);
        resolve({ code, signal });
      }),
    );
  }
  get output() {
    return `${this.stdout}\n${this.stderr}`;
  }
  /** Ends the whole process group (the test's clean-up only). */
  killAll() {
    try {
      process.kill(-this.child.pid!, "SIGKILL");
    } catch {}
  }
  async exit(withinMs = EXIT_WITHIN_MS): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`still running after ${withinMs} ms; output:\n${this.output}`)),
        withinMs,
      );
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The server's environment: embedded database in `dataDir`, loopback only. */
function serverEnv(dataDir: string, port: number, metricsPort: number, extra: Record<string, string> = {}) {
  return {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    METRICS_PORT: String(metricsPort),
    DATABASE_URL: "",
    REDIS_URL: "",
    LOG_LEVEL: "info",
    ...extra,
  };
}
const startServer = (env: Record<string, string>) => new Proc(NODE, [join(ROOT, "src/main.ts")], env);
const runCli = (args: string[], env: Record<string, string>) =>
  new Proc(NODE, [join(ROOT, "src/cli.ts"), ...args], env);

async function get(port: number, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(30_000) });
  return { status: res.status, body: await res.text() };
}

async function waitReady(proc: Proc, port: number): Promise<void> {
  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null)
      throw new Error(
        `exited before serving (${proc.child.exitCode ?? proc.child.signalCode}):\n${proc.output}`,
      );
    try {
      if ((await get(port, "/healthz")).status === 200) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`not serving within ${READY_WITHIN_MS} ms:\n${proc.output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts a server and waits until it serves. A start that failed only because its port was taken
 * (by something else on the machine, or TEST_PORT_BASE moved into the ephemeral range) is tried
 * again (twice at most).
 */
async function started(start: () => Proc, port: number): Promise<Proc> {
  for (let attempt = 1; ; attempt++) {
    const proc = start();
    try {
      await waitReady(proc, port);
      return proc;
    } catch (error) {
      await proc.exit();
      if (attempt >= 3 || !/EADDRINUSE|is already in use/.test(proc.output)) throw error;
    }
  }
}

/** The pid of the process that wrote the JSON log (the node process, whatever started it). */
function loggedPid(proc: Proc): number {
  for (const line of proc.stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    const record = JSON.parse(line) as { pid?: number };
    if (record.pid) return record.pid;
  }
  throw new Error(`no JSON log line with a pid:\n${proc.output}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Resolves true when something accepts connections on the port. */
function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.connect(port, "127.0.0.1");
  });
}

function occupy(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

describe("one process per embedded data directory", () => {
  it("refuses a second server and the CLI on a DATA_DIR in use, naming it and the holder's pid; a lock left by SIGKILL does not block", {
    timeout: 600_000,
  }, async () => {
    const dataDir = freshDir();
    const first = await started(() => startServer(serverEnv(dataDir, PORT_BASE, PORT_BASE + 1)), PORT_BASE);
    const holder = first.child.pid!;
    assert.equal(loggedPid(first), holder, "logs are JSON lines when stdout is not a terminal");

    // The same command again (same ports too), and one on other ports: both are told who has the data.
    for (const port of [PORT_BASE, PORT_BASE + 2]) {
      const second = startServer(serverEnv(dataDir, port, port + 1));
      const refused = await second.exit();
      assert.notEqual(refused.code, 0, second.output);
      assert.ok(second.stderr.includes(dataDir), `names the directory:\n${second.output}`);
      assert.match(second.stderr, new RegExp(`pid ${holder}\\b`), `names the holder:\n${second.output}`);
    }
    assert.equal(await portAnswers(PORT_BASE + 2), false);

    for (const command of ["migrate", "seed"]) {
      const cli = runCli([command], { DATA_DIR: dataDir, DATABASE_URL: "" });
      assert.notEqual((await cli.exit()).code, 0, `${command}: ${cli.output}`);
      assert.ok(cli.stderr.includes(dataDir), `${command}:\n${cli.output}`);
      assert.match(cli.stderr, new RegExp(`pid ${holder}\\b`), `${command}:\n${cli.output}`);
    }
    assert.equal((await get(PORT_BASE, "/healthz")).status, 200, "the holder serves on");

    first.child.kill("SIGKILL");
    await first.exit();
    const next = await started(() => startServer(serverEnv(dataDir, PORT_BASE, PORT_BASE + 1)), PORT_BASE);
    next.child.kill("SIGTERM");
    assert.deepEqual(await next.exit(), { code: 0, signal: null });
  });
});

describe("a start that cannot succeed stops before touching data", () => {
  it("exits when PORT or METRICS_PORT is taken, before creating the database", {
    timeout: 300_000,
  }, async () => {
    const blocker = await occupy(PORT_BASE + 10);
    try {
      for (const [env, variable] of [
        [serverEnv("", PORT_BASE + 10, PORT_BASE + 11), "PORT"],
        [serverEnv("", PORT_BASE + 11, PORT_BASE + 10), "METRICS_PORT"],
      ] as const) {
        const dataDir = join(freshDir(), "data");
        const proc = startServer({ ...env, DATA_DIR: dataDir });
        const { code } = await proc.exit();
        assert.notEqual(code, 0, proc.output);
        assert.match(proc.stderr, new RegExp(`${variable} ${PORT_BASE + 10}\\b.*in use`), proc.output);
        // At most the (released) lock file: no database, no generated key.
        const left = existsSync(dataDir) ? readdirSync(dataDir) : [];
        assert.deepEqual(
          left.filter((name) => name !== "instance.lock"),
          [],
          `${variable}:\n${proc.output}`,
        );
        assert.equal(await portAnswers(PORT_BASE + 11), false);
      }
    } finally {
      blocker.close();
    }
    const dataDir = join(freshDir(), "data");
    const badConfig = startServer({ ...serverEnv(dataDir, PORT_BASE + 12, PORT_BASE + 13), PORT: "http" });
    assert.equal((await badConfig.exit()).code, 78, badConfig.output);
    assert.match(badConfig.stderr, /PORT/);
    assert.equal(existsSync(dataDir), false);

    // A server database without SECRETS_KEY is refused before any connection is tried.
    const noKey = startServer({
      ...serverEnv(dataDir, PORT_BASE + 12, PORT_BASE + 13),
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
      SECRETS_KEY: "",
    });
    assert.equal((await noKey.exit()).code, 78, noKey.output);
    assert.match(noKey.stderr, /SECRETS_KEY is required/);
  });
});

describe("signals", () => {
  it("SIGTERM to `npm start` drains and stops the server: no process is left holding the port", {
    timeout: 300_000,
  }, async () => {
    const port = PORT_BASE + 20;
    const dataDir = await preparedDir();
    const npm = await started(
      () => new Proc("npm", ["start", "--silent"], serverEnv(dataDir, port, port + 1)),
      port,
    );
    const server = loggedPid(npm);
    assert.notEqual(server, npm.child.pid, "npm runs the server as a child");
    npm.child.kill("SIGTERM");
    const exit = await npm.exit();
    try {
      assert.equal(isAlive(server), false, `the server (pid ${server}) outlived npm:\n${npm.output}`);
    } finally {
      if (isAlive(server)) process.kill(server, "SIGKILL");
    }
    assert.equal(await portAnswers(port), false, "nothing listens on the port any more");
    assert.match(npm.stdout, /"msg":"shut down cleanly"/, "the server drained and closed its pools");
    assert.deepEqual(exit, { code: 0, signal: null });
  });

  const noScript = spawnSync("script", ["--version"]).error
    ? "needs `script` (util-linux) for a pseudo-terminal"
    : undefined;
  it("in a terminal: human-readable logs, and Ctrl-C (SIGINT) drains", {
    timeout: 300_000,
    skip: noScript,
  }, async () => {
    const port = PORT_BASE + 30;
    // `script` runs the server on a pseudo-terminal; ^C written to it is the terminal's SIGINT.
    const env = serverEnv(await preparedDir(), port, port + 1, { DEMO_SEED: "false" });
    const tty = await started(
      () => new Proc("script", ["-qefc", `exec '${NODE}' src/main.ts`, "/dev/null"], env),
      port,
    );
    assert.match(tty.stdout, /INFO.*Dashboard: +http:\/\/localhost:/);
    assert.doesNotMatch(tty.stdout, /"level":/, "no JSON on a terminal");
    tty.child.stdin!.write("\x03");
    assert.deepEqual(await tty.exit(), { code: 0, signal: null });
    assert.match(tty.stdout, /INFO.*shut down cleanly/);
    assert.equal(await portAnswers(port), false);
  });
});

describe("metrics listener", () => {
  it("serves /metrics on METRICS_HOST:METRICS_PORT only, not on the public port; METRICS_PORT=0 turns it off", {
    timeout: 300_000,
  }, async () => {
    const port = PORT_BASE + 40;
    const dataDir = await preparedDir();
    const server = await started(
      () => startServer(serverEnv(dataDir, port, port + 1, { DEMO_SEED: "false" })),
      port,
    );
    const publicAnswer = await get(port, "/metrics");
    assert.equal(publicAnswer.status, 404);
    assert.doesNotMatch(publicAnswer.body, /webhook_/);
    const metrics = await get(port + 1, "/metrics");
    assert.equal(metrics.status, 200);
    assert.match(metrics.body, /^# HELP webhook_deliveries_pending /m);
    assert.match(metrics.body, /^webhook_deliveries_pending 0$/m);
    assert.equal((await get(port + 1, "/healthz")).status, 404, "the metrics listener serves metrics only");
    server.child.kill("SIGTERM");
    assert.equal((await server.exit()).code, 0);

    const off = await started(() => startServer(serverEnv(dataDir, port, 0, { DEMO_SEED: "false" })), port);
    assert.equal(await portAnswers(port + 1), false);
    off.child.kill("SIGTERM");
    assert.equal((await off.exit()).code, 0);
  });
});

describe("install and first run", () => {
  it("the lock file holds every optional dependency it names (npm ci refuses it otherwise)", () => {
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { optionalDependencies?: Record<string, string>; version?: string }>;
    };
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
        // Resolved like Node does: beside the package first, then up the tree.
        const prefix = path ? `${path}/` : "";
        const candidates = [`${prefix}node_modules/${name}`, `node_modules/${name}`];
        if (!candidates.some((c) => lock.packages[c]))
          missing.push(`${name}@${range} (for ${path || "root"})`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it("every command the README shows runs on the Node.js that runs npm (20+), through npm", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    // `node src/…` needs Node 24 (type stripping); only npm scripts put node_modules/.bin first.
    assert.deepEqual(readme.match(/(^|[\s`(])node (src|bench|test)\/\S*/gm) ?? [], []);
    for (const [, name] of readme.matchAll(/npm run ([a-z:-]+)/g)) {
      assert.ok(scripts[name!], `README runs "npm run ${name}", which package.json does not define`);
    }
    assert.ok(scripts.cli, "an npm script for the operator CLI");
  });
});
