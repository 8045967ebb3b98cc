import type { Clock } from "../clock.ts";
import { AppError } from "../errors.ts";
import {
  decide,
  type RateLimitDecision,
  type SlidingWindowStore,
  secondsUntilFree,
} from "./sliding-window.ts";

/** Request quota: at most `limit` accepted requests per key in any `windowMs`. */
export function createRateLimiter(
  deps: { store: SlidingWindowStore; clock: Clock },
  limit: number,
  windowMs: number,
) {
  return {
    limit,
    async consume(key: string): Promise<RateLimitDecision> {
      const now = deps.clock.now().getTime();
      return decide(await deps.store.hit(key, limit, windowMs, now), limit, windowMs, now);
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;

/**
 * Credential-guessing throttle: after `maxFailures` failures of a key within `windowMs`, further
 * attempts are refused with 429 until the oldest failure ages out. Success clears the key.
 */
export function createFailureThrottle(
  deps: { store: SlidingWindowStore; clock: Clock },
  maxFailures: number,
  windowMs: number,
) {
  return {
    async assertAllowed(...keys: string[]): Promise<void> {
      const now = deps.clock.now().getTime();
      for (const key of keys) {
        const state = await deps.store.peek(key, windowMs, now);
        if (state.count >= maxFailures) {
          const retryAfter = Math.max(1, secondsUntilFree(state.oldestMs, windowMs, now));
          throw new AppError("RATE_LIMITED", {
            message: "Too many failed attempts. Try again later.",
            headers: { "retry-after": String(retryAfter) },
          });
        }
      }
    },
    async recordFailure(...keys: string[]): Promise<void> {
      const now = deps.clock.now().getTime();
      // Capped at maxFailures entries: enough to block, and a flood cannot grow the window without bound.
      await Promise.all(keys.map((key) => deps.store.hit(key, maxFailures, windowMs, now)));
    },
    async clear(...keys: string[]): Promise<void> {
      await Promise.all(keys.map((key) => deps.store.clear(key)));
    },
  };
}
export type FailureThrottle = ReturnType<typeof createFailureThrottle>;
