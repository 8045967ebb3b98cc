/**
 * The load client of bench/export.ts, in its own process: downloads one export over HTTP as an
 * app would (keep nothing, count the lines), and prints one JSON line with what it measured.
 *
 *   node bench/lib/export-client.ts <url> '<headers as JSON>' [gzip]
 */
import http from "node:http";
import { createGunzip } from "node:zlib";

const [url, headersJson = "{}", mode = "identity"] = process.argv.slice(2);
if (!url) throw new Error("usage: export-client.ts <url> <headers json> [gzip|identity]");
const headers = JSON.parse(headersJson) as Record<string, string>;
const gzip = mode === "gzip";

const started = performance.now();
const result = await new Promise<{ status: number; lines: number; bytes: number; wireBytes: number }>(
  (resolve, reject) => {
    const request = http.get(url, { headers: { ...headers, "accept-encoding": gzip ? "gzip" : "identity" } });
    request.on("error", reject);
    request.on("response", (res) => {
      let wireBytes = 0;
      let bytes = 0;
      let lines = 0;
      res.on("data", (chunk: Buffer) => {
        wireBytes += chunk.length;
      });
      const body = gzip && res.headers["content-encoding"] === "gzip" ? res.pipe(createGunzip()) : res;
      body.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      });
      body.on("end", () => resolve({ status: res.statusCode ?? 0, lines, bytes, wireBytes }));
      body.on("error", reject);
      res.on("error", reject);
    });
  },
);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ ...result, seconds })}\n`);
