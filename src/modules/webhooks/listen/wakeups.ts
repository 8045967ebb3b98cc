/**
 * Wakes waiting streams when events commit (PostgreSQL NOTIFY on the events channel); one listener
 * per process, started by the first stream. Streams also wake on their heartbeat, so a lost
 * notification only delays an item.
 */
export function createWakeups(subscribe: (onEvent: () => void) => Promise<() => Promise<void>>) {
  const waiters = new Set<() => void>();
  let listening: Promise<(() => Promise<void>) | null> | null = null;
  let closed = false;
  const wakeAll = () => {
    for (const w of [...waiters]) w();
  };
  return {
    wakeAll,
    /** True once the server is closing: streams stop, and nothing subscribes again. */
    get closed() {
      return closed;
    },
    /**
     * True when woken by an event or by close, false after `ms` or when `signal` aborts (a caller
     * that stopped waiting for another reason, so no timer or waiter is left behind).
     */
    wait(ms: number, signal?: AbortSignal): Promise<boolean> {
      // After close, a stream still finishing its last query must not open a new listener
      // connection that nothing would end (it kept a test process alive on PostgreSQL).
      if (closed) return Promise.resolve(true);
      listening ??= subscribe(wakeAll).catch(() => null);
      return new Promise((resolve) => {
        const done = (woken: boolean) => {
          clearTimeout(timer);
          waiters.delete(wake);
          signal?.removeEventListener("abort", abandon);
          resolve(woken);
        };
        const wake = () => done(true);
        const abandon = () => done(false);
        const timer = setTimeout(abandon, ms);
        waiters.add(wake);
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
