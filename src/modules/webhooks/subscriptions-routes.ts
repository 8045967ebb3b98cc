import Type from "typebox";
import type { ErrorCode } from "../../lib/errors.ts";
import { AppError } from "../../lib/errors.ts";
import { type ApiFamily, familyErrors } from "../../lib/http/api-family.ts";
import { Envelope, Params } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import type { SubscriptionService } from "./subscriptions-service.ts";
import {
  CreateSubscriptionBody,
  SubscriptionId,
  SubscriptionResource,
  SubscriptionWithSecret,
} from "./webhooks-schemas.ts";

/** Admin API webhook subscriptions: the calling installation's own, scope manage_webhooks. */
export function registerSubscriptionRoutes(app: App, family: ApiFamily, subscriptions: SubscriptionService) {
  const tags = ["Admin API: webhooks"];
  const guard = family.guard("manage_webhooks");
  const errors = (...codes: ErrorCode[]) => familyErrors(family, ...codes);
  const access = (request: { access: unknown }) => {
    if (!request.access) throw new AppError("INTERNAL");
    return request.access as Parameters<SubscriptionService["list"]>[0];
  };

  app.get(
    "/webhooks",
    {
      preHandler: guard,
      schema: {
        operationId: "adminListWebhooks",
        tags,
        summary: "List this installation's webhook subscriptions",
        description: "Secrets are never shown again.",
        security: family.security,
        response: { 200: Envelope(Type.Array(SubscriptionResource)), ...errors() },
      },
    },
    async (request) => ({ success: true as const, data: await subscriptions.list(access(request)) }),
  );

  app.post(
    "/webhooks",
    {
      preHandler: guard,
      schema: {
        operationId: "adminCreateWebhook",
        tags,
        summary: "Subscribe to an event",
        description:
          "The token must also hold the scope the event needs (spec 6.1; `app/uninstalled` needs none). `targetUrl` must be https and must not resolve to an internal address. The answer carries the signing `secret`, shown only here.",
        security: family.security,
        body: CreateSubscriptionBody,
        response: {
          201: Envelope(SubscriptionWithSecret, "Created; store the secret now"),
          ...errors("CONFLICT"),
        },
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return reply
        .status(201)
        .send({ success: true as const, data: await subscriptions.create(access(request), request.body) });
    },
  );

  app.delete(
    "/webhooks/:id",
    {
      preHandler: guard,
      schema: {
        operationId: "adminDeleteWebhook",
        tags,
        summary: "Delete a subscription",
        description:
          "Its pending deliveries still run; no new event is delivered to it. Another app's id answers 404.",
        security: family.security,
        params: Params({ id: SubscriptionId }),
        response: { 200: Envelope(SubscriptionResource, "The deleted subscription"), ...errors("NOT_FOUND") },
      },
    },
    async (request) => ({
      success: true as const,
      data: await subscriptions.remove(access(request), request.params.id),
    }),
  );
}
