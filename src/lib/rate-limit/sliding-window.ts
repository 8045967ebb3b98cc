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
  /**
   * When refused: the timestamp (ms) of the hit whose leaving the window makes room for this one
   * (the oldest for a cost of 1, the `count + cost - limit`-th oldest for more). Null when
   * accepted, or when the cost exceeds the limit (no room ever).
   */
  roomAtMs: number | null;
}

/** A hit that may be taken back: `member` names the entry recorded (null when none was). */
export interface Reservation extends WindowState {
  member: string | null;
}

export interface SlidingWindowStore {
  /**
   * Records a hit of `cost` (default 1: one request; more for work that weighs more, such as the
   * deliveries a test event produces) at `nowMs`, unless the window has less than `cost` left
   * under `limit`: all of it or nothing. Atomic per key.
   */
  hit(key: string, limit: number, windowMs: number, nowMs: number, cost?: number): Promise<WindowState>;
  /**
   * `hit`, answering the entry it recorded so that `release` can take exactly that one back: a
   * credential guard counts an attempt before checking it, and uncounts it when it was right.
   */
  reserve(key: string, limit: number, windowMs: number, nowMs: number): Promise<Reservation>;
  /** Removes the entry `member` of `key`; nothing when it is gone (aged out, cleared) or unknown. */
  release(key: string, member: string): Promise<void>;
  /** Reads the window without recording anything. */
  peek(key: string, windowMs: number, nowMs: number): Promise<Omit<WindowState, "allowed" | "roomAtMs">>;
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
  // A refused hit of some cost may leave capacity it did not fit in: then the wait is until
  // enough hits leave, not 0.
  const resetSeconds = state.allowed
    ? remaining > 0
      ? 0
      : secondsUntilFree(state.oldestMs, windowMs, nowMs)
    : secondsUntilFree(state.roomAtMs ?? state.oldestMs, windowMs, nowMs);
  return { allowed: state.allowed, limit, remaining, resetSeconds };
}

/**
 * The accepted hits of one key, oldest first. Hits leave from the front by moving `head`, and the
 * array is compacted only once the dead front is as long as the live rest, so a hit costs O(1)
 * amortised however many the window holds (a splice per hit moved the whole log each time).
 * `members[i]` names the hit at `times[i]` (a number unique in the process) for `release`.
 */
interface HitLog {
  times: number[];
  members: number[];
  head: number;
}

/**
 * Names of memory entries, unique across every memory store of the process: the fallback store
 * makes a new one per Redis outage, and a release meant for the last outage's store must not take
 * out another entry of the next one.
 */
let lastMember = 0;

/** In-process store: exact for a single instance. Timestamps per key are kept sorted. */
export function createMemoryWindowStore(): SlidingWindowStore & { size(): number } {
  const hits = new Map<string, HitLog>();
  let calls = 0;
  const prune = (log: HitLog, windowMs: number, nowMs: number) => {
    const { times } = log;
    while (log.head < times.length && times[log.head]! <= nowMs - windowMs) log.head++;
    if (log.head > 0 && log.head >= times.length - log.head) {
      times.splice(0, log.head);
      log.members.splice(0, log.head);
      log.head = 0;
    }
  };
  const count = (log: HitLog) => log.times.length - log.head;
  const oldest = (log: HitLog) => log.times[log.head] ?? null;
  const sweep = (windowMs: number, nowMs: number) => {
    // Keys of idle clients would otherwise stay forever: drop empty windows every 1,000 calls.
    if (++calls % 1000 !== 0) return;
    for (const [key, log] of hits) {
      prune(log, windowMs, nowMs);
      if (count(log) === 0) hits.delete(key);
    }
  };
  /** Records `cost` hits, all or none; `member` names the last one recorded (for `release`). */
  const record = (key: string, limit: number, windowMs: number, nowMs: number, cost: number): Reservation => {
    sweep(windowMs, nowMs);
    let log = hits.get(key);
    if (!log) {
      log = { times: [], members: [], head: 0 };
      hits.set(key, log);
    }
    prune(log, windowMs, nowMs);
    const allowed = count(log) + cost <= limit;
    let member: number | null = null;
    if (allowed) {
      for (let i = 0; i < cost; i++) {
        member = ++lastMember;
        log.times.push(nowMs);
        log.members.push(member);
      }
    }
    const room = allowed ? null : (log.times[log.head + count(log) + cost - limit - 1] ?? null);
    return {
      allowed,
      count: count(log),
      oldestMs: oldest(log),
      roomAtMs: room,
      member: member === null ? null : String(member),
    };
  };
  return {
    async hit(key, limit, windowMs, nowMs, cost = 1) {
      const { member: _, ...state } = record(key, limit, windowMs, nowMs, cost);
      return state;
    },
    async reserve(key, limit, windowMs, nowMs) {
      return record(key, limit, windowMs, nowMs, 1);
    },
    async release(key, member) {
      const log = hits.get(key);
      // Searched from the live front only: an entry before `head` has aged out already.
      const at = log ? log.members.indexOf(Number(member), log.head) : -1;
      if (!log || at < 0) return;
      log.times.splice(at, 1);
      log.members.splice(at, 1);
    },
    async peek(key, windowMs, nowMs) {
      const log = hits.get(key);
      if (!log) return { count: 0, oldestMs: null };
      prune(log, windowMs, nowMs);
      return { count: count(log), oldestMs: oldest(log) };
    },
    async clear(key) {
      hits.delete(key);
    },
    size: () => hits.size,
  };
}
