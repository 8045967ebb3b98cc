import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Registry } from "prom-client";

/**
 * The platform's one Prometheus registry: every module registers its metrics here (the webhook
 * engine's today), and the metrics listener serves it.
 */
export function createMetrics() {
  return { registry: new Registry() };
}
export type Metrics = ReturnType<typeof createMetrics>;

export interface MetricsListener {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` on its own listener (METRICS_HOST:METRICS_PORT, loopback by default), apart
 * from the public API: metrics tell queue depths and failure rates to whoever can read them.
 * Everything else answers 404.
 */
export async function serveMetrics(
  registry: Registry,
  options: { port: number; host: string; onError?: (error: unknown) => void },
): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(404, { "content-type": "text/plain" }).end("Not found: metrics are at /metrics\n");
      return;
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { "content-type": registry.contentType });
        response.end(request.method === "HEAD" ? undefined : text);
      },
      (error: unknown) => {
        // A gauge reads the database; while it is down the scrape fails, and says only that.
        options.onError?.(error);
        response.writeHead(503, { "content-type": "text/plain" }).end("metrics unavailable\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: options.port, host: options.host }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Scrapers keep connections alive; do not wait for them to leave.
        server.closeAllConnections();
      }),
  };
}
