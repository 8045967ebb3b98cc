import { type AdminClient, unwrap } from "./clients.ts";
import type { components } from "./generated/api.ts";

export type WebhookSubscription = components["schemas"]["WebhookSubscription"];
export type WebhookRecovery = components["schemas"]["WebhookRecovery"];
export type WebhookEnabled = components["schemas"]["WebhookEnabled"];

/** An instant as the API takes it: a Date, or an RFC 3339 string passed as it is. */
export type Instant = Date | string;

const text = (at: Instant) => (typeof at === "string" ? at : at.toISOString());

/**
 * Sends the subscription's failed deliveries once more (`POST /webhooks/{id}/recover`): every
 * delivery created in [`since`, `until` or now) that failed, or was skipped while the subscription
 * was disabled, is queued again under its original `x-webhook-id`, attempts from 1. Each is
 * recovered once, however often (or concurrently) this is called. Answers how many were queued.
 *
 *   const { queued } = await recoverWebhook(admin, subscriptionId, { since: new Date(Date.now() - 2 * 3600_000) });
 *
 * A disabled subscription is refused (`PlatformError` CONFLICT): use `enableWebhook` with `recoverSince`.
 */
export function recoverWebhook(
  admin: AdminClient,
  subscriptionId: string,
  window: { since: Instant; until?: Instant },
): Promise<WebhookRecovery> {
  return unwrap(
    admin.POST("/api/v1/apps/api/webhooks/{id}/recover", {
      params: { path: { id: subscriptionId } },
      body: {
        since: text(window.since),
        ...(window.until !== undefined ? { until: text(window.until) } : {}),
      },
    }),
  );
}

/**
 * Makes a disabled subscription active again (`POST /webhooks/{id}/enable`); with `recoverSince`,
 * also recovers from then (the events it missed while disabled included).
 */
export function enableWebhook(
  admin: AdminClient,
  subscriptionId: string,
  options: { recoverSince?: Instant } = {},
): Promise<WebhookEnabled> {
  return unwrap(
    admin.POST("/api/v1/apps/api/webhooks/{id}/enable", {
      params: { path: { id: subscriptionId } },
      body: options.recoverSince !== undefined ? { recoverSince: text(options.recoverSince) } : {},
    }),
  );
}

/** The installation's subscriptions that the platform disabled (`status: "disabled"`), with when and why. */
export async function disabledWebhooks(admin: AdminClient): Promise<WebhookSubscription[]> {
  const all = await unwrap(admin.GET("/api/v1/apps/api/webhooks"));
  return all.filter((s) => s.status === "disabled");
}
