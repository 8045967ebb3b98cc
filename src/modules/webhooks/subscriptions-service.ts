import type { EventName, SubscribableEventName } from "../../contracts/events.ts";
import { SubscriptionStatus } from "../../contracts/index.ts";
import type { WebhookSubscription } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId, newWebhookSecret } from "../../lib/ids.ts";
import { eventsAllowed, requireEventScope } from "../events/event-scope.ts";
import type { AccessContext } from "../oauth/token-service.ts";
import { checkSubscriptionView } from "./filters/subscription-view.ts";
import type { SubscriptionBounds, SubscriptionRepo } from "./subscriptions-repo.ts";
import type { CreateSubscriptionInput } from "./webhooks-schemas.ts";

/** The 409 for a subscription over a bound, or one that exists already. */
function refusal(
  why: "event" | "installation" | "duplicate",
  event: EventName,
  bounds: SubscriptionBounds,
): AppError {
  if (why === "duplicate")
    return new AppError("CONFLICT", {
      message: "This installation already subscribes this URL to this event.",
      details: [{ field: "targetUrl", message: "is already subscribed to this event" }],
    });
  if (why === "event")
    return new AppError("CONFLICT", {
      message: `An installation can have at most ${bounds.perEvent} active subscriptions of one event; delete one of ${event} first.`,
      details: [{ field: "eventName", message: `has ${bounds.perEvent} subscriptions already` }],
    });
  return new AppError("CONFLICT", {
    message: `An installation can have at most ${bounds.perInstallation} active subscriptions.`,
  });
}

export function toSubscriptionResource(s: WebhookSubscription & { failing_since?: Date | null }) {
  return {
    id: s.id,
    // Only a listed subscription (active or disabled) is made into a resource, and only those of
    // subscribable events exist: a privacy channel is neither.
    eventName: s.event_name as SubscribableEventName,
    targetUrl: s.target_url,
    status:
      s.status === SubscriptionStatus.disabled ? SubscriptionStatus.disabled : SubscriptionStatus.active,
    disabledAt: s.disabled_at ? s.disabled_at.toISOString() : null,
    disabledReason: s.disabled_reason,
    failingSince: s.failing_since ? s.failing_since.toISOString() : null,
    createdAt: s.created_at.toISOString(),
    secretRotatedAt: s.secret_rotated_at ? s.secret_rotated_at.toISOString() : null,
    apiVersion: s.api_version,
    filter: s.filter,
    fields: s.fields,
  };
}

/** An installation's webhook subscriptions (Admin API, scope manage_webhooks). */
export function createSubscriptionService(deps: {
  repo: Pick<
    SubscriptionRepo,
    "insertWithinBounds" | "listListed" | "stop" | "findListed" | "rotateSecret" | "setApiVersion"
  >;
  clock: Clock;
  /** How long the previous secret still signs `webhook-signature` after a rotation. */
  secretOverlapSeconds: number;
  /** Active subscriptions an installation may hold, per event and in all. */
  bounds: SubscriptionBounds;
  /** Encrypts a subscription secret for storage (AES-256-GCM). */
  sealSecret(secret: string): string;
  /** Refuses non-https targets and targets resolving to internal addresses (SSRF). */
  assertSafeTarget(url: string): Promise<void>;
  /** A version the subscription's deliveries may be rendered at: one served now (400 otherwise). */
  apiVersions: { resolve(asked: string | undefined, pinned: string | null, now: Date): string };
  /** The event's data schema at a version (a subscription's filter and fields are checked against it). */
  payloadSchema(topic: string, apiVersion: string): object | null;
}) {
  const { repo, clock } = deps;
  return {
    /**
     * What the token needs for this subscription beyond manage_webhooks: the event's own scope.
     * The create route runs it as its `authorize` step, before an idempotent replay could answer.
     */
    authorize(access: AccessContext, input: { eventName: EventName }) {
      requireEventScope(access.scopes, input.eventName, "Subscribing to");
    },
    async create(access: AccessContext, input: CreateSubscriptionInput) {
      // Again here, so the service never depends on its caller for it (a pure check).
      this.authorize(access, input);
      const now = clock.now();
      const apiVersion = deps.apiVersions.resolve(input.apiVersion, access.apiVersion, now);
      // Against the event's payload schema at the subscription's version (what its bodies carry):
      // a 400 naming the field, or where the filter breaks.
      const view = checkSubscriptionView(
        input.eventName,
        input,
        deps.payloadSchema(input.eventName, apiVersion) ?? undefined,
      );
      await deps.assertSafeTarget(input.targetUrl);
      const secret = newWebhookSecret();
      const result = await repo.insertWithinBounds(
        {
          store_id: access.store.id,
          id: newId("subscription"),
          installation_id: access.installationId,
          app_id: access.appId,
          event_name: input.eventName,
          target_url: input.targetUrl,
          secret_ciphertext: deps.sealSecret(secret),
          previous_secret_ciphertext: null,
          secret_rotated_at: null,
          status: SubscriptionStatus.active,
          api_version: apiVersion,
          created_at: now,
          stopped_at: null,
          disabled_at: null,
          disabled_reason: null,
          filter: view.filter,
          fields: view.fields === null ? null : [...view.fields],
        },
        deps.bounds,
      );
      if ("refused" in result) throw refusal(result.refused, input.eventName, deps.bounds);
      return { ...toSubscriptionResource(result.row), secret };
    },
    /**
     * What rotating the secret of subscription `id` needs beyond manage_webhooks: the subscription
     * is the installation's and active or disabled (404 otherwise), and the token holds the scope of its event,
     * as creating it did (the new secret lets its holder sign that event's deliveries). The route
     * runs it as its `authorize` step, so an idempotent replay never hands the stored secret to a
     * token without that scope, or for a subscription deleted since.
     */
    async authorizeRotation(access: AccessContext, id: string) {
      await this.authorizeChange(access, id, "Rotating the secret of a subscription to");
    },
    /** A change to a subscription needs the scope of its event, as making it did (404 for another's). */
    async authorizeChange(access: AccessContext, id: string, action = "Changing a subscription to") {
      const row = await repo.findListed(access.store.id, access.installationId, id);
      if (!row) throw notFound("Subscription");
      requireEventScope(access.scopes, row.event_name as EventName, action);
    },
    /**
     * A new secret in force at once; the one it replaces keeps signing `webhook-signature` (after
     * the new one) for `secretOverlapSeconds`. Answers the new secret, shown only here.
     */
    async rotateSecret(access: AccessContext, id: string) {
      const secret = newWebhookSecret();
      const row = await repo.rotateSecret(
        { storeId: access.store.id, installationId: access.installationId, id },
        // Never a subscription to an event the token could not subscribe to (authorizeRotation
        // told which refusal applies; this holds whoever calls).
        eventsAllowed(access.scopes),
        deps.sealSecret(secret),
        clock.now(),
      );
      if (!row) throw notFound("Subscription");
      const rotatedAt = row.secret_rotated_at!;
      return {
        id: row.id,
        secret,
        secretRotatedAt: rotatedAt.toISOString(),
        previousSecretExpiresAt: new Date(
          rotatedAt.getTime() + deps.secretOverlapSeconds * 1000,
        ).toISOString(),
      };
    },
    async list(access: AccessContext) {
      return (await repo.listListed(access.store.id, access.installationId)).map(toSubscriptionResource);
    },
    /** Another app's or store's subscription id is NOT_FOUND. */
    /**
     * Renders the subscription's deliveries at another version from now on (one served now):
     * pending ones too, since a body is rendered when it is sent.
     */
    async update(access: AccessContext, id: string, input: { apiVersion: string }) {
      const version = deps.apiVersions.resolve(input.apiVersion, null, clock.now());
      // Its filter and fields must still name what the bodies carry at the new version.
      const current = await repo.findListed(access.store.id, access.installationId, id);
      if (!current) throw notFound("Subscription");
      checkSubscriptionView(
        current.event_name as EventName,
        {
          ...(current.filter !== null ? { filter: current.filter } : {}),
          ...(current.fields ? { fields: current.fields } : {}),
        },
        deps.payloadSchema(current.event_name, version) ?? undefined,
      );
      const changed = await repo.setApiVersion(access.store.id, access.installationId, id, version);
      const row = changed ? await repo.findListed(access.store.id, access.installationId, id) : undefined;
      if (!row) throw notFound("Subscription");
      return toSubscriptionResource(row);
    },
    async remove(access: AccessContext, id: string) {
      const row = await repo.stop(access.store.id, access.installationId, id, clock.now());
      if (!row) throw notFound("Subscription");
      return toSubscriptionResource(row);
    },
  };
}
export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
