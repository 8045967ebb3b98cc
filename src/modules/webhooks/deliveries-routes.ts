import type { FastifyReply, FastifyRequest } from "fastify";
import { sql } from "kysely";
import Type from "typebox";
import { DeliveryStatus, SubscriptionStatus } from "../../contracts/index.ts";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import {
  CursorMeta,
  Envelope,
  errorResponses,
  Params,
  StoreSlug,
  Timestamp,
} from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { decodeCursor, encodeCursor } from "../../lib/pagination.ts";
import { currentAccount } from "../accounts/session-auth.ts";
import { ClientId } from "../apps/apps-schemas.ts";
import type { AppService } from "../apps/apps-service.ts";
import { EVENTS_CHANNEL } from "../events/events-repo.ts";
import { newDeliveryId } from "./delivery/delivery-repo.ts";
import { EventNameSchema } from "./webhooks-schemas.ts";

const DeliveryStatusSchema = Type.Union([
  Type.Literal(DeliveryStatus.pending),
  Type.Literal(DeliveryStatus.delivered),
  Type.Literal(DeliveryStatus.failed),
  Type.Literal(DeliveryStatus.cancelled),
]);
const DeliveryId = Type.String({ pattern: "^whd_[0-9A-Za-z]{22}$", maxLength: 40 });

const AttemptResource = Type.Object({
  attempt: Type.Integer(),
  startedAt: Timestamp,
  durationMs: Type.Integer(),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  responseBody: Type.Union([Type.String(), Type.Null()], {
    description: "The receiver's answer, truncated to 64 KiB.",
  }),
});

const DeliveryResource = Type.Object(
  {
    id: DeliveryId,
    eventId: Type.String(),
    eventName: Type.String(),
    storeSlug: Type.String(),
    subscriptionId: Type.String(),
    targetUrl: Type.String(),
    status: DeliveryStatusSchema,
    attempts: Type.Integer(),
    nextAttemptAt: Type.Union([Timestamp, Type.Null()]),
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
    lastError: Type.Union([Type.String(), Type.Null()]),
    redeliveryOf: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    completedAt: Type.Union([Timestamp, Type.Null()]),
    attemptLog: Type.Array(AttemptResource),
  },
  { title: "WebhookDelivery" },
);

/** The app owner's view of deliveries: filter, inspect attempts, redeliver. */
export function registerDeliveryRoutes(
  app: App,
  deps: {
    db: Db;
    apps: Pick<AppService, "getOwned">;
    clock: Clock;
    requireSession: (r: FastifyRequest, s: FastifyReply) => Promise<void>;
  },
) {
  const { db } = deps;
  const tags = ["Dashboard: apps"];
  const security = [{ sessionCookie: [] }];

  async function load(
    appId: string,
    filter: {
      id?: string;
      status?: string;
      event?: string;
      storeSlug?: string;
      after?: { t: Date; id: string } | null;
      limit: number;
    },
  ) {
    let q = db
      .selectFrom("webhook_deliveries as d")
      .innerJoin("stores as s", "s.id", "d.store_id")
      .selectAll("d")
      .select("s.slug")
      .where("d.app_id", "=", appId);
    if (filter.id) q = q.where("d.id", "=", filter.id);
    if (filter.status) q = q.where("d.status", "=", filter.status as never);
    if (filter.event) q = q.where("d.event_name", "=", filter.event);
    if (filter.storeSlug) q = q.where("s.slug", "=", filter.storeSlug);
    if (filter.after)
      q = q.where(sql<boolean>`(d.created_at, d.id) < (${filter.after.t}, ${filter.after.id})`);
    const rows = await q
      .orderBy("d.created_at", "desc")
      .orderBy("d.id", "desc")
      .limit(filter.limit)
      .execute();
    const attempts = rows.length
      ? await db
          .selectFrom("webhook_attempts")
          .selectAll()
          .where((eb) =>
            eb.or(rows.map((r) => eb.and([eb("store_id", "=", r.store_id), eb("delivery_id", "=", r.id)]))),
          )
          .orderBy("attempt")
          .execute()
      : [];
    return rows.map((r) => ({
      row: r,
      view: {
        id: r.id,
        eventId: r.event_id,
        eventName: r.event_name,
        storeSlug: r.slug,
        subscriptionId: r.subscription_id,
        targetUrl: r.target_url,
        status: r.status,
        attempts: r.attempts,
        nextAttemptAt: r.status === DeliveryStatus.pending ? r.next_attempt_at.toISOString() : null,
        lastStatusCode: r.last_status_code,
        lastError: r.last_error,
        redeliveryOf: r.redelivery_of,
        createdAt: r.created_at.toISOString(),
        completedAt: r.completed_at ? r.completed_at.toISOString() : null,
        attemptLog: attempts
          .filter((a) => a.store_id === r.store_id && a.delivery_id === r.id)
          .map((a) => ({
            attempt: a.attempt,
            startedAt: a.started_at.toISOString(),
            durationMs: a.duration_ms,
            statusCode: a.status_code,
            error: a.error,
            responseBody: a.response_body,
          })),
      },
    }));
  }

  app.get(
    "/apps/:clientId/deliveries",
    {
      preHandler: deps.requireSession,
      schema: {
        operationId: "dashboardListDeliveries",
        tags,
        summary: "List an app's webhook deliveries with their attempts",
        description: "Newest first. Filter by status, event and store.",
        security,
        params: Params({ clientId: ClientId }),
        querystring: Type.Object(
          {
            status: Type.Optional(DeliveryStatusSchema),
            event: Type.Optional(EventNameSchema),
            store: Type.Optional(StoreSlug),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            cursor: Type.Optional(Type.String({ maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            data: Type.Array(DeliveryResource),
            meta: CursorMeta,
          }),
          ...errorResponses("UNAUTHENTICATED", "NOT_FOUND"),
        },
      },
    },
    async (request) => {
      const appRow = await deps.apps.getOwned(currentAccount(request).id, request.params.clientId);
      const q = request.query;
      const after = q.cursor ? decodeCursor(q.cursor, "created_desc") : null;
      const items = await load(appRow.id, {
        status: q.status,
        event: q.event,
        storeSlug: q.store,
        after,
        limit: q.limit + 1,
      });
      const page = items.slice(0, q.limit);
      const last = page.at(-1);
      return {
        success: true as const,
        data: page.map((i) => i.view),
        meta: {
          nextCursor:
            items.length > q.limit && last
              ? encodeCursor("created_desc", last.row.created_at, last.row.id)
              : null,
          limit: q.limit,
        },
      };
    },
  );

  app.post(
    "/apps/:clientId/deliveries/:id/redeliver",
    {
      preHandler: deps.requireSession,
      schema: {
        operationId: "dashboardRedeliver",
        tags,
        summary: "Send a delivery again",
        description:
          "Queues a new delivery of the same body to the same subscription, attempted at once with the usual retries. Refused (409) once the subscription has stopped (deleted, or the app uninstalled).",
        security,
        params: Params({ clientId: ClientId, id: DeliveryId }),
        response: {
          201: Envelope(DeliveryResource, "Queued"),
          ...errorResponses("UNAUTHENTICATED", "NOT_FOUND", "CONFLICT"),
        },
      },
    },
    async (request, reply) => {
      const appRow = await deps.apps.getOwned(currentAccount(request).id, request.params.clientId);
      const original = await db
        .selectFrom("webhook_deliveries as d")
        .innerJoin("webhook_subscriptions as s", (j) =>
          j.onRef("s.store_id", "=", "d.store_id").onRef("s.id", "=", "d.subscription_id"),
        )
        .selectAll("d")
        .select("s.status as subscription_status")
        .where("d.app_id", "=", appRow.id)
        .where("d.id", "=", request.params.id)
        .executeTakeFirst();
      if (!original) throw notFound("Delivery");
      if (original.subscription_status !== SubscriptionStatus.active) {
        throw new AppError("CONFLICT", {
          message: "The subscription has stopped; its deliveries cannot be sent again.",
        });
      }
      const now = deps.clock.now();
      const id = newDeliveryId();
      await db.transaction().execute(async (tx) => {
        await tx
          .insertInto("webhook_deliveries")
          .values({
            store_id: original.store_id,
            id,
            event_id: original.event_id,
            event_name: original.event_name,
            subscription_id: original.subscription_id,
            installation_id: original.installation_id,
            app_id: original.app_id,
            target_url: original.target_url,
            target_host: original.target_host,
            body: original.body,
            status: DeliveryStatus.pending,
            next_attempt_at: now,
            redelivery_of: original.id,
            created_at: now,
            updated_at: now,
          })
          .execute();
        await sql`SELECT pg_notify(${EVENTS_CHANNEL}, '')`.execute(tx);
      });
      const [created] = await load(appRow.id, { id, limit: 1 });
      return reply.status(201).send({ success: true as const, data: created!.view });
    },
  );
}
