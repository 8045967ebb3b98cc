/**
 * Token refresh throughput: N chains (default 16), each refreshing with the refresh token its
 * previous refresh answered, over real HTTP to POST /api/v1/oauth/token of the API process on
 * PostgreSQL. The load is a separate Node.js process (bench/lib/refresh-client.ts).
 */
import { fork } from "node:child_process";
import { join } from "node:path";
import { Scope } from "../src/contracts/index.ts";
import { apiPeakRss, type BenchOptions } from "./lib/options.ts";
import { benchSchema } from "./lib/pg.ts";
import { addFigure, part, printRuns } from "./lib/report.ts";
import { type Proc, startApiOnSchema } from "./lib/service.ts";
import { installApp, merchantWithStore } from "./lib/setup.ts";
import { fmt } from "./lib/stats.ts";

interface ClientResult {
  rate: number;
  count: number;
  p50: number;
  p99: number;
  refreshTokens: string[];
}

function refreshLoad(args: object): Promise<ClientResult> {
  const child = fork(join(import.meta.dirname, "lib", "refresh-client.ts"), [JSON.stringify(args)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    let result: ClientResult | null = null;
    child.once("message", (m) => {
      result = m as ClientResult;
    });
    child.once("exit", (code) =>
      result ? resolve(result) : reject(new Error(`refresh client exited (${code})`)),
    );
  });
}

export async function benchRefresh(o: BenchOptions): Promise<void> {
  const end = part("Token refresh on PostgreSQL", [
    `${o.refreshChains} concurrent chains, keep-alive, POST /api/v1/oauth/token; ${o.seconds} s per run`,
  ]);
  const db = await benchSchema("bench_refresh");
  let api: Proc | null = null;
  try {
    api = await startApiOnSchema(db.schema);
    const merchant = await merchantWithStore(api.url);
    const installed = await installApp(api.url, merchant, [Scope.read_products], o.refreshChains);
    let refreshTokens = installed.pairs.map((p) => p.refreshToken);
    const load = (seconds: number, warmupSeconds: number) =>
      refreshLoad({
        base: api!.url,
        clientId: installed.clientId,
        clientSecret: installed.clientSecret,
        refreshTokens,
        seconds,
        warmupSeconds,
      });
    refreshTokens = (await load(Math.min(3, o.seconds), 0)).refreshTokens;
    const rates: number[] = [];
    for (let r = 1; r <= o.runs; r++) {
      const res = await load(o.seconds, 1);
      refreshTokens = res.refreshTokens;
      rates.push(res.rate);
      console.log(
        `  run ${r}: ${fmt(res.rate)} refreshes/s (${res.count} in ${o.seconds} s; p50 ${fmt(res.p50, 1)} ms, p99 ${fmt(res.p99, 1)} ms)`,
      );
    }
    const rate = printRuns("refreshes/s", rates, "/s");
    addFigure({
      figure: `Token refresh (${o.refreshChains} concurrent chains) refreshes/s`,
      value: `${fmt(rate)}/s`,
      floor: "—",
      ratio: "—",
      target: "≥ 2,000/s",
      met: rate >= 2000,
    });
  } finally {
    if (api) {
      const peak = await api.stop();
      console.log(`  api peak RSS (VmHWM): ${fmt(peak)} MB`);
      apiPeakRss.push({ process: "refresh part, api", mb: peak });
    }
    await db.drop();
    end();
  }
}
