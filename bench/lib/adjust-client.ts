/**
 * Load process of the stock adjustment figure (forked by bench/catalogue.ts, so the load never
 * shares the server's event loop): `connections` loops, each posting `+1` adjustments of one of
 * `variants` (round robin) at `locationId`, over keep-alive HTTP to the Admin API.
 *
 * Input (argv[2], JSON): base, token, variants, locationId, connections, seconds, warmupSeconds.
 * Output (IPC): { rate, count, p50, p99, errors }.
 */
import { Agent, request } from "undici";
import { now, percentile } from "./stats.ts";

interface Input {
  base: string;
  token: string;
  variants: string[];
  locationId: string;
  connections: number;
  seconds: number;
  warmupSeconds: number;
}

const input = JSON.parse(process.argv[2]!) as Input;
const agent = new Agent({ connections: input.connections, keepAliveTimeout: 60_000 });
const started = now();
const measureFrom = started + input.warmupSeconds * 1000;
const until = measureFrom + input.seconds * 1000;
const latencies: number[] = [];
let errors = 0;
let next = 0;

async function loop() {
  while (now() < until) {
    const variantId = input.variants[next++ % input.variants.length]!;
    const t = now();
    const res = await request(`${input.base}/api/v1/apps/api/inventory-levels/adjust`, {
      method: "POST",
      dispatcher: agent,
      headers: { "content-type": "application/json", authorization: `Bearer ${input.token}` },
      body: JSON.stringify({
        reason: "received",
        changes: [{ variantId, locationId: input.locationId, delta: 1 }],
      }),
    });
    await res.body.dump();
    if (res.statusCode !== 201) errors++;
    else if (t >= measureFrom) latencies.push(now() - t);
  }
}

await Promise.all(Array.from({ length: input.connections }, loop));
await agent.close();
latencies.sort((a, b) => a - b);
process.send!({
  rate: latencies.length / input.seconds,
  count: latencies.length,
  p50: percentile(latencies, 50),
  p99: percentile(latencies, 99),
  errors,
});
