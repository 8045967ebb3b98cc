import type { FastifyBaseLogger } from "fastify";
import { isDatabaseUnavailable } from "../../../db/availability.ts";
import { type BackoffOptions, backoffDelayMs } from "../../../lib/backoff.ts";
import type { Clock } from "../../../lib/clock.ts";
import type { ClaimedDelivery, DeliveryRepo } from "./delivery-repo.ts";

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
}

export interface WorkerDeps {
  repo: Pick<DeliveryRepo, "dispatchEvents" | "failExhausted" | "claim" | "complete" | "nextDueAt">;
  clock: Clock;
  settings: WorkerSettings;
  logger: Pick<FastifyBaseLogger, "info" | "warn" | "error" | "debug">;
  /** Subscription secret from its stored ciphertext. */
  openSecret(ciphertext: string): string;
  /** Signs and sends one attempt. */
  attempt(input: { delivery: ClaimedDelivery; secret: string; timeoutMs: number }): Promise<AttemptResult>;
  /** `retry` or a final outcome for an attempt's result. */
  classify(result: AttemptResult): "delivered" | "retry" | "failed";
  /** Delay before the next attempt after `attemptsMade` attempts. */
  nextDelayMs(attemptsMade: number, baseMs: number, retryAfter?: string): number;
  metrics?: {
    attemptFinished(outcome: "delivered" | "retry" | "failed", seconds: number): void;
  };
}

/**
 * The delivery loop of one worker process: dispatch new events, claim due deliveries (bounded
 * overall and per target host), attempt them, record outcomes, sleep until woken by a
 * notification, a finished attempt, the next due time or the poll interval.
 */
export function createDeliveryWorker(deps: WorkerDeps) {
  const { repo, clock, settings, logger } = deps;
  const inFlight = new Map<string, number>();
  let running = 0;
  let stopped = true;
  // Fan-out and sweeps run when an event was announced or the poll interval passed, not after
  // every finished attempt: on a busy worker that would be extra queries per delivery.
  let housekeepingDue = true;
  let lastHousekeeping = 0;
  let wake: (() => void) | null = null;
  let wakeOnAttempt: (() => void) | null = null;
  let loop: Promise<void> | null = null;
  const attempts = new Set<Promise<void>>();

  /** A new event was committed: dispatch it and claim its deliveries now. */
  function poke() {
    housekeepingDue = true;
    wake?.();
  }

  function attemptFinished() {
    wakeOnAttempt?.();
  }

  async function runOne(d: ClaimedDelivery, claimedAt: number) {
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
    let outcome = deps.classify(result);
    if (outcome === "retry" && d.attempts >= settings.maxAttempts) outcome = "failed";
    const now = clock.now();
    const next =
      outcome === "retry"
        ? {
            status: "pending" as const,
            at: new Date(
              now.getTime() + deps.nextDelayMs(d.attempts, settings.retryBaseMs, result.retryAfter),
            ),
          }
        : { status: outcome };
    const record = () =>
      repo.complete(d, {
        startedAt,
        durationMs: result.durationMs,
        statusCode: result.status ?? null,
        error: result.error ?? null,
        responseBody: result.responseBody,
        next,
        now,
      });
    deps.metrics?.attemptFinished(outcome, result.durationMs / 1000);
    const kept = await recordWhileLeased(record, claimedAt, d.id);
    if (kept === false)
      logger.warn({ delivery: d.id }, "delivery lease lost before completion; outcome not applied");
  }

  /**
   * The attempt was made; its outcome is worth keeping through a database outage (else the
   * delivery is sent again when its lease ends, and the attempt log misses it). Retries while the
   * database is unavailable and the lease is ours; after that another worker may own the delivery
   * and the fenced update would be refused anyway. Answers null when it gave up.
   */
  async function recordWhileLeased(
    record: () => Promise<boolean>,
    claimedAt: number,
    delivery: string,
  ): Promise<boolean | null> {
    for (let failures = 1; ; failures++) {
      try {
        return await record();
      } catch (error) {
        const delayMs = backoffDelayMs(failures, settings.backoff);
        const leaseLeft = claimedAt + settings.leaseMs - clock.now().getTime();
        if (!isDatabaseUnavailable(error) || stopped || delayMs >= leaseLeft) {
          logger.error(
            { err: error, delivery },
            "delivery attempt failed to record; it is attempted again when its lease ends",
          );
          return null;
        }
        logger.warn(
          { delivery, retryInMs: delayMs, error: (error as Error).message },
          "database unavailable; recording the delivery attempt again later",
        );
        await new Promise((r) => setTimeout(r, delayMs));
      }
    }
  }

  async function tick(): Promise<number> {
    const now = clock.now();
    if (housekeepingDue || now.getTime() - lastHousekeeping >= settings.pollMs) {
      housekeepingDue = false;
      lastHousekeeping = now.getTime();
      // A full batch means more events may be waiting: keep dispatching on the next tick.
      if ((await repo.dispatchEvents(now, settings.dispatchBatch)) >= settings.dispatchBatch)
        housekeepingDue = true;
      await repo.failExhausted(now, settings.maxAttempts);
    }
    const free = settings.concurrency - running;
    if (free <= 0) return 0;
    const busy = [...inFlight.entries()]
      .filter(([, n]) => n >= settings.perTargetConcurrency)
      .map(([host]) => host);
    const claimed = await repo.claim(now, free, settings.leaseMs, settings.maxAttempts, busy);
    // The lease runs from the claim's `now` (the time the database stored with it).
    const claimedAt = now.getTime();
    // A host may appear more often in one claim than it has free slots: keep the extra for later
    // by releasing nothing here, since the claim size is small; the cap holds for the next claims.
    for (const d of claimed) {
      running++;
      inFlight.set(d.target_host, (inFlight.get(d.target_host) ?? 0) + 1);
      const p = runOne(d, claimedAt)
        .catch((error) => logger.error({ err: error, delivery: d.id }, "delivery attempt failed to record"))
        .finally(() => {
          running--;
          const n = (inFlight.get(d.target_host) ?? 1) - 1;
          if (n <= 0) inFlight.delete(d.target_host);
          else inFlight.set(d.target_host, n);
          attempts.delete(p);
          attemptFinished();
        });
      attempts.add(p);
    }
    return claimed.length;
  }

  /**
   * Until the next due time or the poll interval; or, backing off after a failed pass, for
   * `backoffMs`, during which only a notification (the database is back) or stop() wakes it, not
   * the attempts that finish meanwhile.
   */
  async function sleep(backoffMs?: number) {
    let ms = backoffMs;
    if (ms === undefined) {
      const nextDue = await repo.nextDueAt().catch(() => null);
      const untilDue = nextDue ? nextDue.getTime() - clock.now().getTime() : settings.pollMs;
      ms = Math.max(5, Math.min(settings.pollMs, untilDue));
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
      wakeOnAttempt = backoffMs === undefined ? wake : null;
    });
    wake = null;
    wakeOnAttempt = null;
  }

  async function run() {
    let failures = 0;
    while (!stopped) {
      let backoffMs: number | undefined;
      try {
        const claimed = await tick();
        if (failures > 0) logger.info({ failures }, "delivery worker resumed");
        failures = 0;
        // A full claim means more may be due now: go round again without sleeping.
        if (claimed > 0 && running < settings.concurrency) continue;
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
    /** Stops claiming, then waits for the attempts in flight to finish and record. */
    async stop() {
      stopped = true;
      poke();
      await loop;
      await Promise.allSettled([...attempts]);
    },
    /** One pass of dispatch + claim, for operators' tools and tests that step the engine. */
    tick,
    get inFlight() {
      return running;
    },
  };
}
export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
