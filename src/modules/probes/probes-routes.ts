import Type from "typebox";
import { AppError } from "../../lib/errors.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope, errorResponses } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { type RedisStatus, RedisStatusSchema } from "../../lib/rate-limit/redis-window-store.ts";

/**
 * The liveness and readiness probes, at the root (`/healthz`, `/readyz`), without credentials.
 * `ping` throws unless the database answers, and says how Redis is (platform.ts's `ping`).
 */
export function registerProbeRoutes(app: App, ping: () => Promise<{ redis: RedisStatus }>) {
  app.get(
    "/healthz",
    {
      schema: {
        operationId: "healthz",
        security: [],
        tags: ["Operations"],
        summary: "Liveness: the process is serving",
        description:
          "Answers 200 while the process serves HTTP, whatever its database or Redis: a supervisor restarts the process when this fails, and a dependency that is down is not a reason to restart it (see `/readyz`).",
        response: { 200: Envelope(Type.Object({ status: Type.Literal("ok") })), ...errorResponses() },
      },
    },
    async () => ({ success: true as const, data: { status: "ok" as const } }),
  );
  app.get(
    "/readyz",
    {
      schema: {
        operationId: "readyz",
        security: [],
        tags: ["Operations"],
        summary: "Readiness: the database answers (503 otherwise); says whether Redis is ok or degraded",
        description:
          "For a load balancer: 503 while the database does not answer, so traffic goes to another process. Redis down is `degraded`, still 200: the process serves, with rate limits and caches kept per process until Redis is back.",
        response: {
          200: Envelope(Type.Object({ status: Type.Literal("ready"), redis: RedisStatusSchema })),
          ...errorResponses("SERVICE_UNAVAILABLE"),
        },
      },
    },
    async () => {
      let readiness: { redis: RedisStatus };
      try {
        readiness = await ping();
      } catch {
        throw new AppError("SERVICE_UNAVAILABLE");
      }
      // Still ready with Redis degraded: the service serves, with per-instance limits meanwhile.
      return { success: true as const, data: { status: "ready" as const, ...readiness } };
    },
  );
}

/** The probes (platform.ts lists them). */
export function probeRoutes(ping: () => Promise<{ redis: RedisStatus }>): FeatureRoutes {
  return {
    tags: {
      Operations:
        "Health and readiness probes. Prometheus metrics are not on this port: they are served at `/metrics` on the metrics listener (`METRICS_HOST:METRICS_PORT`, loopback by default).",
    },
    public: (app) => registerProbeRoutes(app, ping),
  };
}
