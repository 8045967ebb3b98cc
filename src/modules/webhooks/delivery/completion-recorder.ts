import type { FastifyBaseLogger } from "fastify";
import { DeliveryStatus } from "../../../contracts/index.ts";
import type { Clock } from "../../../lib/clock.ts";
import type { Completion, DeliveryRepo, DisableRequest } from "./delivery-repo.ts";

/**
 * The subscriptions a recorded batch asks to disable: those whose receiver answered a status that
 * disables at once (410 Gone), and those whose run of failures has lasted the disable window
 * (`overdue`, as completeMany reported them). A delivered attempt asks nothing.
 */
export function disableRequests(
  batch: readonly Completion[],
  overdue: ReadonlyArray<{ store_id: string; subscription_id: string }>,
  rules: {
    disablesAtOnce(status: number): boolean;
    failureReason(attempt: { statusCode: number | null; error: string | null }): string;
  },
): DisableRequest[] {
  const due = new Set(overdue.map((o) => `${o.store_id} ${o.subscription_id}`));
  const requests: DisableRequest[] = [];
  for (const c of batch) {
    if (c.next.status === DeliveryStatus.delivered) continue;
    const gone = c.statusCode !== null && rules.disablesAtOnce(c.statusCode);
    if (!gone && !due.has(`${c.delivery.store_id} ${c.delivery.subscription_id}`)) continue;
    requests.push({
      store_id: c.delivery.store_id,
      subscription_id: c.delivery.subscription_id,
      reason: rules.failureReason(c),
      gone,
      failedAt: c.startedAt,
    });
  }
  return requests;
}

/**
 * Records a batch of finished attempts: two statements at most, each for its own reason.
 * record() throws when the outcomes could not be written (the batcher decides whether to try
 * again); a failure to disable is only logged.
 */
export function createCompletionRecorder(deps: {
  repo: Pick<DeliveryRepo, "completeMany" | "disableSubscriptions">;
  clock: Clock;
  /** A subscription failing without a break for this long is disabled (WEBHOOK_DISABLE_AFTER_SECONDS). */
  disableAfterMs: number;
  logger: Pick<FastifyBaseLogger, "warn">;
  disablesAtOnce(status: number): boolean;
  failureReason(attempt: { statusCode: number | null; error: string | null }): string;
  /** A retry was recorded for this worker's delivery, due at `atMs`: the worker claims it then. */
  onRetry(atMs: number): void;
}) {
  const { repo, clock, logger } = deps;

  /**
   * Disables what the batch asks to (disableRequests). A statement only when there is one; a
   * failure here is logged and not retried, because the next failed attempt to such a
   * subscription asks again (and a success means it should not happen).
   */
  async function disableWhereDue(
    batch: readonly Completion[],
    overdue: ReadonlyArray<{ store_id: string; subscription_id: string }>,
    failingBefore: Date,
  ) {
    const requests = disableRequests(batch, overdue, deps);
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

  return {
    /**
     * Writes the outcomes in one statement (completeMany: fenced by each lease, so an outcome
     * whose lease was lost is not applied), reports this worker's retries, then disables where due.
     */
    async record(batch: readonly Completion[]): Promise<void> {
      const failingBefore = new Date(clock.now().getTime() - deps.disableAfterMs);
      const { applied, overdue } = await repo.completeMany(batch, failingBefore);
      for (const completion of batch) {
        if (!applied.has(completion.delivery.id))
          logger.warn(
            { delivery: completion.delivery.id },
            "delivery lease lost before completion; outcome not applied",
          );
        // A retry of ours: claimed when it falls due, not at the next poll.
        else if (completion.next.status === DeliveryStatus.pending)
          deps.onRetry(completion.next.at.getTime());
      }
      await disableWhereDue(batch, overdue, failingBefore);
    },
  };
}
export type CompletionRecorder = ReturnType<typeof createCompletionRecorder>;
