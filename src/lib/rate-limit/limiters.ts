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
  const ns = (key: string) => `fail:${key}`;
  return {
    async assertAllowed(...keys: string[]): Promise<void> {
      const now = deps.clock.now().getTime();
      for (const key of keys) {
        const state = await deps.store.peek(ns(key), windowMs, now);
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
      await Promise.all(keys.map((key) => deps.store.hit(ns(key), maxFailures, windowMs, now)));
    },
    async clear(...keys: string[]): Promise<void> {
      await Promise.all(keys.map((key) => deps.store.clear(ns(key))));
    },
  };
}
export type FailureThrottle = ReturnType<typeof createFailureThrottle>;

/**
 * Credential-guessing guard on two axes: per identifier (an e-mail, a client id, a key id) and a
 * looser one per client IP, since many honest users can share an address.
 */
export function createCredentialGuard(
  deps: { store: SlidingWindowStore; clock: Clock },
  options: { maxFailures: number; windowMs: number; ipFactor?: number },
) {
  const byId = createFailureThrottle(deps, options.maxFailures, options.windowMs);
  const byIp = createFailureThrottle(deps, options.maxFailures * (options.ipFactor ?? 5), options.windowMs);
  return {
    async check(id: string, ip: string) {
      await byId.assertAllowed(id);
      await byIp.assertAllowed(`ip:${ip}`);
    },
    async fail(id: string, ip: string) {
      await byId.recordFailure(id);
      await byIp.recordFailure(`ip:${ip}`);
    },
    /** A success clears the identifier's failures (not the IP's). */
    succeed: (id: string) => byId.clear(id),
  };
}
export type CredentialGuard = ReturnType<typeof createCredentialGuard>;
