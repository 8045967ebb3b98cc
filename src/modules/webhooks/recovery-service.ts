import { parseDateTime, SubscriptionStatus } from "../../contracts/index.ts";
import type { WebhookSubscription } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import type { AccessContext } from "../oauth/token-service.ts";
import type { DeliveryLogRepo, RecoverPosition } from "./deliveries-repo.ts";
import type { SubscriptionRepo } from "./subscriptions-repo.ts";
import { toSubscriptionResource } from "./subscriptions-service.ts";
import type { AppRecoverInput, EnableInput, RecoverInput } from "./webhooks-schemas.ts";

/**
 * Deliveries recover takes per statement: a first small chunk (most recovers are a handful of
 * deliveries, and each chunk draws its new ids up front), then large ones (100,000 failed
 * deliveries are 20 statements).
 */
const FIRST_CHUNK = 500;
const CHUNK = 5000;

function instant(text: string, field: string): Date {
  const at = parseDateTime(text);
  // The route's schema refuses what this cannot read; here again so the service stands alone.
  if (!at)
    throw new AppError("VALIDATION_FAILED", {
      details: [{ field, message: "must be a date and time in the years 1 to 9999" }],
    });
  return at;
}

function disabledConflict(): AppError {
  return new AppError("CONFLICT", {
    message:
      "The subscription is disabled: nothing is sent to it. Enable it (POST /api/v1/apps/api/webhooks/{id}/enable) with recoverSince to recover at the same time.",
  });
}

/**
 * Recover and re-enable (issue 19): failed and skipped deliveries sent once more under their
 * original webhook id, and disabled subscriptions made active again. The Admin API acts on the
 * calling installation's subscriptions, the dashboard on its app's in every store.
 */
export function createRecoveryService(deps: {
  subscriptions: Pick<SubscriptionRepo, "findListed" | "findForApp" | "enable">;
  log: Pick<DeliveryLogRepo, "recoverChunk" | "recoverableSubscriptions">;
  clock: Clock;
}) {
  const { clock } = deps;

  function window(input: RecoverInput, now: Date) {
    const since = instant(input.since, "since");
    const until = input.until === undefined ? now : instant(input.until, "until");
    if (until.getTime() <= since.getTime())
      throw new AppError("VALIDATION_FAILED", {
        details: [
          { field: input.until === undefined ? "since" : "until", message: "`until` must be after `since`" },
        ],
      });
    return { since, until };
  }

  /** Chunk after chunk until one comes back short: every recoverable delivery of the window is queued. */
  async function recoverSubscription(
    sub: Pick<WebhookSubscription, "store_id" | "id">,
    since: Date,
    until: Date,
  ): Promise<number> {
    let queued = 0;
    let after: RecoverPosition | null = null;
    for (let limit = FIRST_CHUNK; ; limit = CHUNK) {
      const chunk = await deps.log.recoverChunk({
        storeId: sub.store_id,
        subscriptionId: sub.id,
        since,
        until,
        now: clock.now(),
        limit,
        after,
      });
      queued += chunk.queued;
      if (chunk.read < limit || !chunk.last) return queued;
      after = chunk.last;
    }
  }

  async function recover(
    sub: WebhookSubscription | undefined,
    input: RecoverInput,
  ): Promise<{ queued: number; since: string; until: string }> {
    if (!sub) throw notFound("Subscription");
    if (sub.status === SubscriptionStatus.disabled) throw disabledConflict();
    const { since, until } = window(input, clock.now());
    const queued = await recoverSubscription(sub, since, until);
    return { queued, since: since.toISOString(), until: until.toISOString() };
  }

  async function enable(sub: WebhookSubscription | undefined, input: EnableInput) {
    if (!sub) throw notFound("Subscription");
    const now = clock.now();
    // Checked before enabling, so that a bad date changes nothing.
    const recoverFrom = input.recoverSince === undefined ? null : window({ since: input.recoverSince }, now);
    const enabled = await deps.subscriptions.enable(sub.store_id, sub.id);
    // Stopped meanwhile (deleted, or the app uninstalled).
    if (!enabled) throw notFound("Subscription");
    const queued = recoverFrom ? await recoverSubscription(enabled, recoverFrom.since, clock.now()) : 0;
    return { subscription: toSubscriptionResource(enabled), queued };
  }

  return {
    /** Admin API: one of the installation's subscriptions; 404 for another's, 409 while disabled. */
    recover: async (access: AccessContext, id: string, input: RecoverInput) =>
      recover(await deps.subscriptions.findListed(access.store.id, access.installationId, id), input),

    /** Admin API: active again (from disabled), and with `recoverSince` recovered from then. */
    enable: async (access: AccessContext, id: string, input: EnableInput) =>
      enable(await deps.subscriptions.findListed(access.store.id, access.installationId, id), input),

    /** Dashboard: one of the app's subscriptions in any store. */
    enableForApp: async (appId: string, id: string, input: EnableInput) =>
      enable(await deps.subscriptions.findForApp(appId, id), input),

    /**
     * Dashboard: recover one of the app's subscriptions, or (without `subscriptionId`) each of its
     * active subscriptions with something to recover in the window.
     */
    async recoverForApp(
      appId: string,
      input: AppRecoverInput,
    ): Promise<{ queued: number; since: string; until: string }> {
      if (input.subscriptionId !== undefined)
        return recover(await deps.subscriptions.findForApp(appId, input.subscriptionId), input);
      const { since, until } = window(input, clock.now());
      let queued = 0;
      for (const sub of await deps.log.recoverableSubscriptions(appId, since, until))
        queued += await recoverSubscription(
          { store_id: sub.store_id, id: sub.subscription_id },
          since,
          until,
        );
      return { queued, since: since.toISOString(), until: until.toISOString() };
    },
  };
}
export type RecoveryService = ReturnType<typeof createRecoveryService>;
