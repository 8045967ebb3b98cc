import { spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { portIsFree, TEST_PORTS } from "./ports.ts";

/**
 * A throwaway PostgreSQL server of the test's own (initdb + pg_ctl in a temp directory), so a fault
 * test can stop, kill and restart it without touching the shared server. Run as the `postgres` OS
 * user when the test runs as root (PostgreSQL refuses to run as root), as the current user otherwise.
 */

/** The bin directory of the newest installed PostgreSQL (or PG_BIN); null when there is none. */
export function postgresBinDir(): string | null {
  const candidates = process.env.PG_BIN
    ? [process.env.PG_BIN]
    : existsSync("/usr/lib/postgresql")
      ? readdirSync("/usr/lib/postgresql")
          .sort((a, b) => Number(b) - Number(a))
          .map((v) => `/usr/lib/postgresql/${v}/bin`)
      : [];
  return candidates.find((d) => existsSync(join(d, "initdb")) && existsSync(join(d, "pg_ctl"))) ?? null;
}

const asRoot = process.getuid?.() === 0;

function run(bin: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  const [cmd, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c: Buffer) => {
      output += c;
    });
    child.stderr.on("data", (c: Buffer) => {
      output += c;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

export interface TempPostgres {
  readonly port: number;
  /** postgres:// URL of the server's `postgres` database (trust authentication on loopback). */
  readonly url: string;
  readonly running: boolean;
  start(): Promise<void>;
  /** pg_ctl stop: `fast` ends sessions and checkpoints; `immediate` kills the server (crash recovery on start). */
  stop(mode: "fast" | "immediate"): Promise<void>;
  /** The server's log, for a failing test's message. */
  log(): string;
  destroy(): Promise<void>;
}

/** initdb a fresh cluster in a temp directory and start it on a free loopback port. */
export async function startTempPostgres(binDir: string): Promise<TempPostgres> {
  const root = mkdtempSync(join(tmpdir(), "pgfault-"));
  // The server's OS user must be able to reach its directories.
  chmodSync(root, 0o755);
  const dataDir = join(root, "data");
  const socketDir = join(root, "sock");
  const logFile = join(root, "server.log");
  mkdirSync(dataDir, { mode: 0o700 });
  mkdirSync(socketDir);
  if (asRoot) {
    const { uid, gid } = postgresIds();
    for (const d of [root, dataDir, socketDir]) chownSync(d, uid, gid);
  }
  const pgCtl = join(binDir, "pg_ctl");
  const init = await run(
    join(binDir, "initdb"),
    ["-D", dataDir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"],
    root,
  );
  if (init.code !== 0) throw new Error(`initdb failed:\n${init.output}`);

  let port = 0;
  let running = false;
  const startOn = async (p: number) =>
    run(
      pgCtl,
      [
        "-D",
        dataDir,
        "-l",
        logFile,
        "-w",
        "-t",
        "120",
        "-o",
        // fsync off: the test loses nothing it needs when the server is killed, only time.
        `-p ${p} -k ${socketDir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`,
        "start",
      ],
      root,
    );

  const server: TempPostgres = {
    get port() {
      return port;
    },
    get url() {
      return `postgres://postgres@127.0.0.1:${port}/postgres`;
    },
    get running() {
      return running;
    },
    async start() {
      if (running) return;
      if (port) {
        // A restart keeps its port: the service's DATABASE_URL points there.
        const r = await startOn(port);
        if (r.code !== 0) throw new Error(`pg_ctl start failed:\n${r.output}\n${server.log()}`);
        running = true;
        return;
      }
      // Two runs at once must not collide: take the first port that is free and stays ours.
      for (let p = TEST_PORTS.postgres; p < TEST_PORTS.postgres + 200; p++) {
        if (!(await portIsFree(p))) continue;
        const r = await startOn(p);
        if (r.code === 0) {
          port = p;
          running = true;
          return;
        }
        if (!/could not bind|already in use/i.test(server.log())) {
          throw new Error(`pg_ctl start failed:\n${r.output}\n${server.log()}`);
        }
      }
      throw new Error("no free port for the test PostgreSQL server");
    },
    async stop(mode) {
      if (!running) return;
      const r = await run(pgCtl, ["-D", dataDir, "-m", mode, "-w", "-t", "120", "stop"], root);
      if (r.code !== 0) throw new Error(`pg_ctl stop failed:\n${r.output}`);
      running = false;
    },
    log() {
      try {
        return readFileSync(logFile, "utf8");
      } catch {
        return "";
      }
    },
    async destroy() {
      await server.stop("immediate").catch(() => {});
      rmSync(root, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

function postgresIds(): { uid: number; gid: number } {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error("no postgres OS user to run the test server as");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}
