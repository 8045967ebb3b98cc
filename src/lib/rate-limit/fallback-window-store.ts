import type { Clock } from "../clock.ts";
import { createMemoryWindowStore, type SlidingWindowStore } from "./sliding-window.ts";

export type FallbackEvent =
  | { degraded: true; error: unknown }
  | { degraded: false; downMs: number; fallbackOperations: number };

export interface FallbackWindowStore extends SlidingWindowStore {
  /** True while operations are answered from this process's memory. */
  degraded(): boolean;
  /**
   * Readiness: whether the shared store answers. Degraded: false at once, without I/O (the
   * background probe decides when it is back). Otherwise one probe; a failure opens the circuit.
   */
  healthy(): Promise<boolean>;
  /** Half-open: one probe of the shared store; on success the circuit closes. Never throws. */
  probe(): Promise<void>;
  /** Stops the background probe. */
  close(): void;
}

/**
 * A circuit breaker around a shared window store (Redis) with per-process memory as the fallback,
 * so every rate limiter and credential throttle keeps working when the shared store does not.
 *
 * - closed: operations go to the primary. The first one that fails (error or time-out, which the
 *   primary's client bounds) opens the circuit and is answered from memory.
 * - open: operations go to memory only, so no request waits on the shared store; a background
 *   probe runs every `probeIntervalMs` (and whenever `probe()` is called, e.g. on reconnect).
 * - half-open: a probe in flight. When it succeeds, the circuit closes and the next operation
 *   goes to the primary again.
 *
 * While open, a limit holds per process rather than across all of them. Each outage starts with
 * empty memory counters, which are dropped when it ends: they only ever count the outage.
 */
export function createFallbackWindowStore(deps: {
  primary: SlidingWindowStore;
  /** A cheap call proving the primary answers again (PING). */
  ping: () => Promise<unknown>;
  clock: Clock;
  probeIntervalMs: number;
  /** Called once when the circuit opens and once when it closes: not per operation. */
  onChange?: (event: FallbackEvent) => void;
  /** Called for each operation answered from memory. */
  onFallback?: () => void;
  createFallback?: () => SlidingWindowStore;
}): FallbackWindowStore {
  const createFallback = deps.createFallback ?? createMemoryWindowStore;
  let outage: {
    memory: SlidingWindowStore;
    sinceMs: number;
    operations: number;
    timer: NodeJS.Timeout;
  } | null = null;
  let probing: Promise<void> | null = null;

  function open(error: unknown) {
    if (outage) return;
    // unref: the probe alone never keeps the process alive.
    const timer = setInterval(() => void probe(), deps.probeIntervalMs).unref();
    outage = { memory: createFallback(), sinceMs: deps.clock.now().getTime(), operations: 0, timer };
    deps.onChange?.({ degraded: true, error });
  }

  function closeCircuit() {
    if (!outage) return;
    const ended = outage;
    outage = null;
    clearInterval(ended.timer);
    deps.onChange?.({
      degraded: false,
      downMs: deps.clock.now().getTime() - ended.sinceMs,
      fallbackOperations: ended.operations,
    });
  }

  function probe(): Promise<void> {
    if (!outage) return Promise.resolve();
    // One probe at a time, however many callers (timer, reconnect event) ask for one.
    probing ??= deps
      .ping()
      .then(closeCircuit, () => {})
      .finally(() => {
        probing = null;
      });
    return probing;
  }

  async function run<T>(operation: (store: SlidingWindowStore) => Promise<T>): Promise<T> {
    if (!outage) {
      try {
        return await operation(deps.primary);
      } catch (error) {
        open(error);
      }
    }
    const current = outage!;
    current.operations++;
    deps.onFallback?.();
    return operation(current.memory);
  }

  return {
    hit: (key, limit, windowMs, nowMs, cost) => run((store) => store.hit(key, limit, windowMs, nowMs, cost)),
    reserve: (key, limit, windowMs, nowMs) => run((store) => store.reserve(key, limit, windowMs, nowMs)),
    // A release may reach the other store than its reservation did, when the circuit opened or
    // closed in between: the member is then unknown there and nothing is removed, which is
    // harmless. The reservation stays counted where it was made until it ages out of the window
    // (or is dropped with the outage's memory): one extra failure for a while, erring strict.
    release: (key, member) => run((store) => store.release(key, member)),
    peek: (key, windowMs, nowMs) => run((store) => store.peek(key, windowMs, nowMs)),
    clear: (key) => run((store) => store.clear(key)),
    degraded: () => outage !== null,
    async healthy() {
      if (outage) return false;
      try {
        await deps.ping();
        return true;
      } catch (error) {
        open(error);
        return false;
      }
    },
    probe,
    close() {
      if (outage) clearInterval(outage.timer);
    },
  };
}
