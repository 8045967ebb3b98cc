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

/** A failure counted before its attempt was checked: released if the attempt turns out right. */
export interface HeldFailure {
  /** Failures of the key in the window, this one and the other attempts in flight included. */
  count: number;
  /** Uncounts this failure (the attempt was right, or was never made). */
  release(): Promise<void>;
}

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
    /**
     * Counts a failure of `key` before the attempt is checked, in one atomic step with the limit
     * check, so a burst of concurrent attempts takes at most the slots that are left. Answers the
     * held failure (keep it if the attempt fails, `release` it if it succeeds), or the 429 to give
     * when the key is at its limit.
     */
    async reserve(key: string): Promise<HeldFailure | AppError> {
      const now = deps.clock.now().getTime();
      const state = await deps.store.reserve(ns(key), maxFailures, windowMs, now);
      const member = state.allowed ? state.member : null;
      if (member === null) return refusal(state.oldestMs, now);
      return { count: state.count, release: () => deps.store.release(ns(key), member) };
    },
    /**
     * Records a failure of `key` after the fact. Answers the 429 to give when the key was already
     * at its limit, otherwise null. Capped at maxFailures entries: enough to block, and a flood
     * cannot grow the window without bound.
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
 *
 * Reserve, then check: every attempt is counted as a failure *before* its credential is checked,
 * atomically with the limit check, and uncounted when it turns out right. Reading the counts
 * first and recording the failure after the check (about 20 ms of argon2 for a password) let
 * every request of a concurrent burst through the first step: 300 guesses against a limit of 10
 * were all checked.
 */
export function createCredentialGuard(
  deps: { store: SlidingWindowStore; clock: Clock },
  options: { maxFailures: number; windowMs: number; ipFactor?: number; secret: SecretKind },
) {
  const byId = createFailureThrottle(deps, options.maxFailures, options.windowMs);
  const byIp = createFailureThrottle(deps, options.maxFailures * (options.ipFactor ?? 5), options.windowMs);
  const release = (held: (HeldFailure | AppError | null)[]) =>
    Promise.all(held.map((h) => (h instanceof AppError ? null : h?.release())));
  return {
    /**
     * Verifies a credential under the throttles; answers what `check` found, or throws.
     * - 429 while `id` has `maxFailures` failures in the window, counting the attempts being
     *   checked at this moment, before anything is checked: even the right secret waits, so a
     *   throttled guesser never learns which guess was right.
     * - For passwords, the same while the IP is over its bound (see SecretKind).
     * - A wrong credential (`check` answers undefined) stays counted against `id` (and, for
     *   passwords, the IP) and answers `wrong()`, one identical error for every kind of wrong. For
     *   random secrets it is counted against the IP then, and answers 429 from an address over its
     *   bound.
     * - A right one is uncounted; `clearOnSuccess` clears the id's failures instead.
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
      const passwordIp = ipKey !== null && options.secret === "password" ? ipKey : null;
      const [id, ip] = await Promise.all([byId.reserve(idKey), passwordIp ? byIp.reserve(passwordIp) : null]);
      if (id instanceof AppError || ip instanceof AppError) {
        // Refused on one axis: the attempt is not made, so a slot taken on the other is given back.
        await release([id, ip]);
        throw id instanceof AppError ? id : ip;
      }
      let subject: T | undefined;
      try {
        subject = await check();
      } catch (error) {
        // Not an answer about the credential (the database failed): counted as no guess, as before.
        await release([id, ip]);
        throw error;
      }
      if (subject !== undefined) {
        // A right attempt gives its slot back: one store call (a ZREM), the price of counting
        // before checking. clearOnSuccess clears instead when others were counted (a clear takes
        // this slot with them). It also drops the slots of attempts being checked at this moment,
        // which then go uncounted if they fail: only random secrets clear, and a clear hands that
        // budget out anyway.
        if (opts.clearOnSuccess && id.count > 1) await Promise.all([byId.clear(idKey), release([ip])]);
        else await release([id, ip]);
        return subject;
      }
      // Wrong: the reservations stay, as the recorded failures.
      if (ipKey && !passwordIp) throw (await byIp.recordFailure(ipKey)) ?? wrong();
      throw wrong();
    },
  };
}
export type CredentialGuard = ReturnType<typeof createCredentialGuard>;
