import type { ClaimedDelivery, ClaimRoom } from "./delivery-repo.ts";

/**
 * Claimed deliveries may wait in memory for a free slot to their host, so that a finished attempt
 * is followed by the next at once instead of after a claim's round trip. How many: what the host's
 * slots get through in about this long, judged by its recent attempt durations; at least
 * `perTargetConcurrency`, at most MAX_QUEUED. A fast receiver gets large claims (one claim
 * statement per few hundred attempts instead of per few); a slow one (seconds per attempt) gets no
 * more queued than it has slots. Far below the attempt start window (leaseMs - timeoutMs - a
 * tenth), so a queued delivery is started long before it would have to be given back.
 */
export const QUEUE_BUDGET_MS = 250;
/** Deliveries queued for one host at most, and (beyond the attempts in flight) for all hosts. */
export const MAX_QUEUED = 512;
/** Hosts whose attempt durations are remembered at most; past it the worker forgets and starts over. */
const MAX_HOSTS_TIMED = 10_000;

/** A claimed delivery this worker holds (queued or in flight). */
export interface Held {
  delivery: ClaimedDelivery;
  /** When the lease began (the claim's `now`, ms). */
  claimedAt: number;
}

/**
 * What one worker holds, per target host: the deliveries it claimed and has not finished, which of
 * them are in flight, and which wait for a slot (oldest claim first). It answers how much the next
 * claim may take (per host and in all), which delivery starts next (fair across hosts: the oldest
 * claim among the hosts with a free slot), which have waited too long to start, and which hosts
 * had due deliveries left behind (the backlog: claimed again when their queue runs low).
 *
 * No I/O and no clock: the worker passes the times in.
 */
export function createHostQueues(settings: {
  /** Attempts in flight at most, over all hosts. */
  concurrency: number;
  /** Attempts in flight to one host at most. */
  perTargetConcurrency: number;
  /** A queued delivery older than this (ms since its claim) is not started any more: see expire(). */
  startWindowMs: number;
}) {
  const perTarget = settings.perTargetConcurrency;
  /** In flight plus waiting, over all hosts. */
  const totalHold = settings.concurrency + MAX_QUEUED;
  /** Recent attempt duration per host (ms, moving average): how much may queue for it. */
  const durations = new Map<string, number>();
  /** Claimed deliveries per host, attempts in flight included. */
  const held = new Map<string, number>();
  /** Attempts in flight per host. */
  const active = new Map<string, number>();
  /** Claimed, waiting for a slot: per host, oldest first; a host is absent rather than empty. */
  const queues = new Map<string, Held[]>();
  /** Hosts whose last claim or dispatch left due deliveries behind. */
  const backlog = new Set<string>();
  let heldTotal = 0;
  let running = 0;

  const add = (map: Map<string, number>, host: string, n: number) => {
    const next = (map.get(host) ?? 0) + n;
    if (next <= 0) map.delete(host);
    else map.set(host, next);
  };
  const queueRoom = (host: string) => {
    const ms = durations.get(host);
    if (ms === undefined) return perTarget;
    const fits = Math.floor((perTarget * QUEUE_BUDGET_MS) / Math.max(ms, 1));
    return Math.max(perTarget, Math.min(MAX_QUEUED, fits));
  };
  const queued = (host: string) => queues.get(host)?.length ?? 0;
  const runningLow = (host: string) => queued(host) <= Math.floor(queueRoom(host) / 2);

  return {
    /** What this worker may hold at most (in flight plus queued). */
    totalHold,
    /** Claimed and not finished, over all hosts. */
    get heldTotal() {
      return heldTotal;
    },
    /** Attempts in flight. */
    get running() {
      return running;
    },
    /** Nothing is queued (attempts may still be in flight). */
    get empty() {
      return queues.size === 0;
    },
    /** Nothing held and no host with due deliveries left behind: the worker may sleep until the next due one. */
    get idle() {
      return heldTotal === 0 && backlog.size === 0;
    },

    /** What the next claim may take: what this worker can hold, per host and in all. */
    room(): ClaimRoom {
      const hosts = new Map<string, number>();
      for (const [host, n] of held) hosts.set(host, perTarget + queueRoom(host) - n);
      return { limit: totalHold - heldTotal, hosts, otherHosts: perTarget * 2 };
    },

    /** Queues what a claim (or a dispatch) took, each behind its host's older claims. */
    hold(claimed: readonly ClaimedDelivery[], claimedAt: number) {
      for (const delivery of claimed) {
        const host = delivery.target_host;
        const q = queues.get(host);
        if (q) q.push({ delivery, claimedAt });
        else queues.set(host, [{ delivery, claimedAt }]);
        add(held, host, 1);
        heldTotal++;
      }
    },

    /**
     * Takes out the queued deliveries that waited so long that their attempt might outlive their
     * lease (claimed more than `startWindowMs` before `nowMs`): the worker gives them back
     * unattempted, so that no other worker can take one while it is in flight here.
     */
    expire(nowMs: number): Held[] {
      const out: Held[] = [];
      for (const [host, q] of queues) {
        let expired = 0;
        while (expired < q.length && nowMs - q[expired]!.claimedAt > settings.startWindowMs) expired++;
        if (expired) {
          for (const h of q.splice(0, expired)) out.push(h);
          add(held, host, -expired);
          heldTotal -= expired;
        }
        if (q.length === 0) queues.delete(host);
      }
      return out;
    },

    /**
     * The delivery to start now, counted in flight from here; undefined when every slot is taken
     * (overall, or for every host with something queued). The oldest claim among the hosts with
     * a free slot goes first, so one busy host does not starve the others.
     */
    startNext(): Held | undefined {
      if (running >= settings.concurrency) return undefined;
      let next: Held[] | undefined;
      for (const [host, q] of queues)
        if ((active.get(host) ?? 0) < perTarget && (!next || q[0]!.claimedAt < next[0]!.claimedAt)) next = q;
      if (!next) return undefined;
      const h = next.shift()!;
      const host = h.delivery.target_host;
      if (next.length === 0) queues.delete(host);
      running++;
      add(active, host, 1);
      return h;
    },

    /** The receiver has answered (or not) after `durationMs`: the slot and the hold are free again. */
    finished(host: string, durationMs: number) {
      running--;
      add(active, host, -1);
      add(held, host, -1);
      heldTotal--;
      const seen = durations.get(host);
      // Bounded: a worker that has talked to very many hosts forgets and starts over.
      if (seen === undefined && durations.size >= MAX_HOSTS_TIMED) durations.clear();
      durations.set(host, seen === undefined ? durationMs : seen * 0.8 + durationMs * 0.2);
    },

    /** A dispatch could not claim every new delivery of these hosts (their room was full). */
    leftBehind(hosts: Iterable<string>) {
      for (const host of hosts) backlog.add(host);
    },

    /**
     * After a claim that had `room`: a host that got all its room may have more due; one that got
     * less has nothing more due now. Answers whether the claim was full (it got `room.limit`).
     */
    claimed(room: ClaimRoom, rows: readonly ClaimedDelivery[]): boolean {
      const got = new Map<string, number>();
      for (const row of rows) got.set(row.target_host, (got.get(row.target_host) ?? 0) + 1);
      for (const host of backlog)
        if (!got.has(host) && (room.hosts.get(host) ?? room.otherHosts) > 0) backlog.delete(host);
      for (const [host, n] of got) {
        if (n >= (room.hosts.get(host) ?? room.otherHosts)) backlog.add(host);
        else backlog.delete(host);
      }
      const full = rows.length >= room.limit;
      if (full) for (const host of got.keys()) backlog.add(host);
      return full;
    },

    /** A host with due deliveries left behind whose queue is low enough to claim for it again. */
    backlogLow(): boolean {
      for (const host of backlog) if (runningLow(host)) return true;
      return false;
    },
    /** Whether this host has due deliveries left behind and its queue is low enough to claim for it. */
    wantsMore(host: string): boolean {
      return backlog.has(host) && runningLow(host);
    },

    /** Takes out everything queued and not started (the worker stops and gives them back). */
    drain(): Held[] {
      const out = [...queues.values()].flat();
      queues.clear();
      for (const h of out) {
        add(held, h.delivery.target_host, -1);
        heldTotal--;
      }
      return out;
    },
  };
}
export type HostQueues = ReturnType<typeof createHostQueues>;
