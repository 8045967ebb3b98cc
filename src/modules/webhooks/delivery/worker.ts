import type { FastifyBaseLogger } from "fastify";
import { attemptStartWindowMs } from "../../../config.ts";
import { DeliveryStatus } from "../../../contracts/index.ts";
import { isDatabaseUnavailable } from "../../../lib/availability.ts";
import { type BackoffOptions, backoffDelayMs } from "../../../lib/backoff.ts";
import type { Clock } from "../../../lib/clock.ts";
import type { ClaimedDelivery, ClaimRoom, Completion, DeliveryRepo } from "./delivery-repo.ts";
import { decideAfterAttempt, type Outcome } from "./retry-policy.ts";

/** One HTTP attempt's result, as the sender reports it. */
export interface AttemptResult {
  status?: number | undefined;
  retryAfter?: string | undefined;
  responseBody: string | null;
  durationMs: number;
  /** Why no answer arrived (the sender's SendErrorKind); decides whether a retry can help. */
  errorKind?: string | undefined;
  error?: string | undefined;
}

export interface WorkerSettings {
  concurrency: number;
  perTargetConcurrency: number;
  leaseMs: number;
  maxAttempts: number;
  timeoutMs: number;
  retryBaseMs: number;
  /** Fallback poll when no notification arrives. */
  pollMs: number;
  dispatchBatch: number;
  /** Pause after failed passes (database unavailable), doubling up to its cap. */
  backoff: BackoffOptions;
  /**
   * A subscription whose attempts have all failed for this long (from the first failure of the
   * unbroken run) is disabled (WEBHOOK_DISABLE_AFTER_SECONDS).
   */
  disableAfterMs: number;
}

export interface WorkerDeps {
  repo: Pick<
    DeliveryRepo,
    | "dispatchEvents"
    | "failExhausted"
    | "claim"
    | "release"
    | "completeMany"
    | "disableSubscriptions"
    | "nextDueAt"
  >;
  clock: Clock;
  settings: WorkerSettings;
  logger: Pick<FastifyBaseLogger, "info" | "warn" | "error" | "debug">;
  /** Subscription secret from its stored ciphertext. */
  openSecret(ciphertext: string): string;
  /** Signs and sends one attempt. */
  attempt(input: { delivery: ClaimedDelivery; secret: string; timeoutMs: number }): Promise<AttemptResult>;
  /** Whether the receiver's status disables its subscription at once (410 Gone). */
  disablesAtOnce(status: number): boolean;
  /** A failed attempt in words (`disabledReason`). */
  failureReason(attempt: { statusCode: number | null; error: string | null }): string;
  metrics?: {
    attemptFinished(outcome: Outcome, seconds: number): void;
  };
  /** Background housekeeping (retention), offered a turn with every poll; stop() waits for it. */
  housekeeping?: { due(now: Date): void; idle(): Promise<void> };
}

/**
 * Claimed deliveries may wait in memory for a free slot to their host, so that a finished attempt
 * is followed by the next at once instead of after a claim's round trip. How many: what the host's
 * slots get through in about this long, judged by its recent attempt durations; at least
 * `perTargetConcurrency`, at most MAX_QUEUED. A fast receiver gets large claims (one claim
 * statement per few hundred attempts instead of per few); a slow one (seconds per attempt) gets no
 * more queued than it has slots. Far below the attempt start window (leaseMs - timeoutMs - a
 * tenth), so a queued delivery is started long before it would have to be given back.
 */
const QUEUE_BUDGET_MS = 250;
/** Deliveries queued for one host at most, and (beyond the attempts in flight) for all hosts. */
const MAX_QUEUED = 512;
/** Completions recorded per statement at most. */
const COMPLETION_BATCH = 500;

interface Held {
  delivery: ClaimedDelivery;
  /** When the lease began (the claim's `now`). */
  claimedAt: number;
}

/**
 * The delivery loop of one worker process: dispatch new events (claiming their first attempts on
 * the way), claim due deliveries (bounded overall and per target host), attempt them, record
 * outcomes in batches, sleep until there is work.
 *
 * Concurrency: at most `concurrency` attempts in flight, at most `perTargetConcurrency` to one
 * host. A slot is free again as soon as the receiver has answered; recording the outcome does not
 * hold it (outcomes are written in the background, many per statement).
 *
 * Statements per delivery are what bound the engine (it waits on the database, and on a small
 * machine the database's CPU is the worker's too), so the loop asks only what it has reason to:
 * - a notification dispatches at once (its first attempts are claimed by the dispatch itself) and
 *   claims nothing more unless the dispatch found no new event (a redelivery, an uninstall);
 * - a claim runs when one may find something: a host whose last claim or dispatch left due
 *   deliveries behind (its room was full) has room again, a retry this worker recorded falls due,
 *   something was given back, or the poll interval passed (leases that ended, other workers'
 *   retries: the safety net that makes every other signal an optimisation).
 */
export function createDeliveryWorker(deps: WorkerDeps) {
  const { repo, clock, settings, logger } = deps;
  const perTarget = settings.perTargetConcurrency;
  // In flight plus waiting, over all hosts.
  const totalHold = settings.concurrency + MAX_QUEUED;
  const startWindowMs = attemptStartWindowMs(settings.leaseMs, settings.timeoutMs);
  /** Recent attempt duration per host (ms, moving average): how much may queue for it. */
  const durations = new Map<string, number>();
  const queueRoom = (host: string) => {
    const ms = durations.get(host);
    if (ms === undefined) return perTarget;
    const fits = Math.floor((perTarget * QUEUE_BUDGET_MS) / Math.max(ms, 1));
    return Math.max(perTarget, Math.min(MAX_QUEUED, fits));
  };
  /** Claimed deliveries per host, attempts in flight included. */
  const held = new Map<string, number>();
  /** Attempts in flight per host. */
  const active = new Map<string, number>();
  /** Claimed, waiting for a slot: per host, oldest first. */
  const queues = new Map<string, Held[]>();
  let heldTotal = 0;
  let running = 0;
  let stopped = true;
  /** New events were announced (or a dispatch came back full): dispatch on the next pass. */
  let dispatchDue = true;
  /** A claim may find something whatever the hosts' queues: set by the signals listed above. */
  let claimDue = true;
  /** Hosts whose last claim or dispatch left due deliveries behind: claimed again when their queue runs low. */
  const backlog = new Set<string>();
  /** The earliest retry this worker recorded (ms), or Infinity. */
  let retryDueAt = Number.POSITIVE_INFINITY;
  /** When the next delivery no worker holds falls due, as last asked (ms), or Infinity. */
  let nextDueAt = Number.POSITIVE_INFINITY;
  let lastDispatch = 0;
  let lastClaim = Number.NEGATIVE_INFINITY;
  let lastSweep = Number.NEGATIVE_INFINITY;
  let wake: (() => void) | null = null;
  let wakeOnSlot: (() => void) | null = null;
  let loop: Promise<void> | null = null;
  const attempts = new Set<Promise<void>>();
  let completions: Array<{ completion: Completion; claimedAt: number }> = [];
  let flushing: Promise<void> | null = null;
  const toRelease: Held[] = [];

  const add = (map: Map<string, number>, host: string, n: number) => {
    const next = (map.get(host) ?? 0) + n;
    if (next <= 0) map.delete(host);
    else map.set(host, next);
  };

  /** A new event was committed: dispatch it and attempt its deliveries now. */
  function poke() {
    dispatchDue = true;
    wake?.();
  }

  /** What the next claim may take: what this worker can hold, per host and in all. */
  function room(): ClaimRoom {
    const hosts = new Map<string, number>();
    for (const [host, n] of held) hosts.set(host, perTarget + queueRoom(host) - n);
    return { limit: totalHold - heldTotal, hosts, otherHosts: perTarget * 2 };
  }

  const queued = (host: string) => queues.get(host)?.length ?? 0;
  /** A host with due deliveries left behind whose queue is low enough to claim for it again. */
  const backlogLow = () => {
    for (const host of backlog) if (queued(host) <= Math.floor(queueRoom(host) / 2)) return true;
    return false;
  };

  function take(claimed: ClaimedDelivery[], claimedAt: number) {
    for (const delivery of claimed) {
      const host = delivery.target_host;
      const q = queues.get(host);
      if (q) q.push({ delivery, claimedAt });
      else queues.set(host, [{ delivery, claimedAt }]);
      add(held, host, 1);
      heldTotal++;
    }
    pump();
  }

  /**
   * Starts waiting deliveries while slots are free, the oldest claim first. One that waited so
   * long that its attempt might outlive its lease is given back unattempted (its attempt count
   * restored), so that no other worker can take it while it is in flight here.
   */
  function pump() {
    if (queues.size === 0) return;
    const nowMs = clock.now().getTime();
    for (const [host, q] of queues) {
      let expired = 0;
      while (expired < q.length && nowMs - q[expired]!.claimedAt > startWindowMs) expired++;
      if (expired) {
        for (const h of q.splice(0, expired)) toRelease.push(h);
        add(held, host, -expired);
        heldTotal -= expired;
      }
      if (q.length === 0) queues.delete(host);
    }
    while (!stopped && running < settings.concurrency) {
      let next: Held[] | undefined;
      for (const [host, q] of queues)
        if ((active.get(host) ?? 0) < perTarget && (!next || q[0]!.claimedAt < next[0]!.claimedAt)) next = q;
      if (!next) break;
      const h = next.shift()!;
      if (next.length === 0) queues.delete(h.delivery.target_host);
      start(h);
    }
    if (toRelease.length) wake?.();
  }

  function start(h: Held) {
    const host = h.delivery.target_host;
    running++;
    add(active, host, 1);
    const p = runOne(h)
      .catch((error) => logger.error({ err: error, delivery: h.delivery.id }, "delivery attempt failed"))
      .finally(() => attempts.delete(p));
    attempts.add(p);
  }

  async function runOne({ delivery: d, claimedAt }: Held) {
    const startedAt = clock.now();
    let result: AttemptResult;
    try {
      result = await deps.attempt({
        delivery: d,
        secret: deps.openSecret(d.secret_ciphertext),
        timeoutMs: settings.timeoutMs,
      });
    } catch (error) {
      result = {
        responseBody: null,
        durationMs: clock.now().getTime() - startedAt.getTime(),
        error: `internal: ${(error as Error).message}`,
      };
    } finally {
      // The receiver has answered (or not): the slot is free for the next attempt to this host.
      running--;
      add(active, d.target_host, -1);
      add(held, d.target_host, -1);
      heldTotal--;
    }
    const seen = durations.get(d.target_host);
    // Bounded: a worker that has talked to very many hosts forgets and starts over.
    if (seen === undefined && durations.size >= 10_000) durations.clear();
    durations.set(
      d.target_host,
      seen === undefined ? result.durationMs : seen * 0.8 + result.durationMs * 0.2,
    );
    const now = clock.now();
    // The retry policy, whole (retry-policy.ts): final or not, attempts left, back-off, Retry-After.
    const decision = decideAfterAttempt({
      attempt: d.attempts,
      result,
      baseMs: settings.retryBaseMs,
      nowMs: now.getTime(),
      maxAttempts: settings.maxAttempts,
    });
    const outcome: Outcome = decision.outcome;
    const next =
      decision.outcome === "retry"
        ? { status: DeliveryStatus.pending, at: new Date(now.getTime() + decision.delayMs) }
        : { status: decision.outcome };
    deps.metrics?.attemptFinished(outcome, result.durationMs / 1000);
    completions.push({
      completion: {
        delivery: d,
        startedAt,
        durationMs: result.durationMs,
        statusCode: result.status ?? null,
        error: result.error ?? null,
        responseBody: result.responseBody,
        next,
        now,
      },
      claimedAt,
    });
    flushSoon();
    pump();
    // Claim more once this host's queue runs low, so its slots never wait for a claim.
    if (backlog.has(d.target_host) && queued(d.target_host) <= Math.floor(queueRoom(d.target_host) / 2))
      wakeOnSlot?.();
    // A claim is owed but everything this worker may hold was held: claim once half is free.
    else if (claimDue && heldTotal <= totalHold / 2) wakeOnSlot?.();
  }

  function flushSoon() {
    if (flushing) return;
    flushing = flush().finally(() => {
      flushing = null;
      if (completions.length) flushSoon();
    });
  }

  /**
   * Records finished attempts, all that are waiting in one statement. An outcome is worth keeping
   * through a database outage (else the delivery is sent again when its lease ends, and the
   * attempt log misses it): a batch is retried while the database is unavailable and its leases
   * last; after that another worker may own the delivery and the fenced update would be refused
   * anyway.
   */
  async function flush() {
    let failures = 0;
    while (completions.length) {
      const batch = completions.slice(0, COMPLETION_BATCH);
      completions = completions.slice(batch.length);
      try {
        const failingBefore = new Date(clock.now().getTime() - settings.disableAfterMs);
        const { applied, overdue } = await repo.completeMany(
          batch.map((b) => b.completion),
          failingBefore,
        );
        failures = 0;
        for (const { completion } of batch) {
          if (!applied.has(completion.delivery.id))
            logger.warn(
              { delivery: completion.delivery.id },
              "delivery lease lost before completion; outcome not applied",
            );
          // A retry of ours: claimed when it falls due, not at the next poll.
          else if (completion.next.status === DeliveryStatus.pending) {
            const at = completion.next.at.getTime();
            if (at < retryDueAt) {
              retryDueAt = at;
              wakeOnSlot?.();
            }
          }
        }
        await disableWhereDue(
          batch.map((b) => b.completion),
          overdue,
          failingBefore,
        );
      } catch (error) {
        failures++;
        const delayMs = backoffDelayMs(failures, settings.backoff);
        const nowMs = clock.now().getTime();
        const retry =
          isDatabaseUnavailable(error) && !stopped
            ? batch.filter((b) => b.claimedAt + settings.leaseMs - nowMs > delayMs)
            : [];
        if (retry.length < batch.length)
          logger.error(
            {
              err: error,
              deliveries: batch.filter((b) => !retry.includes(b)).map((b) => b.completion.delivery.id),
            },
            "delivery attempt failed to record; it is attempted again when its lease ends",
          );
        if (retry.length === 0) continue;
        logger.warn(
          { deliveries: retry.length, retryInMs: delayMs, error: (error as Error).message },
          "database unavailable; recording the delivery attempts again later",
        );
        completions = [...retry, ...completions];
        await new Promise((r) => setTimeout(r, delayMs));
      }
    }
  }

  /**
   * After a batch is recorded: disables the subscriptions whose receiver answered 410 Gone, and
   * those whose run of failures has lasted the disable window (completeMany reported them). A
   * statement only when there is one; a failure here is logged and not retried, because the next
   * failed attempt to such a subscription asks again (and a success means it should not happen).
   */
  async function disableWhereDue(
    batch: readonly Completion[],
    overdue: ReadonlyArray<{ store_id: string; subscription_id: string }>,
    failingBefore: Date,
  ) {
    const due = new Set(overdue.map((o) => `${o.store_id} ${o.subscription_id}`));
    const requests = [];
    for (const c of batch) {
      if (c.next.status === DeliveryStatus.delivered) continue;
      const gone = c.statusCode !== null && deps.disablesAtOnce(c.statusCode);
      if (!gone && !due.has(`${c.delivery.store_id} ${c.delivery.subscription_id}`)) continue;
      requests.push({
        store_id: c.delivery.store_id,
        subscription_id: c.delivery.subscription_id,
        reason: deps.failureReason(c),
        gone,
        failedAt: c.startedAt,
      });
    }
    if (requests.length === 0) return;
    try {
      const disabled = await repo.disableSubscriptions(requests, clock.now(), failingBefore);
      for (const d of disabled)
        logger.warn(
          { subscription: d.subscription_id, store: d.store_id, reason: d.reason },
          "webhook subscription disabled",
        );
    } catch (error) {
      logger.warn(
        { err: error, subscriptions: requests.length },
        "could not disable webhook subscriptions; the next failed attempt asks again",
      );
    }
  }

  async function tick(): Promise<number> {
    const now = clock.now();
    const nowMs = now.getTime();
    let claimed = 0;
    if (toRelease.length) {
      const batch = toRelease.splice(0);
      try {
        await repo.release(
          batch.map((h) => h.delivery),
          now,
        );
        claimDue = true;
      } catch (error) {
        // Not given back: their leases end by themselves (and the attempt counts, as after a crash).
        logger.warn({ err: error, deliveries: batch.length }, "could not give back unattempted deliveries");
      }
    }
    if (dispatchDue || nowMs - lastDispatch >= settings.pollMs) {
      const announced = dispatchDue;
      dispatchDue = false;
      lastDispatch = nowMs;
      const dispatched = await repo.dispatchEvents(now, settings.dispatchBatch, {
        room: room(),
        leaseMs: settings.leaseMs,
      });
      take(dispatched.claimed, nowMs);
      claimed += dispatched.claimed.length;
      // Deliveries the dispatch could not claim (their host's room was full) are due now.
      for (const host of dispatched.unclaimedHosts) backlog.add(host);
      // A full batch means more events may be waiting: keep dispatching on the next pass.
      if (dispatched.events >= settings.dispatchBatch) dispatchDue = true;
      // Announced, yet no new event: a redelivery or an uninstall's delivery, or another worker's events.
      if (announced && dispatched.events === 0) claimDue = true;
    }
    if (nowMs - lastSweep >= settings.pollMs) {
      lastSweep = nowMs;
      await repo.failExhausted(now, settings.maxAttempts);
      deps.housekeeping?.due(now);
    }
    if (nowMs >= retryDueAt || nowMs >= nextDueAt) {
      retryDueAt = nextDueAt = Number.POSITIVE_INFINITY;
      claimDue = true;
    }
    if (nowMs - lastClaim >= settings.pollMs) claimDue = true;
    const r = room();
    if (r.limit > 0 && (claimDue || backlogLow())) {
      claimDue = false;
      lastClaim = nowMs;
      const rows = await repo.claim(now, r, settings.leaseMs, settings.maxAttempts);
      take(rows, nowMs);
      claimed += rows.length;
      // A host that got all its room may have more due; one that got less has nothing more due now.
      const got = new Map<string, number>();
      for (const row of rows) got.set(row.target_host, (got.get(row.target_host) ?? 0) + 1);
      for (const host of backlog)
        if (!got.has(host) && (r.hosts.get(host) ?? r.otherHosts) > 0) backlog.delete(host);
      for (const [host, n] of got) {
        if (n >= (r.hosts.get(host) ?? r.otherHosts)) backlog.add(host);
        else backlog.delete(host);
      }
      if (rows.length >= r.limit) for (const host of got.keys()) backlog.add(host);
      else if (heldTotal === 0 && backlog.size === 0) {
        // Idle: sleep until the next due delivery instead of the whole poll interval.
        const next = await repo.nextDueAt(now);
        nextDueAt = next ? next.getTime() : Number.POSITIVE_INFINITY;
      }
    }
    return claimed;
  }

  /**
   * Until woken: by a notification, a slot freed on a host with due deliveries left behind, a retry
   * of ours or the next due delivery falling due, or the poll interval. Backing off after a failed
   * pass, for `backoffMs`, during which only a notification (the database is back) or stop()
   * wakes it.
   */
  async function sleep(backoffMs?: number) {
    let ms = backoffMs;
    if (ms === undefined) {
      if (dispatchDue || toRelease.length) return;
      if (heldTotal < totalHold && (claimDue || backlogLow())) return;
      const nowMs = clock.now().getTime();
      // Full (nothing more may be held): a claim that is owed waits for room, not a timer.
      ms =
        heldTotal >= totalHold
          ? settings.pollMs
          : Math.max(1, Math.min(lastClaim + settings.pollMs, retryDueAt, nextDueAt) - nowMs);
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
      wakeOnSlot = backoffMs === undefined ? wake : null;
    });
    wake = null;
    wakeOnSlot = null;
  }

  async function run() {
    let failures = 0;
    while (!stopped) {
      let backoffMs: number | undefined;
      try {
        await tick();
        if (failures > 0) logger.info({ failures }, "delivery worker resumed");
        failures = 0;
      } catch (error) {
        // Nothing is lost by a failed pass (claims and outcomes are transactions; a claim whose
        // answer was lost ends with its lease): pause, longer each time, and go round again.
        failures++;
        backoffMs = backoffDelayMs(failures, settings.backoff);
        if (isDatabaseUnavailable(error))
          logger.warn(
            { failures, retryInMs: backoffMs, error: (error as Error).message },
            "delivery worker: database unavailable; retrying",
          );
        else logger.error({ err: error, failures, retryInMs: backoffMs }, "delivery worker tick failed");
      }
      if (!stopped) await sleep(backoffMs);
    }
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      loop = run();
      logger.info({ concurrency: settings.concurrency }, "webhook delivery worker started");
    },
    /** Wakes the loop at once (a new event was committed). */
    poke,
    /**
     * Stops claiming, gives back what it claimed but did not start, then waits for the attempts
     * in flight to finish and their outcomes to be recorded.
     */
    async stop() {
      stopped = true;
      poke();
      await loop;
      const unstarted = [...toRelease.splice(0), ...[...queues.values()].flat()];
      queues.clear();
      for (const h of unstarted) {
        add(held, h.delivery.target_host, -1);
        heldTotal--;
      }
      if (unstarted.length)
        await repo
          .release(
            unstarted.map((h) => h.delivery),
            clock.now(),
          )
          .catch((error) =>
            logger.warn(
              { err: error, deliveries: unstarted.length },
              "could not give back unattempted deliveries",
            ),
          );
      await Promise.allSettled([...attempts]);
      while (flushing) await flushing;
      await deps.housekeeping?.idle();
    },
    /** One pass of dispatch + claim, for operators' tools and tests that step the engine. */
    tick,
    get inFlight() {
      return running;
    },
  };
}
export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
