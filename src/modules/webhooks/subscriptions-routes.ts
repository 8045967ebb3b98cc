import Type from "typebox";
import { Scope } from "../../contracts/index.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope } from "../../lib/http/schemas.ts";
import { ADMIN_API, accessOf } from "../families/admin-family.ts";
import { defineOperation, mount } from "../families/operation.ts";
import type { RecoveryService } from "./recovery-service.ts";
import type { SubscriptionService } from "./subscriptions-service.ts";
import {
  CreateSubscriptionBody,
  EnableBody,
  EnableResult,
  RecoverBody,
  RecoverResult,
  SecretRotation,
  SubscriptionId,
  SubscriptionResource,
  SubscriptionWithSecret,
  UpdateSubscriptionBody,
} from "./webhooks-schemas.ts";

/**
 * Admin API webhook subscriptions (the calling installation's own, scope manage_webhooks), and
 * recovering a subscription's failed deliveries or enabling a disabled one (issue 19).
 */
export function subscriptionOperations(subscriptions: SubscriptionService, recovery: RecoveryService) {
  return {
    list: defineOperation({
      method: "GET",
      path: "/webhooks",
      summary: "List this installation's webhook subscriptions",
      description:
        "Active and disabled ones, each with its `status`, `filter` and `fields`; a disabled one shows when and why (`disabledAt`, `disabledReason`: the last error). Secrets are never shown again.",
      response: { 200: Envelope(Type.Array(SubscriptionResource)) },
      run: async ({ request }) => ({ data: await subscriptions.list(accessOf(request)) }),
    }),
    create: defineOperation({
      method: "POST",
      path: "/webhooks",
      summary: "Subscribe to an event",
      description:
        "The token must also hold the scope the event needs (listed with `eventName`; `app/uninstalled` needs none). `targetUrl` must be https and must not resolve to an internal address. The answer carries the signing `secret`, shown only here. An installation may hold at most 10 active subscriptions of one event (each at another URL) and 100 in all, by default: 409 `CONFLICT` past either, as for the same event and URL twice. Optional `filter` (only the events whose `data` matches it make a delivery; the others make none, count as no failure and stay in the event feed) and `fields` (the fields of `data` the body carries, `id` always): both checked against the event's payload schema, 400 `VALIDATION_FAILED` naming the field, a value the field never holds, or the character where the filter cannot be read.",
      body: CreateSubscriptionBody,
      response: { 201: Envelope(SubscriptionWithSecret, "Created; store the secret now") },
      errors: ["CONFLICT"],
      authorize: (request) => subscriptions.authorize(accessOf(request), request.body),
      run: async ({ request, reply, body }) => {
        reply.header("cache-control", "no-store");
        return { data: await subscriptions.create(accessOf(request), body) };
      },
    }),
    rotateSecret: defineOperation({
      method: "POST",
      path: "/webhooks/:id/secret",
      summary: "Rotate a subscription's signing secret",
      description:
        "Puts a new signing secret in force and answers it, shown only here (201: a new secret was made; send an `Idempotency-Key` so a retry whose answer was lost gets the same secret back instead of rotating again). `x-webhook-signature` is made with the new secret from now on: a receiver verifying only that header switches to the new secret right after rotating (an attempt it refuses with a 5xx is retried as usual, signed with the new secret; a 4xx ends the delivery). For `WEBHOOK_SECRET_OVERLAP_SECONDS` (24 hours by default, see `previousSecretExpiresAt`) every delivery's `webhook-signature` carries two signatures, the new secret's then the previous one's, so a Standard Webhooks receiver holding either secret verifies while it switches. A second rotation within the overlap ends the first one's old secret: only the two newest sign. Attempts already claimed by a worker at the moment of the rotation (normally under a second before they are sent) are signed as before. The token must also hold the scope of the subscription's event, as creating it did; another installation's or a deleted subscription answers 404.",
      params: { id: SubscriptionId },
      response: { 201: Envelope(SecretRotation, "Rotated; store the new secret now") },
      errors: ["NOT_FOUND"],
      authorize: (request) => subscriptions.authorizeRotation(accessOf(request), request.params.id),
      run: async ({ request, reply, params }) => {
        reply.header("cache-control", "no-store");
        return { data: await subscriptions.rotateSecret(accessOf(request), params.id) };
      },
    }),
    update: defineOperation({
      method: "PATCH",
      path: "/webhooks/:id",
      summary: "Change a subscription's API version",
      description:
        "Its deliveries are rendered at this version from now on (their `data`, `apiVersion` and `Api-Version`), the pending ones and their retries included, and so are redeliveries and recoveries of earlier ones. A version not served answers 400 `UNSUPPORTED_API_VERSION`; another installation's subscription 404.",
      params: { id: SubscriptionId },
      body: UpdateSubscriptionBody,
      response: { 200: Envelope(SubscriptionResource) },
      errors: ["NOT_FOUND", "UNSUPPORTED_API_VERSION"],
      authorize: (request) => subscriptions.authorizeChange(accessOf(request), request.params.id),
      run: async ({ request, params, body }) => ({
        data: await subscriptions.update(accessOf(request), params.id, body),
      }),
    }),
    remove: defineOperation({
      method: "DELETE",
      path: "/webhooks/:id",
      summary: "Delete a subscription",
      description:
        "Its pending deliveries still run; no new event is delivered to it. A disabled subscription can be deleted too. Another app's id answers 404.",
      params: { id: SubscriptionId },
      response: { 200: Envelope(SubscriptionResource, "The deleted subscription") },
      errors: ["NOT_FOUND"],
      run: async ({ request, params }) => ({
        data: await subscriptions.remove(accessOf(request), params.id),
      }),
    }),
    recover: defineOperation({
      method: "POST",
      path: "/webhooks/:id/recover",
      summary: "Send failed deliveries once more",
      description:
        "Every delivery of this subscription created in [`since`, `until`) whose final state is `failed` (its attempts ran out, or a final answer) or `skipped` (an event that came while the subscription was disabled) is queued once more, through the normal engine with its retries: a new delivery of the same body, attempted at once, `x-webhook-attempt` from 1, with the original `x-webhook-id`. Deliveries that succeeded are not sent again, nor are events the subscription already got by another delivery (a redelivery). A delivery is recovered once: calling this again, or twice at the same time, never sends one twice (until its recovery fails in turn). Answers how many were queued. 409 while the subscription is disabled: enable it with `recoverSince` instead. Reaches back as far as the delivery log is kept (30 days by default).",
      params: { id: SubscriptionId },
      body: RecoverBody,
      response: { 200: Envelope(RecoverResult, "Queued") },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ request, params, body }) => ({
        data: await recovery.recover(accessOf(request), params.id, body),
      }),
    }),
    enable: defineOperation({
      method: "POST",
      path: "/webhooks/:id/enable",
      summary: "Enable a disabled subscription",
      description:
        "Makes the subscription `active` again: new events are delivered from now on, and the run of failures that disabled it is forgotten. With `recoverSince`, also recovers from then until now (see `adminRecoverWebhook`), which sends the deliveries that failed and the events skipped while it was disabled. An active subscription stays active (and `recoverSince` still recovers).",
      params: { id: SubscriptionId },
      body: EnableBody,
      response: { 200: Envelope(EnableResult, "Enabled") },
      errors: ["NOT_FOUND"],
      run: async ({ request, params, body }) => ({
        data: await recovery.enable(accessOf(request), params.id, body),
      }),
    }),
  };
}

export function subscriptionRoutes(
  subscriptions: SubscriptionService,
  recovery: RecoveryService,
): FeatureRoutes {
  const op = subscriptionOperations(subscriptions, recovery);
  return {
    tags: {
      "Admin API: webhooks":
        "Bearer token with `manage_webhooks` (and the event's own scope). The deliveries themselves are described in the `webhooks` section.",
    },
    admin(app) {
      const tags = ["Admin API: webhooks"];
      const scope = Scope.manage_webhooks;
      mount(app, ADMIN_API, op.list, { operationId: "adminListWebhooks", scope, tags });
      mount(app, ADMIN_API, op.create, { operationId: "adminCreateWebhook", scope, tags });
      mount(app, ADMIN_API, op.rotateSecret, { operationId: "adminRotateWebhookSecret", scope, tags });
      mount(app, ADMIN_API, op.update, { operationId: "adminUpdateWebhook", scope, tags });
      mount(app, ADMIN_API, op.remove, { operationId: "adminDeleteWebhook", scope, tags });
      mount(app, ADMIN_API, op.recover, { operationId: "adminRecoverWebhook", scope, tags });
      mount(app, ADMIN_API, op.enable, { operationId: "adminEnableWebhook", scope, tags });
    },
  };
}
