import type { FastifyBaseLogger } from "fastify";
import { attemptStartWindowMs } from "../../../config.ts";
import { isDatabaseUnavailable } from "../../../lib/availability.ts";
import { type BackoffOptions, backoffDelayMs } from "../../../lib/backoff.ts";
import type { Clock } from "../../../lib/clock.ts";
import { type AttemptResult, attemptOutcome } from "./attempt-outcome.ts";
import { createClaimSchedule } from "./claim-schedule.ts";
import { createCompletionBatcher } from "./completion-batcher.ts";
import { createCompletionRecorder } from "./completion-recorder.ts";
import type { ClaimedDelivery, DeliveryRepo } from "./delivery-repo.ts";
import { createHostQueues, type Held } from "./host-queues.ts";
import type { Outcome } from "./retry-policy.ts";

export type { AttemptResult } from "./attempt-outcome.ts";

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
 * The delivery loop of one worker process: dispatch new events (claiming their first attempts on
 * the way), claim due deliveries (bounded overall and per target host), attempt them, record
 * outcomes in batches, sleep until there is work. This file wires the parts:
 * - claim-schedule.ts: when to dispatch, sweep and claim, and how long to sleep;
 * - host-queues.ts: what is held per host, how much a claim may take, which delivery starts next;
 * - attempt-outcome.ts: an attempt's result as the completion to record (the retry policy's call);
 * - completion-batcher.ts and completion-recorder.ts: outcomes written many per statement, kept
 *   through a database outage, and the subscriptions to disable.
 *
 * Concurrency: at most `concurrency` attempts in flight, at most `perTargetConcurrency` to one
 * host. A slot is free again as soon as the receiver has answered; recording the outcome does not
 * hold it (outcomes are written in the background, many per statement).
 */
export function createDeliveryWorker(deps: WorkerDeps) {
  const { repo, clock, settings, logger } = deps;
  const hosts = createHostQueues({
    concurrency: settings.concurrency,
    perTargetConcurrency: settings.perTargetConcurrency,
    startWindowMs: attemptStartWindowMs(settings.leaseMs, settings.timeoutMs),
  });
  const schedule = createClaimSchedule({ pollMs: settings.pollMs, dispatchBatch: settings.dispatchBatch });
  const recorder = createCompletionRecorder({
    repo,
    clock,
    disableAfterMs: settings.disableAfterMs,
    logger,
    disablesAtOnce: deps.disablesAtOnce,
    failureReason: deps.failureReason,
    onRetry(atMs) {
      if (schedule.retryRecorded(atMs)) wakeOnSlot?.();
    },
  });
  const completions = createCompletionBatcher({
    record: recorder.record,
    clock,
    leaseMs: settings.leaseMs,
    backoff: settings.backoff,
    retrying: () => !stopped,
    logger,
  });
  /** Claimed but given back unattempted (they waited past the start window): released on the next pass. */
  const toRelease: Held[] = [];
  const attempts = new Set<Promise<void>>();
  let stopped = true;
  let loop: Promise<void> | null = null;
  /** Ends the current sleep (set while sleeping). */
  let wake: (() => void) | null = null;
  /** Ends the current sleep when a slot or a retry makes a claim worth it; null while backing off. */
  let wakeOnSlot: (() => void) | null = null;

  /** Who waits for the next pass to end (failed or not). */
  let passWaiters: Array<() => void> = [];
  /** Events dispatched, attempts started and deliveries given back so far: what `settled` watches. */
  let work = 0;
  const afterNextPass = () => new Promise<void>((resolve) => passWaiters.push(resolve));

  /** A new event was committed: dispatch it and attempt its deliveries now. */
  function poke() {
    schedule.announce();
    wake?.();
  }

  /** Starts waiting deliveries while slots are free; gives back those that waited too long. */
  function pump() {
    if (hosts.empty) return;
    for (const h of hosts.expire(clock.now().getTime())) toRelease.push(h);
    while (!stopped) {
      const h = hosts.startNext();
      if (!h) break;
      work++;
      const p = attempt(h)
        .catch((error) => logger.error({ err: error, delivery: h.delivery.id }, "delivery attempt failed"))
        .finally(() => attempts.delete(p));
      attempts.add(p);
    }
    if (toRelease.length) wake?.();
  }

  /** Sends one attempt, frees its slot, queues its outcome for recording, and starts the next. */
  async function attempt({ delivery: d, claimedAt }: Held) {
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
    }
    // The receiver has answered (or not): the slot is free for the next attempt to this host.
    hosts.finished(d.target_host, result.durationMs);
    const { outcome, completion } = attemptOutcome({
      delivery: d,
      result,
      startedAt,
      now: clock.now(),
      retryBaseMs: settings.retryBaseMs,
      maxAttempts: settings.maxAttempts,
    });
    deps.metrics?.attemptFinished(outcome, result.durationMs / 1000);
    completions.add({ completion, claimedAt });
    pump();
    // Claim more once this host's queue runs low, so its slots never wait for a claim.
    if (hosts.wantsMore(d.target_host)) wakeOnSlot?.();
    // A claim is owed but everything this worker may hold was held: claim once half is free.
    else if (schedule.claimDue && hosts.heldTotal <= hosts.totalHold / 2) wakeOnSlot?.();
  }

  /**
   * release: gives back the deliveries that waited past their start window, so that another
   * worker (or this one) may claim them now rather than when their leases end.
   */
  async function giveBack(now: Date) {
    if (!toRelease.length) return;
    const batch = toRelease.splice(0);
    work += batch.length;
    try {
      await repo.release(
        batch.map((h) => h.delivery),
        now,
      );
      schedule.claimOwed();
    } catch (error) {
      // Not given back: their leases end by themselves (and the attempt counts, as after a crash).
      logger.warn({ err: error, deliveries: batch.length }, "could not give back unattempted deliveries");
    }
  }

  /**
   * dispatchEvents: fans new events out to deliveries and claims their first attempts in the
   * same statement, within the room this worker has, so a new event's attempts need no claim.
   */
  async function dispatch(now: Date): Promise<number> {
    const due = schedule.dispatchNow(now.getTime());
    if (!due) return 0;
    const dispatched = await repo.dispatchEvents(now, settings.dispatchBatch, {
      room: hosts.room(),
      leaseMs: settings.leaseMs,
    });
    hosts.hold(dispatched.claimed, now.getTime());
    pump();
    // Deliveries the dispatch could not claim (their host's room was full) are due now.
    hosts.leftBehind(dispatched.unclaimedHosts);
    schedule.dispatched(due.announced, dispatched.events);
    work += dispatched.events;
    return dispatched.claimed.length;
  }

  /**
   * failExhausted: ends deliveries that have used every attempt without an outcome (their last
   * attempt's worker died); and offers housekeeping its turn. Once per poll interval.
   */
  async function sweep(now: Date) {
    if (!schedule.sweepNow(now.getTime())) return;
    await repo.failExhausted(now, settings.maxAttempts);
    deps.housekeeping?.due(now);
  }

  /**
   * claim: takes due deliveries within the room this worker has, per host and in all, when the
   * schedule says one may find something. When it comes back short and nothing is held,
   * nextDueAt asks when the next delivery falls due, so the worker sleeps until then instead of
   * the whole poll interval.
   */
  async function claim(now: Date): Promise<number> {
    const nowMs = now.getTime();
    const room = hosts.room();
    if (!schedule.claimNow(nowMs, room.limit > 0, hosts.backlogLow)) return 0;
    const rows = await repo.claim(now, room, settings.leaseMs, settings.maxAttempts);
    hosts.hold(rows, nowMs);
    pump();
    const full = hosts.claimed(room, rows);
    if (!full && hosts.idle) {
      const next = await repo.nextDueAt(now);
      schedule.nextDue(next ? next.getTime() : null);
    }
    return rows.length;
  }

  /** One pass: each statement that has a reason to run, in this order. Answers how many it claimed. */
  async function tick(): Promise<number> {
    const now = clock.now();
    await giveBack(now);
    let claimed = await dispatch(now);
    await sweep(now);
    claimed += await claim(now);
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
      if (toRelease.length) return;
      const until = schedule.sleepMs(
        clock.now().getTime(),
        hosts.heldTotal >= hosts.totalHold,
        hosts.backlogLow,
      );
      if (until === null) return;
      ms = until;
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
      const waiting = passWaiters;
      passWaiters = [];
      for (const resolve of waiting) resolve();
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
      const unstarted = [...toRelease.splice(0), ...hosts.drain()];
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
      await completions.idle();
      await deps.housekeeping?.idle();
    },
    /** One pass of dispatch + claim, for operators' tools and tests that step the engine. */
    tick,
    /**
     * Resolves once the worker has done everything it can at the clock's present time: every
     * committed event dispatched, every due delivery claimed and attempted, every outcome recorded,
     * the periodic sweep (exhausted deliveries, housekeeping: retention, shop.redact) run. What
     * falls due later (a retry) waits for the clock, as ever. A barrier for whoever must know that
     * nothing more leaves now (tests that check what was not sent), instead of a guess at how
     * long the machine takes.
     */
    async settled(): Promise<void> {
      if (stopped) throw new Error("The delivery worker is not running.");
      // Two rounds in a row without work: what the sweep's housekeeping made in the first (a
      // shop.redact delivery) is claimed, and counted, in the second.
      for (let quiet = 0; quiet < 2; ) {
        const before = work;
        // The pass under way may have looked before this call: wait for it, then for a whole one.
        for (let i = 0; i < 2; i++) {
          const next = afterNextPass();
          schedule.everythingOwed();
          wake?.();
          await next;
        }
        await Promise.allSettled([...attempts]);
        await completions.idle();
        await deps.housekeeping?.idle();
        quiet = work === before && attempts.size === 0 && hosts.empty ? quiet + 1 : 0;
      }
    },
    get inFlight() {
      return hosts.running;
    },
  };
}
export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
