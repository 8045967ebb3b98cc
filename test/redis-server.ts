import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { portIsFree, TEST_PORTS } from "./ports.ts";
import { REDIS_SERVER } from "./requirements.ts";
import { waitUntil } from "./webhooks-harness.ts";

/** One PING over a raw socket: true on +PONG. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}

/**
 * A redis-server of the test's own (temp dir, free port or REDIS_FAULT_PORT, no persistence),
 * which the test can kill with SIGKILL and start again on the same port: an outage and a return
 * with empty data, as after a crash of a cache without persistence.
 */
export async function startRedisServer() {
  let port = Number(process.env.REDIS_FAULT_PORT) || 0;
  const dir = mkdtempSync(join(tmpdir(), "redis-fault-"));
  let child: ChildProcess | null = null;

  /** Starts on `port` (again, after a kill), or on the first port that is free and stays ours. */
  async function start() {
    if (port) return startOn();
    for (let p = TEST_PORTS.redis; p < TEST_PORTS.redis + 200; p++) {
      if (!(await portIsFree(p))) continue;
      port = p;
      try {
        return await startOn();
      } catch {
        port = 0; // taken between the probe and the start (another test run): the next one
      }
    }
    throw new Error("no free port for the test redis-server");
  }

  async function startOn() {
    const proc = spawn(
      REDIS_SERVER,
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      { stdio: "ignore" },
    );
    child = proc;
    const exited = new Promise<never>((_resolve, reject) =>
      proc.once("exit", (code) => reject(new Error(`redis-server on port ${port} exited (${code})`))),
    );
    exited.catch(() => {});
    await Promise.race([waitUntil(() => answersPing(port), 20_000, `redis-server on port ${port}`), exited]);
  }

  /** SIGKILL: no goodbye to the clients, the connections just drop. */
  async function kill() {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGKILL");
    await exited;
  }

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    kill,
    /** SIGSTOP: the connections stay open but nothing answers (a hung server). */
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
export type RedisServer = Awaited<ReturnType<typeof startRedisServer>>;
