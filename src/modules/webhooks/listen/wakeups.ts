/**
 * Wakes the streams of a store when its events commit (PostgreSQL NOTIFY on the events channel,
 * whose payload is the store id); one listener per process, started by the first stream. Only the
 * waiters of that store wake: an event costs a read for the streams that may carry it, not for
 * every stream of the process. A notification without a store (an older sender) wakes them all.
 * Streams also wake on their heartbeat, so a notification lost on the way (a dropped listener
 * connection) only delays an item.
 *
 * Each wait is its own entry, removed in O(1) when it ends (woken, timed out or abandoned), so a
 * stream that closes costs nothing to the others.
 */
export function createWakeups(
  subscribe: (onEvent: (storeId: string) => void) => Promise<() => Promise<void>>,
) {
  const waiters = new Map<string, Set<() => void>>();
  let listening: Promise<(() => Promise<void>) | null> | null = null;
  let closed = false;
  // How many notifications each store has had (and how many went to every store): a stream
  // notes it before it reads the feed and waits only if nothing came since, so an event that
  // commits between its read and its wait wakes it at once instead of at the next heartbeat.
  // Bounded: forgetting the counts makes each stream read once more, nothing worse.
  const generations = new Map<string, number>();
  let everyStore = 0;
  const MAX_STORES_COUNTED = 10_000;
  const wakeStore = (storeId: string) => {
    if (!generations.has(storeId) && generations.size >= MAX_STORES_COUNTED) generations.clear();
    generations.set(storeId, (generations.get(storeId) ?? 0) + 1);
    const set = waiters.get(storeId);
    if (set) for (const w of [...set]) w();
  };
  const wakeAll = () => {
    everyStore++;
    for (const set of [...waiters.values()]) for (const w of [...set]) w();
  };
  const onEvent = (storeId: string) => (storeId ? wakeStore(storeId) : wakeAll());
  const subscribed = () => {
    listening ??= subscribe(onEvent).catch(() => null);
    return listening;
  };
  const generation = (storeId: string) => `${generations.get(storeId) ?? 0}.${everyStore}`;
  return {
    /**
     * Starts listening (once per process) and resolves when notifications flow: a stream awaits
     * it before its first read, so an event committed right after that read still wakes it.
     */
    async ready(): Promise<void> {
      if (!closed) await subscribed();
    },
    /** The store's notifications so far: pass it to `wait` after reading what they announced. */
    generation,
    /** True once the server is closing: streams stop, and nothing subscribes again. */
    get closed() {
      return closed;
    },
    /** How many waits are pending (for tests and metrics). */
    get waiting() {
      let n = 0;
      for (const set of waiters.values()) n += set.size;
      return n;
    },
    /**
     * Waits for an event of `storeId`, for close, for `ms`, or until `signal` aborts (a caller that
     * stopped waiting for another reason, so no timer or waiter is left behind). True when woken
     * by an event or by close.
     */
    wait(storeId: string, ms: number, signal?: AbortSignal, seen?: string): Promise<boolean> {
      // After close, a stream still finishing its last query must not open a new listener
      // connection that nothing would end (it kept a test process alive on PostgreSQL).
      if (closed) return Promise.resolve(true);
      subscribed();
      // Something came since the caller read: no wait.
      if (seen !== undefined && generation(storeId) !== seen) return Promise.resolve(true);
      return new Promise((resolve) => {
        let set = waiters.get(storeId);
        if (!set) {
          set = new Set();
          waiters.set(storeId, set);
        }
        const mine = set;
        const done = (woken: boolean) => {
          clearTimeout(timer);
          mine.delete(wake);
          if (mine.size === 0 && waiters.get(storeId) === mine) waiters.delete(storeId);
          signal?.removeEventListener("abort", abandon);
          resolve(woken);
        };
        const wake = () => done(true);
        const abandon = () => done(false);
        const timer = setTimeout(abandon, Math.max(0, ms));
        mine.add(wake);
        if (signal?.aborted) abandon();
        else signal?.addEventListener("abort", abandon, { once: true });
      });
    },
    async close() {
      closed = true;
      wakeAll();
      const stop = await listening;
      listening = null;
      await stop?.().catch(() => {});
    },
  };
}
export type Wakeups = ReturnType<typeof createWakeups>;
