/**
 * Background work run at most every `everyMs` by the caller's clock, one run at a time: the
 * delivery worker offers `due` a turn with every poll (retention, the shop.redact sweep), so the
 * work never holds up deliveries, and `idle` lets a clean stop wait for a run in progress.
 */
export function createPeriodicTask<T>(deps: {
  everyMs: number;
  run(now: Date): Promise<T>;
  onResult(result: T): void;
  onError(error: unknown): void;
}) {
  let last = Number.NEGATIVE_INFINITY;
  let running: Promise<void> | null = null;
  return {
    due(now: Date) {
      if (running || now.getTime() - last < deps.everyMs) return;
      last = now.getTime();
      running = deps
        .run(now)
        .then(deps.onResult, deps.onError)
        .finally(() => {
          running = null;
        });
    },
    /** Resolves when no run is in progress (for a clean stop). */
    async idle() {
      await running;
    },
  };
}
