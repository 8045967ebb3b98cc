import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const SCRIPT = join(import.meta.dirname, "requests.lua");

/** wrk's path, or null (the HTTP parts then say how to install it and the run fails). */
export function findWrk(): string | null {
  for (const dir of (process.env.PATH ?? "").split(":").concat("/usr/bin", "/usr/local/bin")) {
    if (dir && existsSync(join(dir, "wrk"))) return join(dir, "wrk");
  }
  return null;
}

export interface HttpRequest {
  path: string;
  headers?: Record<string, string>;
}

export interface WrkResult {
  rps: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  /** The slowest request, ms. */
  max: number;
  requests: number;
  /** Answers that were not 2xx/3xx, and socket errors: a run with any is not a valid figure. */
  non2xx: number;
  socketErrors: number;
  bytesPerRequest: number;
}

const TIME: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };
const SIZE: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

function ms(text: string | undefined): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text ?? "");
  return m ? Number(m[1]) * TIME[m[2]!]! : Number.NaN;
}

export function parseWrk(out: string): WrkResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN);
  const total = /(\d+) requests in [\d.]+\w+, ([\d.]+)(B|KB|MB|GB) read/.exec(out);
  const requests = Number(total?.[1] ?? 0);
  const bytes = total ? Number(total[2]) * SIZE[total[3]!]! : 0;
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps,
    p50: ms(/^\s+50%\s+(\S+)/m.exec(out)?.[1]),
    p99: ms(/^\s+99%\s+(\S+)/m.exec(out)?.[1]),
    max: ms(/^\s+Latency\s+\S+\s+\S+\s+(\S+)/m.exec(out)?.[1]),
    requests,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    socketErrors: socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    bytesPerRequest: requests ? bytes / requests : Number.NaN,
  };
}

/**
 * Runs wrk (its own process: the load never shares the server's event loop) against `base` for
 * `seconds`, cycling through `requests`. Throws when any answer was an error: a 429 or 500 is
 * cheaper than the real answer and would flatter the figure.
 */
export async function wrk(options: {
  base: string;
  requests: HttpRequest[];
  dir: string;
  seconds: number;
  connections: number;
  threads?: number;
  label: string;
}): Promise<WrkResult> {
  const binary = findWrk();
  if (!binary) throw new Error("wrk is not installed: apt-get install wrk");
  const file = join(options.dir, `requests-${options.label.replace(/\W+/g, "-")}.txt`);
  writeFileSync(
    file,
    options.requests
      .map((r) => [r.path, ...Object.entries(r.headers ?? {}).map(([k, v]) => `${k}: ${v}`)].join("\t"))
      .join("\n"),
  );
  const threads = Math.min(options.threads ?? 2, options.connections);
  const { stdout } = await run(
    binary,
    [
      `-t${threads}`,
      `-c${options.connections}`,
      `-d${options.seconds}s`,
      "--timeout",
      "30s",
      "--latency",
      "-s",
      SCRIPT,
      options.base,
      "--",
      file,
    ],
    { maxBuffer: 1 << 20 },
  );
  const result = parseWrk(stdout);
  if (!Number.isFinite(result.rps) || result.requests === 0)
    throw new Error(`${options.label}: wrk printed no figures:\n${stdout}`);
  if (result.non2xx || result.socketErrors)
    throw new Error(
      `${options.label}: ${result.non2xx} error answers and ${result.socketErrors} socket errors:\n${stdout}`,
    );
  return result;
}
