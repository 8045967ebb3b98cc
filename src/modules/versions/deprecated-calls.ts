import type { DeprecatedUsage } from "./deprecations.ts";

/**
 * Calls that used something deprecated (made at a deprecated API version, to a deprecated
 * operation, with a deprecated request field), counted per app, version, operation and usage so
 * the app's developer sees what to change before the sunset (issue 29). Counted in memory and written in
 * one statement per flush (every few seconds, and at shutdown): never a write per request. Each
 * process adds its own counts (an upsert that sums), so the counts are every process's together.
 */
export interface DeprecatedCall {
  appId: string;
  version: string;
  operationId: string;
  /** What was deprecated: the version, the operation, or a field (`field:<name>`). */
  usage: DeprecatedUsage;
  /** The day (UTC, `YYYY-MM-DD`) the calls were made. */
  day: string;
  calls: number;
  lastAt: Date;
}

/** The most distinct (app, version, operation, usage, day) kept between flushes: the rest wait for the next. */
export const DEPRECATED_CALLS_MAX_KEYS = 10_000;

export function createDeprecatedCallCounter(deps: {
  /** Adds the counts (summing with what other processes wrote). */
  write(calls: DeprecatedCall[]): Promise<void>;
  onError?: (error: unknown) => void;
}) {
  let pending = new Map<string, DeprecatedCall>();
  let flushing: Promise<void> | null = null;

  return {
    /** One call that used something deprecated. */
    count(appId: string, version: string, operationId: string, usage: DeprecatedUsage, at: Date): void {
      const day = at.toISOString().slice(0, 10);
      const key = `${appId}\u0000${version}\u0000${operationId}\u0000${usage}\u0000${day}`;
      const found = pending.get(key);
      if (found) {
        found.calls++;
        if (at > found.lastAt) found.lastAt = at;
      } else if (pending.size < DEPRECATED_CALLS_MAX_KEYS) {
        pending.set(key, { appId, version, operationId, usage, day, calls: 1, lastAt: at });
      }
    },
    /** Writes what was counted since the last flush; counts that could not be written are kept for the next. */
    async flush(): Promise<void> {
      if (flushing) await flushing;
      if (pending.size === 0) return;
      const batch = pending;
      pending = new Map();
      flushing = (async () => {
        try {
          await deps.write([...batch.values()]);
        } catch (error) {
          // Kept for the next flush (merged with what came meanwhile), so an outage loses no count.
          for (const [key, call] of batch) {
            const now = pending.get(key);
            if (now) {
              now.calls += call.calls;
              if (call.lastAt > now.lastAt) now.lastAt = call.lastAt;
            } else if (pending.size < DEPRECATED_CALLS_MAX_KEYS) pending.set(key, call);
          }
          deps.onError?.(error);
        }
      })();
      try {
        await flushing;
      } finally {
        flushing = null;
      }
    },
    /** Counts waiting to be written (for tests and the metrics). */
    pending: () => pending.size,
  };
}
export type DeprecatedCallCounter = ReturnType<typeof createDeprecatedCallCounter>;
