import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { Clock } from "../../../lib/clock.ts";
import type { DeliveryRepo } from "./delivery-repo.ts";
import type { Outcome } from "./retry-policy.ts";

/**
 * Prometheus metrics of the delivery engine: attempts by outcome, attempt latency, and (read from
 * the database at scrape time, so every instance reports the shared queue) queue depth and the age
 * of the oldest pending delivery. Registered in the platform's registry (platform.metrics).
 */
export function createWebhookMetrics(deps: {
  registry: Registry;
  repo: Pick<DeliveryRepo, "stats">;
  clock: Clock;
}) {
  const { registry } = deps;
  const attempts = new Counter({
    name: "webhook_delivery_attempts_total",
    help: "Delivery attempts by outcome (delivered, retry, failed).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "webhook_delivery_attempt_duration_seconds",
    help: "Duration of delivery attempts.",
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  let cached: { at: number; stats: Awaited<ReturnType<DeliveryRepo["stats"]>> } | null = null;
  const stats = async () => {
    const now = deps.clock.now();
    // One query pair per scrape, shared by the three gauges below.
    if (!cached || now.getTime() - cached.at > 1000)
      cached = { at: now.getTime(), stats: await deps.repo.stats(now) };
    return cached.stats;
  };
  new Gauge({
    name: "webhook_deliveries_pending",
    help: "Deliveries waiting for an attempt (queue depth).",
    registers: [registry],
    async collect() {
      this.set((await stats()).pending);
    },
  });
  new Gauge({
    name: "webhook_events_undispatched",
    help: "Outbox events not yet fanned out to deliveries.",
    registers: [registry],
    async collect() {
      this.set((await stats()).undispatchedEvents);
    },
  });
  new Gauge({
    name: "webhook_oldest_pending_delivery_age_seconds",
    help: "Age of the oldest pending delivery.",
    registers: [registry],
    async collect() {
      this.set((await stats()).oldestPendingAgeSeconds);
    },
  });
  return {
    registry,
    attemptFinished(outcome: Outcome, seconds: number) {
      attempts.inc({ outcome });
      latency.observe(seconds);
    },
  };
}
export type WebhookMetrics = ReturnType<typeof createWebhookMetrics>;
