/**
 * A short-lived, per-process memory of verified access tokens, so the Admin API does not read the
 * token, grant, installation and store on every request (issue 10).
 *
 * The rule it keeps: once a revocation, uninstall or refresh-reuse has answered, no instance accepts
 * the revoked token. A notification (LISTEN/NOTIFY) cannot promise that by itself: it reaches the
 * other instances some time after the commit, and nothing tells the revoking request that they have
 * read it. So the promise comes from time instead:
 * - an entry is trusted only for `ttlMs` counted from *before* the read that verified it, so its
 *   snapshot is no older than `ttlMs` whenever it is used;
 * - every request that revokes waits `ttlMs` after its commit before it answers (`revoked()`).
 * A read that started before the commit expires before that answer; a read that started after it
 * sees the revocation. Elapsed time is measured with each process's monotonic clock, so no clock
 * needs to agree with another machine's (only run at about the same rate). The full argument is
 * in docs/decisions.md ("Access token cache").
 *
 * Expiry is still checked on every use against the token's own `expires_at`.
 */
export interface AccessCache<T> {
  /** The entry when it is still trustworthy at `startedMs` (a `now()` taken before any await). */
  get(key: string, startedMs: number): { value: T; expiresAt: number } | undefined;
  /** Remembers a verification whose read started at `startedMs`. */
  set(key: string, value: T, expiresAt: number, startedMs: number): void;
  /**
   * Call after a revoking transaction committed, before answering: forgets every entry here and
   * waits until no entry verified before the commit can be trusted on any instance.
   */
  revoked(): Promise<void>;
  readonly ttlMs: number;
  now(): number;
}

export function createAccessCache<T>(options: {
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}): AccessCache<T> {
  const { ttlMs, maxEntries = 10_000 } = options;
  const now = options.now ?? (() => performance.now());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const entries = new Map<string, { value: T; expiresAt: number; trustedUntil: number }>();
  return {
    ttlMs,
    now,
    get(key, startedMs) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (startedMs >= entry.trustedUntil) {
        entries.delete(key);
        return undefined;
      }
      return entry;
    },
    set(key, value, expiresAt, startedMs) {
      if (ttlMs <= 0) return;
      entries.delete(key);
      // Oldest first out: a Map iterates in insertion order.
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, expiresAt, trustedUntil: startedMs + ttlMs });
    },
    async revoked() {
      if (ttlMs <= 0) return;
      const committed = now();
      entries.clear();
      // Measured, not just slept: a timer can fire a little early against the monotonic clock
      // (the event loop's cached time), and an early answer would break the rule.
      for (let left = ttlMs; left > 0; left = committed + ttlMs - now()) await sleep(Math.ceil(left) + 1);
    },
  };
}
