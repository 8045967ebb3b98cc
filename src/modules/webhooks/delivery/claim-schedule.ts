/**
 * When the worker asks the database, and when it may sleep. Statements per delivery are what bound
 * the engine (it waits on the database, and on a small machine the database's CPU is the worker's
 * too), so it asks only what it has reason to:
 * - a notification dispatches at once (its first attempts are claimed by the dispatch itself) and
 *   claims nothing more unless the dispatch found no new event (a redelivery, an uninstall);
 * - a claim runs when one may find something: a host whose last claim or dispatch left due
 *   deliveries behind has room again (host-queues.ts), a retry this worker recorded falls due,
 *   something was given back, or the poll interval passed (leases that ended, other workers'
 *   retries: the safety net that makes every other signal an optimisation).
 *
 * Plain state and times in ms, no I/O and no clock: the worker passes `nowMs` in.
 */
export function createClaimSchedule(settings: {
  /** Fallback poll: every kind of statement runs at least this often (ms). */
  pollMs: number;
  /** Events one dispatch takes at most: a dispatch that got this many goes again at once. */
  dispatchBatch: number;
}) {
  const { pollMs } = settings;
  /** New events were announced (or a dispatch came back full): dispatch on the next pass. */
  let dispatchDue = true;
  /** A claim may find something whatever the hosts' queues. */
  let claimDue = true;
  /** The earliest retry this worker recorded (ms), or Infinity. */
  let retryDueAt = Number.POSITIVE_INFINITY;
  /** When the next delivery no worker holds falls due, as last asked (ms), or Infinity. */
  let nextDueAt = Number.POSITIVE_INFINITY;
  let lastDispatch = 0;
  let lastClaim = Number.NEGATIVE_INFINITY;
  let lastSweep = Number.NEGATIVE_INFINITY;

  return {
    get dispatchDue() {
      return dispatchDue;
    },
    get claimDue() {
      return claimDue;
    },

    /** A new event was committed. */
    announce() {
      dispatchDue = true;
    },
    /** Something may be claimable that no other signal covers (deliveries were given back). */
    claimOwed() {
      claimDue = true;
    },

    /**
     * Whether to dispatch now: announced, or the poll interval passed. When so, answers whether it
     * was announced (null: not now), and counts the dispatch as made.
     */
    dispatchNow(nowMs: number): { announced: boolean } | null {
      if (!dispatchDue && nowMs - lastDispatch < pollMs) return null;
      const announced = dispatchDue;
      dispatchDue = false;
      lastDispatch = nowMs;
      return { announced };
    },
    /** What a dispatch found: `events` new events. */
    dispatched(announced: boolean, events: number) {
      // A full batch means more events may be waiting: keep dispatching on the next pass.
      if (events >= settings.dispatchBatch) dispatchDue = true;
      // Announced, yet no new event: a redelivery or an uninstall's delivery, or another worker's events.
      if (announced && events === 0) claimDue = true;
    },

    /** Everything is owed on the next pass (dispatch, sweep, claim), whatever the times say. */
    everythingOwed() {
      dispatchDue = true;
      claimDue = true;
      lastSweep = Number.NEGATIVE_INFINITY;
    },

    /** Whether the periodic sweep (exhausted deliveries, housekeeping) is due; counted as run when so. */
    sweepNow(nowMs: number): boolean {
      if (nowMs - lastSweep < pollMs) return false;
      lastSweep = nowMs;
      return true;
    },

    /**
     * Whether to claim now, given whether the worker has room and whether a host's backlog asks for
     * it; counted as claimed when so.
     */
    claimNow(nowMs: number, hasRoom: boolean, backlogLow: () => boolean): boolean {
      if (nowMs >= retryDueAt || nowMs >= nextDueAt) {
        retryDueAt = nextDueAt = Number.POSITIVE_INFINITY;
        claimDue = true;
      }
      if (nowMs - lastClaim >= pollMs) claimDue = true;
      if (!hasRoom || !(claimDue || backlogLow())) return false;
      claimDue = false;
      lastClaim = nowMs;
      return true;
    },

    /** A retry this worker recorded falls due at `atMs`; true when it is the earliest known (worth waking for). */
    retryRecorded(atMs: number): boolean {
      if (atMs >= retryDueAt) return false;
      retryDueAt = atMs;
      return true;
    },
    /** When the next delivery no worker holds falls due (asked when idle), or null for none. */
    nextDue(atMs: number | null) {
      nextDueAt = atMs ?? Number.POSITIVE_INFINITY;
    },

    /**
     * How long the worker may sleep from `nowMs`: null when there is work now (a dispatch is due,
     * or a claim is owed and there is room); the poll interval when it holds all it may (a claim
     * that is owed waits for room, not a timer); else until the next poll, retry or due delivery.
     */
    sleepMs(nowMs: number, full: boolean, backlogLow: () => boolean): number | null {
      if (dispatchDue) return null;
      if (!full && (claimDue || backlogLow())) return null;
      if (full) return pollMs;
      return Math.max(1, Math.min(lastClaim + pollMs, retryDueAt, nextDueAt) - nowMs);
    },
  };
}
export type ClaimSchedule = ReturnType<typeof createClaimSchedule>;
