import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

/**
 * Service processes exactly as operators run them (`RUN_MODE=api|worker node src/main.ts`), for
 * tests that need several instances sharing one PostgreSQL server and one Redis. Every wait polls
 * a condition with an upper bound and fails at once when the process dies first.
 */
export const ROOT = join(import.meta.dirname, "..");

export interface ServiceProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Parsed JSON log records (pino), in order. */
  readonly logs: Array<Record<string, unknown>>;
  /** Base URL once the HTTP server listens (api and all modes). */
  url(): Promise<string>;
  /** Resolves when `check` holds; rejects at once if the process exits first, or when the bound passes. */
  waitFor(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  alive(): boolean;
  /** What the process wrote to stderr (a crash's stack). */
  stderr(): string;
  /** SIGTERM (drains) by default, SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

/**
 * Starts `src/main.ts` in `mode`. The HTTP port is ephemeral (PORT=0, read back from Fastify's
 * "Server listening at" record), the metrics listener off: any number of processes can run side
 * by side, on any machine, without choosing ports. `env` adds to and overrides the defaults.
 */
export function startService(
  mode: "api" | "worker" | "all",
  env: Record<string, string>,
  name: string = mode,
): ServiceProcess {
  const child = spawn(process.execPath, [join(ROOT, "src/main.ts")], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      NODE_EXTRA_CA_CERTS: join(ROOT, "test/fixtures/tls/ca.pem"),
      RUN_MODE: mode,
      HOST: "127.0.0.1",
      PORT: "0",
      METRICS_PORT: "0",
      DEMO_SEED: "false",
      LOG_LEVEL: "info",
      ...env,
    },
  });
  const logs: Array<Record<string, unknown>> = [];
  let stderr = "";
  let buffered = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk;
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line));
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk;
  });
  const alive = () => child.exitCode === null && child.signalCode === null;
  const waitFor: ServiceProcess["waitFor"] = async (check, what, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (!alive())
        throw new Error(
          `${name} process exited (${child.exitCode ?? child.signalCode}) before ${what}: ${stderr}`,
        );
      if (Date.now() > deadline) throw new Error(`${name} process: timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/;
  return {
    name,
    child,
    logs,
    alive,
    waitFor,
    stderr: () => stderr,
    async url() {
      await waitFor(() => logs.some((r) => listening.test(String(r.msg))), "the HTTP server to listen");
      const record = logs.find((r) => listening.test(String(r.msg)))!;
      return listening.exec(String(record.msg))![1]!;
    },
    async stop(signal: NodeJS.Signals = "SIGTERM", graceMs = 30_000) {
      if (!alive()) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
