import type { FastifyRequest } from "fastify";
import Type, { type Static } from "typebox";
import {
  ACTOR_KIND_NAMES,
  ActorKind,
  DeliveryStatusSchema,
  OrderStatusSchema,
  Scope,
  Timestamp,
  WebhookChannel,
} from "../../contracts/index.ts";
import type { StoreScope } from "../../contracts/scopes.ts";
import { type RouteSpec, storeOf } from "../../lib/http/api-family.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { CursorPage, Envelope, Params } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { currentAccount } from "../accounts/session-auth.ts";
import { adminRoute } from "../admin-api/admin-family.ts";
import { dashboardRoute, StoreParams, storeParams } from "../dashboard-family.ts";
import type { Actor } from "./orders-repo.ts";
import {
  CreateOrderBody,
  OrderIdParam,
  OrderListQuery,
  OrderResource,
  UpdateOrderStatusBody,
} from "./orders-schemas.ts";
import type { OrderService } from "./orders-service.ts";

/**
 * Order routes of the dashboard and the Admin API. Each route states its method, path, operationId
 * and required scope; what the families share is declared once here. Reads need read_orders; the
 * dashboard's writes need write_orders, which the store's owner holds and no app can be granted.
 */
const ORDER = {
  list: {
    summary: "List orders",
    description: "Newest first; with `updatedSince`, oldest change first. Follow `meta.nextCursor` for more.",
    querystring: OrderListQuery,
    response: { 200: CursorPage(OrderResource) },
  },
  get: {
    summary: "Get an order",
    response: { 200: Envelope(OrderResource) },
    errors: ["NOT_FOUND"],
  },
} satisfies Record<string, Partial<RouteSpec<StoreScope>>>;

/** The merchant signed in to the dashboard, as an order's history names them. */
function accountActor(request: FastifyRequest): Actor {
  const account = currentAccount(request);
  return { kind: ActorKind.account, id: account.id, name: account.name };
}

const HistoryEntry = Type.Object(
  {
    status: OrderStatusSchema,
    at: Timestamp,
    actor: Type.Object({
      kind: Type.Enum(ACTOR_KIND_NAMES, {
        type: "string",
        description:
          "`account`: a merchant in the dashboard; `system`: the platform; `unknown`: before histories were kept.",
      }),
      name: Type.String({ description: "The merchant's name at the time, or the platform's part." }),
    }),
  },
  { title: "OrderStatusChange" },
);

const OrderWebhookDelivery = Type.Object(
  {
    id: Type.String(),
    via: Type.Literal(WebhookChannel.subscription, { description: "A subscription's delivery." }),
    eventName: Type.String(),
    app: Type.Object({ clientId: Type.String(), name: Type.String() }),
    status: DeliveryStatusSchema,
    attempts: Type.Integer(),
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
    nextAttemptAt: Type.Union([Timestamp, Type.Null()]),
    createdAt: Timestamp,
    completedAt: Type.Union([Timestamp, Type.Null()]),
  },
  { title: "OrderWebhookDelivery" },
);
const OrderListenStream = Type.Object(
  {
    id: Type.String({ description: "The `x-webhook-id` the stream sent the event with." }),
    via: Type.Literal(WebhookChannel.listen, {
      description:
        "A developer's `listen` session (the CLI) streamed it to their machine: there is no delivery status, what their local endpoint answered is on their screen.",
    }),
    eventName: Type.String(),
    app: Type.Object({ clientId: Type.String(), name: Type.String() }),
    listenSessionId: Type.String(),
    createdAt: Timestamp,
  },
  { title: "OrderListenStream" },
);
const OrderWebhook = Type.Union([OrderWebhookDelivery, OrderListenStream]);
export type OrderWebhookView = Static<typeof OrderWebhook>;

export function registerDashboardOrderRoutes(
  app: App,
  orders: OrderService,
  webhooksOf: (storeId: string, orderId: string) => Promise<OrderWebhookView[]>,
) {
  const tags = ["Dashboard: orders"];
  app.get(
    "/stores/:slug/orders",
    dashboardRoute({
      operationId: "dashboardListOrders",
      scope: Scope.read_orders,
      tags,
      params: StoreParams,
      ...ORDER.list,
    }),
    async (request) => {
      const page = await orders.list(storeOf(request), request.query);
      return { success: true as const, data: page.items, meta: page.meta };
    },
  );
  app.get(
    "/stores/:slug/orders/:id",
    dashboardRoute({
      operationId: "dashboardGetOrder",
      scope: Scope.read_orders,
      tags,
      params: storeParams(OrderIdParam),
      ...ORDER.get,
    }),
    async (request) => ({
      success: true as const,
      data: await orders.get(storeOf(request), request.params.id),
    }),
  );
  app.post(
    "/stores/:slug/orders",
    dashboardRoute({
      operationId: "dashboardCreateOrder",
      scope: Scope.write_orders,
      tags,
      summary: "Create an order",
      description:
        "Prices and totals come from the catalogue; stock is taken at once (409 when short). Emits `order.created` and `product.updated` for each product whose stock changed.",
      params: StoreParams,
      body: CreateOrderBody,
      response: { 201: Envelope(OrderResource, "Created") },
      errors: ["CONFLICT"],
    }),
    async (request, reply) =>
      reply.status(201).send({
        success: true as const,
        data: await orders.create(storeOf(request), request.body, accountActor(request)),
      }),
  );
  app.get(
    "/stores/:slug/orders/:id/history",
    dashboardRoute({
      operationId: "dashboardGetOrderHistory",
      scope: Scope.read_orders,
      tags,
      summary: "An order's status timeline",
      description: "Each status the order entered, oldest first: when, and who moved it there.",
      params: storeParams(OrderIdParam),
      response: { 200: Envelope(Type.Array(HistoryEntry)) },
      errors: ["NOT_FOUND"],
    }),
    async (request) => ({
      success: true as const,
      data: await orders.history(storeOf(request), request.params.id),
    }),
  );
  app.get(
    "/stores/:slug/orders/:id/webhooks",
    dashboardRoute({
      operationId: "dashboardListOrderWebhooks",
      scope: Scope.read_orders,
      tags,
      summary: "The webhooks an order caused",
      description:
        "How the order's events reached the apps installed in the store, newest first (at most 100): each subscription's delivery (`via: subscription`: which event, which app, how the delivery went) and each `listen` session that streamed one to a developer's machine (`via: listen`).",
      params: storeParams(OrderIdParam),
      response: { 200: Envelope(Type.Array(OrderWebhook)) },
      errors: ["NOT_FOUND"],
    }),
    async (request) => {
      const store = storeOf(request);
      await orders.get(store, request.params.id);
      return { success: true as const, data: await webhooksOf(store.id, request.params.id) };
    },
  );
  app.post(
    "/stores/:slug/orders/:id/status",
    dashboardRoute({
      operationId: "dashboardSetOrderStatus",
      scope: Scope.write_orders,
      tags,
      summary: "Move an order to its next status",
      description:
        "pending -> paid -> confirmed -> shipped -> delivered, one step at a time; cancelled from pending, paid or confirmed (stock is returned). Any other move answers 409. Emits `order.<status>`.",
      params: storeParams(OrderIdParam),
      body: UpdateOrderStatusBody,
      response: { 200: Envelope(OrderResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
    }),
    async (request) => ({
      success: true as const,
      data: await orders.setStatus(
        storeOf(request),
        request.params.id,
        request.body.status,
        accountActor(request),
      ),
    }),
  );
}

export function registerAdminOrderRoutes(app: App, orders: OrderService) {
  const tags = ["Admin API: orders"];
  app.get(
    "/orders",
    adminRoute({ operationId: "adminListOrders", scope: Scope.read_orders, tags, ...ORDER.list }),
    async (request) => {
      const page = await orders.list(storeOf(request), request.query);
      return { success: true as const, data: page.items, meta: page.meta };
    },
  );
  app.get(
    "/orders/:id",
    adminRoute({
      operationId: "adminGetOrder",
      scope: Scope.read_orders,
      tags,
      params: Params(OrderIdParam),
      ...ORDER.get,
    }),
    async (request) => ({
      success: true as const,
      data: await orders.get(storeOf(request), request.params.id),
    }),
  );
}

/** The order routes of every family (platform.ts lists them). */
export function orderRoutes(
  orders: OrderService,
  webhooksOf: (storeId: string, orderId: string) => Promise<OrderWebhookView[]>,
): FeatureRoutes {
  return {
    store: (app) => registerDashboardOrderRoutes(app, orders, webhooksOf),
    admin: (app) => registerAdminOrderRoutes(app, orders),
  };
}
