import type { EventName } from "../../contracts/events.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError } from "../../lib/errors.ts";
import { createRateLimiter } from "../../lib/rate-limit/limiters.ts";
import type { RateLimitDecision, SlidingWindowStore } from "../../lib/rate-limit/sliding-window.ts";

const MINUTE_MS = 60_000;

/**
 * What an app can make the platform send on its own initiative, bounded per app in any 60 s (the
 * platform's sliding-window limiter, shared through Redis when configured): the deliveries its test
 * events fan out to, and redeliveries. Real events are the merchant's doing, and the subscriptions
 * they go to are bounded per event and per installation (subscriptions-repo.ts).
 */
export function createWebhookLimits(deps: {
  store: SlidingWindowStore;
  clock: Clock;
  /** Deliveries plus listen-stream items test events may produce per app in any 60 s. */
  testDeliveriesPerMinute: number;
  /** Redeliveries per app in any 60 s (dashboard and Admin API together). */
  redeliveriesPerMinute: number;
  /** How many deliveries and listen items an event of the installation fans out to now. */
  fanOut(storeId: string, installationId: string, event: EventName): Promise<number>;
}) {
  const tests = createRateLimiter(deps, deps.testDeliveriesPerMinute, MINUTE_MS);
  const redeliveries = createRateLimiter(deps, deps.redeliveriesPerMinute, MINUTE_MS);

  /** 429 with Retry-After, said in the envelope's details too. */
  function refusal(message: string, decision: RateLimitDecision, cost: number): AppError {
    const retryAfterSeconds = Math.max(1, decision.resetSeconds);
    return new AppError("RATE_LIMITED", {
      message,
      details: { limit: decision.limit, windowSeconds: MINUTE_MS / 1000, cost, retryAfterSeconds },
      headers: { "retry-after": String(retryAfterSeconds) },
    });
  }

  return {
    /**
     * Charges a test event to its app before it is recorded: as many as it fans out to (at
     * least 1, the event itself). A fan-out larger than the whole budget (subscriptions made
     * before the per-event bound, many listen sessions) is charged the whole budget, so it
     * passes at most once per window instead of never.
     */
    async admitTestEvent(
      access: { appId: string; store: { id: string }; installationId: string },
      event: EventName,
    ): Promise<void> {
      const targets = await deps.fanOut(access.store.id, access.installationId, event);
      const cost = Math.min(Math.max(1, targets), tests.limit);
      const decision = await tests.consume(`webhook-test:app:${access.appId}`, cost);
      if (!decision.allowed)
        throw refusal(
          `Test events may produce at most ${tests.limit} deliveries per minute per app; this one goes to ${targets} (subscriptions of ${event} and listen sessions).`,
          decision,
          cost,
        );
    },

    /** Charges one redelivery to its app. */
    async admitRedelivery(appId: string): Promise<void> {
      const decision = await redeliveries.consume(`webhook-redeliver:app:${appId}`);
      if (!decision.allowed)
        throw refusal(
          `An app may redeliver at most ${redeliveries.limit} deliveries per minute.`,
          decision,
          1,
        );
    },
  };
}
export type WebhookLimits = ReturnType<typeof createWebhookLimits>;
