/**
 * Load process of the token refresh figure (forked by bench/refresh.ts, so the load never shares
 * the server's event loop). N chains, each refreshing with the refresh token its previous refresh
 * answered, over keep-alive HTTP to the standard OAuth token endpoint. wrk cannot chain: each
 * request depends on the answer before it.
 *
 * Input (argv[2], JSON): base, clientId, clientSecret, refreshTokens (one per chain), seconds,
 * warmupSeconds. Output (IPC): { rate, count, p50, p99, refreshTokens } - the last tokens, so the
 * next run continues the chains.
 */
import { Agent, request } from "undici";
import { now, percentile } from "./stats.ts";

interface Input {
  base: string;
  clientId: string;
  clientSecret: string;
  refreshTokens: string[];
  seconds: number;
  warmupSeconds: number;
}

const input = JSON.parse(process.argv[2]!) as Input;
const agent = new Agent({ connections: input.refreshTokens.length, keepAliveTimeout: 60_000 });
const tokens = [...input.refreshTokens];
const started = now();
const measureFrom = started + input.warmupSeconds * 1000;
const until = measureFrom + input.seconds * 1000;
const latencies: number[] = [];

async function chain(i: number) {
  while (now() < until) {
    const t = now();
    const res = await request(`${input.base}/api/v1/oauth/token`, {
      method: "POST",
      dispatcher: agent,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: tokens[i]!,
        client_id: input.clientId,
        client_secret: input.clientSecret,
      }).toString(),
    });
    const body = (await res.body.json()) as { refresh_token?: string };
    if (res.statusCode !== 200 || !body.refresh_token)
      throw new Error(`refresh answered ${res.statusCode}: ${JSON.stringify(body)}`);
    tokens[i] = body.refresh_token;
    const done = now();
    if (t >= measureFrom && done <= until) latencies.push(done - t);
  }
}

await Promise.all(tokens.map((_, i) => chain(i)));
await agent.close();
latencies.sort((a, b) => a - b);
process.send!(
  {
    rate: latencies.length / input.seconds,
    count: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    refreshTokens: tokens,
  },
  () => process.exit(0),
);
