/**
 * The attacker of bench/export-paused.ts, in its own process: opens `perKey` bulk exports with each
 * of the given key pairs at once and reads nothing past the headers, as a client that stalls (or
 * means harm) would. Prints one JSON line with the statuses once every answer's headers are in,
 * then holds the connections open until it is told to close them (a line on stdin) or killed.
 *
 *   node bench/lib/paused-exports-client.ts <export url> '<key pairs as JSON>' <perKey>
 */
import http from "node:http";
import { createInterface } from "node:readline";

const [url, keysJson = "[]", perKeyText = "2"] = process.argv.slice(2);
if (!url) throw new Error("usage: paused-exports-client.ts <url> <key pairs json> <per key>");
const keys = JSON.parse(keysJson) as Array<Record<string, string>>;
const perKey = Number(perKeyText);
const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

const requests: http.ClientRequest[] = [];
const statuses = await Promise.all(
  keys.flatMap((key) =>
    Array.from(
      { length: perKey },
      () =>
        new Promise<number>((resolve, reject) => {
          const request = http.get(url, { agent, headers: { ...key, "accept-encoding": "identity" } });
          requests.push(request);
          request.on("error", reject);
          request.on("response", (res) => {
            const status = res.statusCode ?? 0;
            // A refusal is read to its end; a running export is left unread (paused).
            if (status !== 200) res.resume();
            resolve(status);
          });
        }),
    ),
  ),
);
const count = (s: number) => statuses.filter((x) => x === s).length;
process.stdout.write(
  `${JSON.stringify({ running: count(200), refused: count(429), other: statuses.length - count(200) - count(429) })}\n`,
);
createInterface({ input: process.stdin }).once("line", () => {
  for (const request of requests) request.destroy();
  process.stdout.write("closed\n");
  setTimeout(() => process.exit(0), 100);
});
