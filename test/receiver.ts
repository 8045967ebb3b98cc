import { readFileSync } from "node:fs";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import { join } from "node:path";

const TLS = join(import.meta.dirname, "fixtures", "tls");

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  path: string;
}

export type Responder = (req: Received, res: ServerResponse) => void;

/**
 * A real HTTPS webhook receiver on loopback, with the test CA's certificate (trusted by the test
 * process through NODE_EXTRA_CA_CERTS). Records every request; answers with `respond`.
 */
export async function startReceiver(respond: Responder = (_r, res) => res.end("ok")) {
  const received: Received[] = [];
  let handler = respond;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server: Server = createServer(
    { key: readFileSync(join(TLS, "server-key.pem")), cert: readFileSync(join(TLS, "server.pem")) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const entry = {
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          at: Date.now(),
          path: req.url ?? "/",
        };
        received.push(entry);
        handler(entry, res);
        for (const w of [...waiters]) {
          if (received.length >= w.n) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve();
          }
        }
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `https://127.0.0.1:${port}`,
    localhostUrl: `https://localhost:${port}`,
    port,
    received,
    setResponder(next: Responder) {
      handler = next;
    },
    /** Resolves once `n` requests have arrived (or rejects after `timeoutMs`). */
    waitFor(n: number, timeoutMs = 20_000): Promise<void> {
      if (received.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${received.length} of ${n} requests`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
