import type { Clock } from "../clock.ts";
import { AppError } from "../errors.ts";
import {
  decide,
  type RateLimitDecision,
  type SlidingWindowStore,
  secondsUntilFree,
} from "./sliding-window.ts";

/**
 * Quota: at most `limit` accepted units per key in any `windowMs`. A request is one unit; work
 * that weighs more consumes its `cost` (all or nothing), e.g. the deliveries a test event fans out to.
 */
export function createRateLimiter(
  deps: { store: SlidingWindowStore; clock: Clock },
  limit: number,
  windowMs: number,
) {
  return {
    limit,
    windowMs,
    async consume(key: string, cost = 1): Promise<RateLimitDecision> {
      const now = deps.clock.now().getTime();
      return decide(await deps.store.hit(key, limit, windowMs, now, cost), limit, windowMs, now);
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;

/**
 * Credential-guessing throttle: after `maxFailures` failures of a key within `windowMs`, further
 * attempts are refused with 429 until the oldest failure ages out.
 */
export function createFailureThrottle(
  deps: { store: SlidingWindowStore; clock: Clock },
  maxFailures: number,
  windowMs: number,
) {
  const ns = (key: string) => `fail:${key}`;
  const refusal = (oldestMs: number | null, now: number) =>
    new AppError("RATE_LIMITED", {
      message: "Too many failed attempts. Try again later.",
      headers: { "retry-after": String(Math.max(1, secondsUntilFree(oldestMs, windowMs, now))) },
    });
  return {
    /** Throws the 429 if any key is at its limit; otherwise answers how many failures the keys have. */
    async assertAllowed(...keys: string[]): Promise<number> {
      const now = deps.clock.now().getTime();
      let failures = 0;
      for (const key of keys) {
        const state = await deps.store.peek(ns(key), windowMs, now);
        if (state.count >= maxFailures) throw refusal(state.oldestMs, now);
        failures += state.count;
      }
      return failures;
    },
    /**
     * Records a failure of `key`. Answers the 429 to give when the key was already at its limit,
     * otherwise null. Capped at maxFailures entries: enough to block, and a flood cannot grow the
     * window without bound.
     */
    async recordFailure(key: string): Promise<AppError | null> {
      const now = deps.clock.now().getTime();
      const state = await deps.store.hit(ns(key), maxFailures, windowMs, now);
      return state.allowed ? null : refusal(state.oldestMs, now);
    },
    async clear(...keys: string[]): Promise<void> {
      await Promise.all(keys.map((key) => deps.store.clear(ns(key))));
    },
  };
}
export type FailureThrottle = ReturnType<typeof createFailureThrottle>;

/**
 * What kind of secret a guard protects, which decides what the per-IP bound may refuse:
 * - `password`: chosen by people, so guessable. The address bound refuses before verification,
 *   otherwise one address could spray a few passwords over many accounts, and a 200 among 429s
 *   would tell it which guess was right.
 * - `random`: 256 random bits (client secrets, API key secrets), which nobody guesses. The address
 *   bound refuses only credentials that turned out wrong, so a correct credential is never refused
 *   because other credentials failed from the same address (a shared NAT, a CI provider).
 */
export type SecretKind = "password" | "random";

/**
 * Credential-guessing guard on two axes: per identifier (an e-mail, a client id, a key id, a device
 * cookie) and a looser one per client IP, since many honest users can share an address. The design
 * and its trade-offs: docs/decisions.md, "Guessing throttles".
 */
export function createCredentialGuard(
  deps: { store: SlidingWindowStore; clock: Clock },
  options: { maxFailures: number; windowMs: number; ipFactor?: number; secret: SecretKind },
) {
  const byId = createFailureThrottle(deps, options.maxFailures, options.windowMs);
  const byIp = createFailureThrottle(deps, options.maxFailures * (options.ipFactor ?? 5), options.windowMs);
  return {
    /**
     * Verifies a credential under the throttles; answers what `check` found, or throws.
     * - 429 while `id` has `maxFailures` failures in the window, before anything is checked: even
     *   the right secret waits, so a throttled guesser never learns which guess was right.
     * - For passwords, the same while the IP is over its bound (see SecretKind).
     * - A wrong credential (`check` answers undefined) is counted against `id` and the IP and
     *   answers `wrong()`, one identical error for every kind of wrong; or, for random secrets
     *   from an address over its bound, 429.
     * `ip: null` leaves the address out (a trusted device has its own bucket instead).
     */
    async verify<T>(
      who: { id: string; ip: string | null },
      check: () => Promise<T | undefined>,
      wrong: () => AppError,
      opts: { clearOnSuccess?: boolean } = {},
    ): Promise<T> {
      // Buckets are per kind of secret: failed client secrets from an address must not spend
      // that address's budget for passwords (nor the reverse); the two guards share one store.
      const idKey = `${options.secret}:${who.id}`;
      const ipKey = who.ip === null ? null : `${options.secret}:ip:${who.ip}`;
      const failures = await byId.assertAllowed(idKey);
      if (ipKey && options.secret === "password") await byIp.assertAllowed(ipKey);
      const subject = await check();
      if (subject !== undefined) {
        // Nothing to clear when there were no failures: no Redis round trip on the common path. A
        // failure recorded meanwhile by another request stays counted, which only errs strict.
        if (opts.clearOnSuccess && failures > 0) await byId.clear(idKey);
        return subject;
      }
      const [, ipRefusal] = await Promise.all([
        byId.recordFailure(idKey),
        ipKey ? byIp.recordFailure(ipKey) : null,
      ]);
      throw ipRefusal ?? wrong();
    },
  };
}
export type CredentialGuard = ReturnType<typeof createCredentialGuard>;
