import type { DatabaseHandle } from "./client.ts";

const EVERY_MS = 10 * 60 * 1000;

/**
 * The embedded PostgreSQL runs no autovacuum, so the planner would never learn table sizes and
 * would sort whole tables where an index gives rows in order (measured: 2.8 ms against 1.3 ms for a
 * 50-row page of 5,000 products). Refresh the statistics at start and every 10 minutes.
 * A PostgreSQL server does this itself.
 */
export function startEmbeddedMaintenance(
  handle: DatabaseHandle,
  onError: (error: unknown) => void,
): () => void {
  if (handle.kind !== "pglite") return () => {};
  const run = () => {
    handle.execScript("ANALYZE").catch(onError);
  };
  run();
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
