/**
 * Sliding-log rate limiting: a key may have at most `limit` accepted hits in any window of
 * `windowMs`, not just per calendar minute (a fixed window lets 2x the limit through across a
 * boundary). The store keeps the timestamps of accepted hits; memory and Redis stores implement it.
 */
export interface WindowState {
  /** Whether this hit was accepted (and recorded). */
  allowed: boolean;
  /** Hits in the window after this one. */
  count: number;
  /** Timestamp (ms) of the oldest hit still in the window, or null when empty. */
  oldestMs: number | null;
}

export interface SlidingWindowStore {
  /** Records a hit at `nowMs` unless `limit` hits are already in the window. Atomic per key. */
  hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<WindowState>;
  /** Reads the window without recording anything. */
  peek(key: string, windowMs: number, nowMs: number): Promise<Omit<WindowState, "allowed">>;
  clear(key: string): Promise<void>;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a request will be accepted again: 0 while capacity remains. */
  resetSeconds: number;
}

/** Seconds (rounded up) until the oldest hit leaves the window and frees a slot. */
export function secondsUntilFree(oldestMs: number | null, windowMs: number, nowMs: number): number {
  if (oldestMs === null) return 0;
  return Math.max(0, Math.ceil((oldestMs + windowMs - nowMs) / 1000));
}

export function decide(
  state: WindowState,
  limit: number,
  windowMs: number,
  nowMs: number,
): RateLimitDecision {
  const remaining = Math.max(0, limit - state.count);
  return {
    allowed: state.allowed,
    limit,
    remaining,
    resetSeconds: remaining > 0 ? 0 : secondsUntilFree(state.oldestMs, windowMs, nowMs),
  };
}

/** In-process store: exact for a single instance. Timestamps per key are kept sorted. */
export function createMemoryWindowStore(): SlidingWindowStore & { size(): number } {
  const hits = new Map<string, number[]>();
  let calls = 0;
  const prune = (list: number[], windowMs: number, nowMs: number) => {
    let drop = 0;
    while (drop < list.length && list[drop]! <= nowMs - windowMs) drop++;
    if (drop > 0) list.splice(0, drop);
  };
  const sweep = (windowMs: number, nowMs: number) => {
    // Keys of idle clients would otherwise stay forever: drop empty windows every 1,000 calls.
    if (++calls % 1000 !== 0) return;
    for (const [key, list] of hits) {
      prune(list, windowMs, nowMs);
      if (list.length === 0) hits.delete(key);
    }
  };
  return {
    async hit(key, limit, windowMs, nowMs) {
      sweep(windowMs, nowMs);
      const list = hits.get(key) ?? [];
      prune(list, windowMs, nowMs);
      const allowed = list.length < limit;
      if (allowed) list.push(nowMs);
      hits.set(key, list);
      return { allowed, count: list.length, oldestMs: list[0] ?? null };
    },
    async peek(key, windowMs, nowMs) {
      const list = hits.get(key) ?? [];
      prune(list, windowMs, nowMs);
      return { count: list.length, oldestMs: list[0] ?? null };
    },
    async clear(key) {
      hits.delete(key);
    },
    size: () => hits.size,
  };
}
