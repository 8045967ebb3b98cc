import type { FastifyReply, FastifyRequest } from "fastify";
import type { Selectable } from "kysely";
import Type, { type TSchema } from "typebox";
import {
  DeliveryStatus,
  DeliveryStatusSchema,
  type EventName,
  exampleId,
  Id,
  type ListedSubscriptionStatus,
  ListenSessionState,
  ListenSessionStateSchema,
  PAGE_SIZE,
  Scope,
  SUBSCRIPTION_STATUSES,
  SubscriptionStatus,
  SubscriptionStatusSchema,
} from "../../contracts/index.ts";
import type { AppRow, WebhookAttemptsTable, WebhookDelivery } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, type ErrorCode, notFound } from "../../lib/errors.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import {
  CursorMeta,
  Envelope,
  errorResponses,
  PageLimit,
  Params,
  StoreSlug,
  Timestamp,
} from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { CREATED_AND_UPDATED, finishPage, planPage } from "../../lib/pagination.ts";
import { currentAccount } from "../accounts/session-auth.ts";
import { ClientId } from "../apps/apps-schemas.ts";
import type { AppService } from "../apps/apps-service.ts";
import { ADMIN_API, accessOf } from "../families/admin-family.ts";
import { defineOperation, mount } from "../families/operation.ts";
import type {
  DeliveryFilter,
  DeliveryLogRepo,
  ListenSessionFilter,
  ListenSessionRow,
  StreamedEventRow,
} from "./deliveries-repo.ts";
import { HEARTBEAT_MS, listenDeliveryId } from "./listen/listen-stream.ts";
import type { RecoveryService } from "./recovery-service.ts";
import { toSubscriptionResource } from "./subscriptions-service.ts";
import {
  AppRecoverBody,
  AppSubscriptionResource,
  EnableBody,
  EnableResult,
  EventNameSchema,
  RecoverResult,
  SubscriptionId,
} from "./webhooks-schemas.ts";

const DeliveryId = Id("delivery");

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
    webhookId: Type.String({
      description:
        "What its attempts send as `x-webhook-id`: its own `id`, or for a recovered delivery the id of the delivery it recovers (the original's, through any number of recoveries).",
      examples: [exampleId("delivery")],
    }),
    eventId: Type.String(),
    eventName: Type.String(),
    storeSlug: Type.String(),
    subscriptionId: Type.String(),
    subscriptionActive: Type.Boolean({
      description:
        "False once the subscription has stopped (deleted, or the app uninstalled) or while it is disabled: no redelivery then. Always true for a privacy event's delivery (its `subscriptionId` is the installation's privacy channel, which never stops).",
    }),
    targetUrl: Type.String(),
    status: DeliveryStatusSchema,
    attempts: Type.Integer(),
    nextAttemptAt: Type.Union([Timestamp, Type.Null()], {
      description: "When the next attempt is due, while pending.",
    }),
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
    lastError: Type.Union([Type.String(), Type.Null()]),
    redeliveryOf: Type.Union([Type.String(), Type.Null()], {
      description: "The delivery this one sends again: a redelivery's, or a recovery's (see `recoveryOf`).",
    }),
    recoveryOf: Type.Union([Type.String(), Type.Null()], {
      description:
        "Set on a delivery that `recover` queued: the failed or skipped delivery it sends again (whose `webhookId` it carries).",
    }),
    recoveredBy: Type.Union([Type.String(), Type.Null()], {
      description:
        "Set on a failed or skipped delivery that `recover` queued again: that new delivery. A delivery is recovered once; if its recovery fails too, the recovery is what a later recover sends.",
    }),
    test: Type.Boolean({ description: "A test event's delivery (sent with `x-webhook-test: true`)." }),
    createdAt: Timestamp,
    completedAt: Type.Union([Timestamp, Type.Null()]),
    attemptLog: Type.Array(AttemptResource),
  },
  { title: "WebhookDelivery" },
);

type DeliveryRow = WebhookDelivery & {
  slug: string;
  subscription_status: SubscriptionStatus;
  recovered_by: string | null;
};

function toDeliveryResource(r: DeliveryRow, attempts: ReadonlyArray<Selectable<WebhookAttemptsTable>>) {
  return {
    id: r.id,
    webhookId: r.webhook_id ?? r.id,
    eventId: r.event_id,
    eventName: r.event_name,
    storeSlug: r.slug,
    subscriptionId: r.subscription_id,
    subscriptionActive: SUBSCRIPTION_STATUSES[r.subscription_status].sends,
    targetUrl: r.target_url,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.status === DeliveryStatus.pending ? r.next_attempt_at.toISOString() : null,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    redeliveryOf: r.redelivery_of,
    recoveryOf: r.recovery_of,
    recoveredBy: r.recovered_by,
    test: r.test,
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
  };
}

/** Streamed events shown with each listen session; the rest are a page of their own away. */
const STREAMED_PREVIEW = 10;

const ListenSessionId = Id("listenSession");
const FeedCursor = Type.String({
  pattern: "^[0-9]{1,15}$",
  maxLength: 15,
  description: "`meta.nextCursor` of the previous page.",
});

const StreamedEventResource = Type.Object(
  {
    id: Id(
      "delivery",
      "The `x-webhook-id` (and `webhook-id`) the stream sent it with, which `listen` printed: the same each time the session streams the event again.",
    ),
    eventId: Id("event"),
    eventName: EventNameSchema,
    test: Type.Boolean({ description: 'A test event (sent with `"test": true`).' }),
    createdAt: Timestamp,
    cursor: Type.String({
      description: "The event's position in the store's event feed (the events API's cursor).",
    }),
  },
  {
    title: "ListenStreamedEvent",
    description:
      "An event a `listen` session streamed to the developer's CLI, which forwards it to their local URL (what that answered, `listen` printed: the platform does not see it).",
  },
);

const ListenSessionResource = Type.Object(
  {
    id: ListenSessionId,
    storeSlug: Type.String(),
    events: Type.Array(EventNameSchema, { description: "The events the session carries." }),
    state: ListenSessionStateSchema,
    createdAt: Timestamp,
    lastSeenAt: Timestamp,
    endedAt: Type.Union([Timestamp, Type.Null()], {
      description:
        "When it ended (stopped, or its time to resume ran out); null while it is streaming or resumable.",
    }),
    streamed: Type.Array(StreamedEventResource, {
      maxItems: STREAMED_PREVIEW,
      description: `The newest events it streamed, newest first (at most ${STREAMED_PREVIEW}).`,
    }),
    moreStreamed: Type.Boolean({
      description: "It streamed more than `streamed` shows: list them with the session's events.",
    }),
  },
  {
    title: "ListenSession",
    description:
      "A `listen` session (the CLI's stream of this installation's events) and what it streamed, marked as such: listen forwards are not deliveries (no attempts, no retries, no redelivery).",
  },
);

const ListenSessionPage = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(ListenSessionResource),
  meta: CursorMeta,
});
const StreamedEventPage = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(StreamedEventResource),
  meta: CursorMeta,
});
const ListenSessionListQuery = {
  event: Type.Optional(EventNameSchema),
  limit: PageLimit(PAGE_SIZE.log),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
};
const StreamedEventListQuery = Type.Object(
  {
    event: Type.Optional(EventNameSchema),
    limit: PageLimit(PAGE_SIZE.log),
    cursor: Type.Optional(FeedCursor),
  },
  { additionalProperties: false },
);
const LISTEN_SESSIONS_DESCRIPTION =
  "Newest first, each with the newest events it streamed. What a session streamed is the events it carries in the stretch of the store's event feed it read (nothing is written per event): events older than the event retention are no longer listed. `event` keeps the sessions carrying that event and lists only it.";

function toStreamedEvent(e: StreamedEventRow) {
  return {
    id: listenDeliveryId(e.session_id, e.id),
    eventId: e.id,
    eventName: e.topic as EventName,
    test: e.test,
    createdAt: e.created_at.toISOString(),
    cursor: String(e.position),
  };
}

const DeliveryListQuery = {
  status: Type.Optional(DeliveryStatusSchema),
  event: Type.Optional(EventNameSchema),
  limit: PageLimit(PAGE_SIZE.log),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
};
const DeliveryPage = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(DeliveryResource),
  meta: CursorMeta,
});

/** Reading an app's deliveries and sending one again: the dashboard's and the Admin API's routes share it. */
export function createDeliveryViews(deps: {
  log: DeliveryLogRepo;
  clock: Clock;
  /** How long a disconnected listen session can be resumed (LISTEN_SESSION_IDLE_SECONDS). */
  listenIdleSeconds: number;
  /** Charges a redelivery to the app; 429 RATE_LIMITED past its budget (webhook-limits.ts). */
  admitRedelivery(appId: string): Promise<void>;
}) {
  const sorts = { createdAt: CREATED_AND_UPDATED.createdAt, updatedAt: CREATED_AND_UPDATED.updatedAt };
  async function page(
    appId: string,
    filter: DeliveryFilter,
    query: { limit: number; cursor?: string | undefined },
  ) {
    const plan = planPage(query, sorts, { ...filter });
    const { rows, attempts } = await deps.log.listForApp(appId, filter, plan);
    const done = finishPage(rows, plan);
    return { items: done.items.map((r) => toDeliveryResource(r, attempts)), meta: done.meta };
  }
  /** Where a session is: derived from its row and the time (see LISTEN_SESSION_STATES). */
  function sessionState(row: ListenSessionRow, now: Date) {
    const resumableUntil = row.seen_at.getTime() + deps.listenIdleSeconds * 1000;
    if (row.stopped_at) return { state: ListenSessionState.ended, endedAt: row.stopped_at };
    if (resumableUntil <= now.getTime())
      return { state: ListenSessionState.ended, endedAt: new Date(resumableUntil) };
    // A connection not seen for two heartbeats is gone (its process died): resumable, as at the cap.
    const live = row.connection !== null && row.seen_at.getTime() > now.getTime() - 2 * HEARTBEAT_MS;
    return { state: live ? ListenSessionState.streaming : ListenSessionState.disconnected, endedAt: null };
  }

  return {
    page,
    /** One page of the app's listen sessions, each with the newest events it streamed. */
    async listenSessions(
      appId: string,
      filter: ListenSessionFilter,
      query: { limit: number; cursor?: string | undefined },
    ) {
      const plan = planPage(query, sorts, { ...filter, installation: filter.installation?.installationId });
      const done = finishPage(await deps.log.listListenSessions(appId, filter, plan), plan);
      const streamed = await deps.log.streamedBy(done.items, {
        limit: STREAMED_PREVIEW + 1,
        event: filter.event,
      });
      const now = deps.clock.now();
      return {
        items: done.items.map((row) => {
          const own = streamed.filter((e) => e.session_id === row.id);
          const { state, endedAt } = sessionState(row, now);
          return {
            id: row.id,
            storeSlug: row.slug,
            events: row.events as EventName[],
            state,
            createdAt: row.created_at.toISOString(),
            lastSeenAt: row.seen_at.toISOString(),
            endedAt: endedAt ? endedAt.toISOString() : null,
            streamed: own.slice(0, STREAMED_PREVIEW).map(toStreamedEvent),
            moreStreamed: own.length > STREAMED_PREVIEW,
          };
        }),
        meta: done.meta,
      };
    },
    /** A page of what one of the app's listen sessions streamed, newest first; 404 for another app's. */
    async streamed(
      appId: string,
      filter: ListenSessionFilter & { id: string },
      query: { limit: number; cursor?: string | undefined; event?: EventName | undefined },
    ) {
      const [session] = await deps.log.listListenSessions(
        appId,
        { ...filter, event: undefined },
        planPage({ limit: 1 }, sorts),
      );
      if (!session) throw notFound("Listen session");
      const rows = await deps.log.streamedBy([session], {
        limit: query.limit + 1,
        event: query.event,
        before: query.cursor === undefined ? undefined : Number(query.cursor),
      });
      const items = rows.slice(0, query.limit);
      return {
        items: items.map(toStreamedEvent),
        meta: {
          nextCursor: rows.length > query.limit ? String(items.at(-1)!.position) : null,
          limit: query.limit,
        },
      };
    },
    /** One page of the app's subscriptions (every store, newest first, deleted ones left out). */
    async subscriptions(
      appId: string,
      query: { limit: number; cursor?: string | undefined; status?: ListedSubscriptionStatus | undefined },
    ) {
      const plan = planPage(query, sorts, { status: query.status });
      const done = finishPage(await deps.log.listSubscriptionsForApp(appId, plan, query.status), plan);
      return {
        items: done.items.map((r) => ({ ...toSubscriptionResource(r), storeSlug: r.slug })),
        meta: done.meta,
      };
    },
    /**
     * A new delivery of the same body; 404 for another app's (or, with `storeId`, another store's)
     * delivery, 409 once its subscription stopped, 429 past the app's redelivery budget (charged
     * only for a redelivery that would be made).
     */
    async redeliver(appId: string, deliveryId: string, storeId?: string) {
      const original = await deps.log.findWithSubscription(appId, deliveryId);
      if (!original || (storeId !== undefined && original.store_id !== storeId)) throw notFound("Delivery");
      const active = SUBSCRIPTION_STATUSES[original.subscription_status].sends;
      if (active) await deps.admitRedelivery(appId);
      const id = active ? await deps.log.redeliver(original, deps.clock.now()) : null;
      if (id === null) {
        throw new AppError("CONFLICT", {
          message:
            original.subscription_status === SubscriptionStatus.disabled
              ? "The subscription is disabled; enable it first (with recoverSince to send its failed deliveries again)."
              : "The subscription has stopped; its deliveries cannot be sent again.",
        });
      }
      return (await page(appId, { id }, { limit: 1 })).items[0]!;
    },
  };
}
export type DeliveryViews = ReturnType<typeof createDeliveryViews>;

/** The app owner's view of deliveries: filter, inspect attempts, redeliver. */
export function registerDeliveryRoutes(
  app: App,
  deps: {
    views: DeliveryViews;
    recovery: Pick<RecoveryService, "enableForApp" | "recoverForApp">;
    apps: Pick<AppService, "getOwned">;
    requireSession: (r: FastifyRequest, s: FastifyReply) => Promise<void>;
  },
) {
  const tags = ["Dashboard: apps"];
  const security = [{ sessionCookie: [] }];
  const { page } = deps.views;
  // The app in the path must be the signed-in account's (404 otherwise). Authorisation, so a
  // preHandler and not the handler: an idempotent redelivery's replay answers without running
  // the handler (lib/http/idempotency.ts looks the key up after the route's own preHandlers).
  const owned = new WeakMap<FastifyRequest, AppRow>();
  const preHandler = [
    deps.requireSession,
    async (request: FastifyRequest) => {
      const { clientId } = request.params as { clientId: string }; // validated: ClientId
      owned.set(request, await deps.apps.getOwned(currentAccount(request).id, clientId));
    },
  ];
  const ownedApp = (request: FastifyRequest): AppRow => {
    const row = owned.get(request);
    if (!row) throw new AppError("INTERNAL", { message: "App not resolved." });
    return row;
  };
  /** A route of the app's owner: the session and the owned app, the session scheme and their errors. */
  const ownerRoute = <S extends { params: TSchema; response: Record<number, TSchema> }>(
    spec: S & { operationId: string; summary: string; description: string; errors?: ErrorCode[] },
  ) => {
    const { errors = [], response, ...schema } = spec;
    return {
      preHandler,
      schema: {
        ...schema,
        tags,
        security,
        response: {
          ...response,
          ...errorResponses("UNAUTHENTICATED", "NOT_FOUND", ...errors),
        } as S["response"],
      },
    };
  };

  app.get(
    "/apps/:clientId/deliveries",
    ownerRoute({
      operationId: "dashboardListDeliveries",
      summary: "List an app's webhook deliveries with their attempts",
      description:
        "Newest first. Filter by status, event and store. What the app's `listen` sessions streamed is listed apart (`GET /api/v1/dashboard/apps/{clientId}/listen-sessions`): it is not a delivery.",
      params: Params({ clientId: ClientId }),
      querystring: Type.Object(
        { ...DeliveryListQuery, store: Type.Optional(StoreSlug) },
        { additionalProperties: false },
      ),
      response: {
        200: DeliveryPage,
      },
    }),
    async (request) => {
      const appRow = ownedApp(request);
      const q = request.query;
      const result = await page(
        appRow.id,
        { status: q.status, event: q.event, storeSlug: q.store },
        { limit: q.limit, cursor: q.cursor },
      );
      return { success: true as const, data: result.items, meta: result.meta };
    },
  );

  app.get(
    "/apps/:clientId/webhooks",
    ownerRoute({
      operationId: "dashboardListAppWebhooks",
      summary: "List an app's webhook subscriptions in every store",
      description:
        "Active and disabled ones, newest first (`status=disabled` for the disabled only: the app page's banner), with when each signing secret was last rotated, and for a disabled one when and why (`disabledAt`, `disabledReason`). Secrets are never shown.",
      params: Params({ clientId: ClientId }),
      querystring: Type.Object(
        {
          status: Type.Optional(SubscriptionStatusSchema),
          limit: PageLimit(PAGE_SIZE.log),
          cursor: Type.Optional(Type.String({ maxLength: 200 })),
        },
        { additionalProperties: false },
      ),
      response: {
        200: Type.Object({
          success: Type.Literal(true),
          data: Type.Array(AppSubscriptionResource),
          meta: CursorMeta,
        }),
      },
    }),
    async (request) => {
      const result = await deps.views.subscriptions(ownedApp(request).id, request.query);
      return { success: true as const, data: result.items, meta: result.meta };
    },
  );

  app.get(
    "/apps/:clientId/listen-sessions",
    ownerRoute({
      operationId: "dashboardListListenSessions",
      summary: "List an app's listen sessions and what each streamed",
      description: `The app's \`listen\` sessions (the CLI's streams of an installation's events to a developer's machine) in every store, or in \`store\`. ${LISTEN_SESSIONS_DESCRIPTION}`,
      params: Params({ clientId: ClientId }),
      querystring: Type.Object(
        { ...ListenSessionListQuery, store: Type.Optional(StoreSlug) },
        { additionalProperties: false },
      ),
      response: {
        200: ListenSessionPage,
      },
    }),
    async (request) => {
      const q = request.query;
      const result = await deps.views.listenSessions(
        ownedApp(request).id,
        { storeSlug: q.store, event: q.event },
        { limit: q.limit, cursor: q.cursor },
      );
      return { success: true as const, data: result.items, meta: result.meta };
    },
  );

  app.get(
    "/apps/:clientId/listen-sessions/:id/events",
    ownerRoute({
      operationId: "dashboardListListenSessionEvents",
      summary: "List what one listen session streamed",
      description:
        "Newest first, every event the session streamed (within the event retention); `event` lists only that one. 404 for a session of another app.",
      params: Params({ clientId: ClientId, id: ListenSessionId }),
      querystring: StreamedEventListQuery,
      response: {
        200: StreamedEventPage,
      },
    }),
    async (request) => {
      const result = await deps.views.streamed(
        ownedApp(request).id,
        { id: request.params.id },
        request.query,
      );
      return { success: true as const, data: result.items, meta: result.meta };
    },
  );

  app.post(
    "/apps/:clientId/webhooks/:id/enable",
    ownerRoute({
      operationId: "dashboardEnableWebhook",
      summary: "Enable a disabled subscription of an app",
      description:
        "As the Admin API's `adminEnableWebhook`, for one of the app's subscriptions in any store: `active` again, and with `recoverSince` its failed and skipped deliveries from then are sent once more.",
      params: Params({ clientId: ClientId, id: SubscriptionId }),
      body: EnableBody,
      response: {
        200: Envelope(EnableResult, "Enabled"),
      },
    }),
    async (request) => ({
      success: true as const,
      data: await deps.recovery.enableForApp(ownedApp(request).id, request.params.id, request.body),
    }),
  );

  app.post(
    "/apps/:clientId/webhooks/recover",
    ownerRoute({
      operationId: "dashboardRecoverWebhooks",
      summary: "Send an app's failed deliveries once more",
      description:
        "Recover failed since …: as the Admin API's `adminRecoverWebhook`, for one of the app's subscriptions (`subscriptionId`) or every active one in every store. Each failed or skipped delivery created in the window is queued once more under its original `x-webhook-id`; a delivery is never recovered twice. 409 for one subscription that is disabled (enable it with `recoverSince`); disabled ones are left out of the app-wide recover.",
      params: Params({ clientId: ClientId }),
      body: AppRecoverBody,
      response: {
        200: Envelope(RecoverResult, "Queued"),
      },
      errors: ["CONFLICT"],
    }),
    async (request) => ({
      success: true as const,
      data: await deps.recovery.recoverForApp(ownedApp(request).id, request.body),
    }),
  );

  app.post(
    "/apps/:clientId/deliveries/:id/redeliver",
    ownerRoute({
      operationId: "dashboardRedeliver",
      summary: "Send a delivery again",
      description:
        "Queues a new delivery of the same body to the same subscription, attempted at once with the usual retries. Refused (409) once the subscription has stopped (deleted, or the app uninstalled). At most 60 redeliveries per app per minute by default, here and on the Admin API together: past it 429 `RATE_LIMITED` with `Retry-After`.",
      params: Params({ clientId: ClientId, id: DeliveryId }),
      response: {
        201: Envelope(DeliveryResource, "Queued"),
      },
      errors: ["CONFLICT"],
    }),
    async (request, reply) => {
      const created = await deps.views.redeliver(ownedApp(request).id, request.params.id);
      return reply.status(201).send({ success: true as const, data: created });
    },
  );
}

/** An app's deliveries in the dashboard, outside any store (platform.ts lists them). */
export function appDeliveryRoutes(deps: Parameters<typeof registerDeliveryRoutes>[1]): FeatureRoutes {
  return { account: (app) => registerDeliveryRoutes(app, deps) };
}

/** The Admin API's view: the calling installation's own deliveries (its app, its store). */
export function adminDeliveryOperations(views: DeliveryViews) {
  return {
    list: defineOperation({
      method: "GET",
      path: "/webhooks/deliveries",
      summary: "List this installation's webhook deliveries with their attempts",
      description:
        "Newest first; filter by status and event. Each delivery shows its target, every attempt (time, status, duration, the response's start) and the next retry time. What `listen` streamed is listed apart (`GET /webhooks/listen-sessions`): it is not a delivery.",
      querystring: Type.Object(DeliveryListQuery, { additionalProperties: false }),
      response: { 200: DeliveryPage },
      run: async ({ request, query }) => {
        const { appId, store } = accessOf(request);
        const result = await views.page(
          appId,
          { status: query.status, event: query.event, storeSlug: store.slug },
          { limit: query.limit, cursor: query.cursor },
        );
        return { data: result.items, meta: result.meta };
      },
    }),
    listenSessions: defineOperation({
      method: "GET",
      path: "/webhooks/listen-sessions",
      summary: "List this installation's listen sessions and what each streamed",
      description: `The installation's \`listen\` sessions (\`GET /webhooks/stream\`, the CLI's \`listen\`), live or ended. ${LISTEN_SESSIONS_DESCRIPTION}`,
      querystring: Type.Object(ListenSessionListQuery, { additionalProperties: false }),
      response: { 200: ListenSessionPage },
      run: async ({ request, query }) => {
        const { appId, store, installationId } = accessOf(request);
        const result = await views.listenSessions(
          appId,
          { installation: { storeId: store.id, installationId }, event: query.event },
          { limit: query.limit, cursor: query.cursor },
        );
        return { data: result.items, meta: result.meta };
      },
    }),
    streamed: defineOperation({
      method: "GET",
      path: "/webhooks/listen-sessions/:id/events",
      summary: "List what one listen session streamed",
      description:
        "Newest first, every event the session streamed (within the event retention); `event` lists only that one. 404 for another installation's session.",
      params: { id: ListenSessionId },
      querystring: StreamedEventListQuery,
      response: { 200: StreamedEventPage },
      errors: ["NOT_FOUND"],
      run: async ({ request, params, query }) => {
        const { appId, store, installationId } = accessOf(request);
        const result = await views.streamed(
          appId,
          { id: params.id, installation: { storeId: store.id, installationId } },
          query,
        );
        return { data: result.items, meta: result.meta };
      },
    }),
    redeliver: defineOperation({
      method: "POST",
      path: "/webhooks/deliveries/:id/redeliver",
      summary: "Send a delivery again",
      description:
        "Queues a new delivery of the same body to the same subscription, attempted at once with the usual retries. 409 once the subscription has stopped. At most 60 redeliveries per app per minute by default, here and in the dashboard together: past it 429 `RATE_LIMITED` with `Retry-After`.",
      params: { id: DeliveryId },
      response: { 201: Envelope(DeliveryResource, "Queued") },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ request, params }) => {
        const { appId, store } = accessOf(request);
        return { data: await views.redeliver(appId, params.id, store.id) };
      },
    }),
  };
}

export function adminDeliveryRoutes(views: DeliveryViews): FeatureRoutes {
  const op = adminDeliveryOperations(views);
  return {
    admin(app) {
      const tags = ["Admin API: webhooks"];
      const scope = Scope.manage_webhooks;
      mount(app, ADMIN_API, op.list, { operationId: "adminListDeliveries", scope, tags });
      mount(app, ADMIN_API, op.listenSessions, { operationId: "adminListListenSessions", scope, tags });
      mount(app, ADMIN_API, op.streamed, { operationId: "adminListListenSessionEvents", scope, tags });
      mount(app, ADMIN_API, op.redeliver, { operationId: "adminRedeliver", scope, tags });
    },
  };
}
