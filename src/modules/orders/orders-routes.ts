import type { FastifyRequest } from "fastify";
import Type, { type Static } from "typebox";
import {
  ACTOR_KIND_NAMES,
  ActorKind,
  DeliveryStatusSchema,
  EVENT,
  METADATA_LIMITS,
  OrderStatus,
  OrderStatusSchema,
  Scope,
  Timestamp,
  WebhookChannel,
} from "../../contracts/index.ts";
import type { StoreScope } from "../../contracts/scopes.ts";
import { type RouteSpec, storeOf } from "../../lib/http/api-family.ts";
import { eventName, orderMovesInWords } from "../../lib/http/event-docs.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { CursorPage, Envelope, Params } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { currentAccount } from "../accounts/session-auth.ts";
import { accessOf, adminRoute } from "../families/admin-family.ts";
import { dashboardRoute, StoreParams, storeParams } from "../families/dashboard-family.ts";
import { developerRoute } from "../families/developer-family.ts";
import { Page, PageQuery, pageDescription } from "../families/developer-pages.ts";
import type { AccessContext } from "../oauth/token-service.ts";
import type { Actor } from "./orders-repo.ts";
import {
  AdminCreateOrderBody,
  AdminUpdateOrderBody,
  CreateOrderBody,
  OrderIdParam,
  OrderListQuery,
  OrderResource,
  UpdateOrderBody,
  UpdateOrderStatusBody,
} from "./orders-schemas.ts";
import type { OrderService } from "./orders-service.ts";

/**
 * Order routes of the dashboard, the Admin API and the developer API. Each route states its
 * method, path, operationId and required scope; what the families share is declared once here.
 * Reads need read_orders, writes write_orders (an app may be granted it; a key pair not). An app's
 * reads and writes carry its own metadata and only its own; its moves are named in the order's
 * history as the app's.
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
  create: {
    summary: "Create an order",
    response: { 201: Envelope(OrderResource, "Created") },
    errors: ["CONFLICT"],
  },
  setStatus: {
    summary: "Move an order to its next status",
    body: UpdateOrderStatusBody,
    response: { 200: Envelope(OrderResource) },
    errors: ["NOT_FOUND", "CONFLICT"],
  },
  update: {
    summary: "Change an order's note, tags or shipping address",
    response: { 200: Envelope(OrderResource) },
    errors: ["NOT_FOUND", "CONFLICT"],
  },
} satisfies Record<string, Partial<RouteSpec<StoreScope>>>;

const CREATE_RULES = `Prices and totals come from the catalogue; stock is taken at once (409 when short). A deleted (anonymised) customer orders nothing more (409). The shipping address, when left out, is the customer's default address. Emits ${eventName(EVENT.orderCreated)} and ${eventName(EVENT.productUpdated)} for each product whose stock changed.`;
const STATUS_RULES = `One step at a time. ${orderMovesInWords()} Cancelling returns the stock. Any other move answers 409. Moving to \`${OrderStatus.shipped}\` may carry \`fulfillment\` (carrier, tracking number, tracking URL), kept on the order and sent with ${eventName(EVENT.orderShipped)}; with another status it is a 400.`;
const UPDATE_RULES = `Send only what changes; \`tags\` replaces the list. The shipping address changes only before the order ships or is cancelled (409 after). Emits ${eventName(EVENT.orderUpdated)} when something changed; an update that changes nothing emits nothing.`;
const METADATA_RULES = `\`metadata\` is your app's own (at most ${METADATA_LIMITS.keys} keys): merged into the pairs it keeps on the order, \`null\` removes a key; other apps never see it.`;

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
          "`account`: a merchant in the dashboard; `app`: an app through the Admin API; `system`: the platform; `unknown`: before histories were kept.",
      }),
      name: Type.String({
        description: "The merchant's or the app's name at the time, or the platform's part.",
      }),
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
      description: CREATE_RULES,
      params: StoreParams,
      body: CreateOrderBody,
      ...ORDER.create,
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
      description: STATUS_RULES,
      params: storeParams(OrderIdParam),
      ...ORDER.setStatus,
    }),
    async (request) => ({
      success: true as const,
      data: await orders.setStatus(
        storeOf(request),
        request.params.id,
        request.body.status,
        accountActor(request),
        request.body.fulfillment,
      ),
    }),
  );
  app.patch(
    "/stores/:slug/orders/:id",
    dashboardRoute({
      operationId: "dashboardUpdateOrder",
      scope: Scope.write_orders,
      tags,
      description: UPDATE_RULES,
      params: storeParams(OrderIdParam),
      body: UpdateOrderBody,
      ...ORDER.update,
    }),
    async (request) => ({
      success: true as const,
      data: await orders.update(storeOf(request), request.params.id, request.body),
    }),
  );
}

/** How an app is named in an order's history: its name as it is when it acts. */
export type AppActor = (access: AccessContext) => Promise<Actor>;

export function registerAdminOrderRoutes(app: App, orders: OrderService, appActor: AppActor) {
  const tags = ["Admin API: orders"];
  const viewer = (request: FastifyRequest) => ({ appId: accessOf(request).appId });
  app.get(
    "/orders",
    adminRoute({ operationId: "adminListOrders", scope: Scope.read_orders, tags, ...ORDER.list }),
    async (request) => {
      const page = await orders.list(storeOf(request), request.query, viewer(request));
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
      data: await orders.get(storeOf(request), request.params.id, viewer(request)),
    }),
  );
  app.post(
    "/orders",
    adminRoute({
      operationId: "adminCreateOrder",
      scope: Scope.write_orders,
      tags,
      description: `${CREATE_RULES} The customer is \`customerId\` (an existing one) or \`customer\` (inline: the store's customer with that e-mail address, else a new one with \`customer.created\`); one of the two. Send an \`Idempotency-Key\`: a retry with it answers the first order instead of placing a second. ${METADATA_RULES}`,
      body: AdminCreateOrderBody,
      ...ORDER.create,
    }),
    async (request, reply) => {
      const access = accessOf(request);
      return reply.status(201).send({
        success: true as const,
        data: await orders.create(storeOf(request), request.body, await appActor(access), viewer(request)),
      });
    },
  );
  app.patch(
    "/orders/:id",
    adminRoute({
      operationId: "adminUpdateOrder",
      scope: Scope.write_orders,
      tags,
      description: `${UPDATE_RULES} ${METADATA_RULES}`,
      params: Params(OrderIdParam),
      body: AdminUpdateOrderBody,
      ...ORDER.update,
    }),
    async (request) => ({
      success: true as const,
      data: await orders.update(storeOf(request), request.params.id, request.body, viewer(request)),
    }),
  );
  app.post(
    "/orders/:id/status",
    adminRoute({
      operationId: "adminSetOrderStatus",
      scope: Scope.write_orders,
      tags,
      description: `${STATUS_RULES} The order's history names your app as who moved it.`,
      params: Params(OrderIdParam),
      ...ORDER.setStatus,
    }),
    async (request) => ({
      success: true as const,
      data: await orders.setStatus(
        storeOf(request),
        request.params.id,
        request.body.status,
        await appActor(accessOf(request)),
        request.body.fulfillment,
        viewer(request),
      ),
    }),
  );
}

/** The developer API's order reads: page-numbered like its product list (spec 4.4). */
export function registerDeveloperOrderRoutes(app: App, orders: OrderService) {
  const tags = ["Developer API: orders"];
  app.get(
    "/orders",
    developerRoute({
      operationId: "developerListOrders",
      scope: Scope.read_orders,
      tags,
      summary: "List orders, page by page",
      description: pageDescription("orders"),
      querystring: PageQuery,
      response: { 200: Page(OrderResource, "Orders") },
    }),
    async (request) => {
      const page = await orders.listByPage(storeOf(request), request.query.page, request.query.perPage);
      return { success: true as const, data: page.items, meta: page.meta };
    },
  );
  app.get(
    "/orders/:id",
    developerRoute({
      operationId: "developerGetOrder",
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
  appActor: AppActor,
): FeatureRoutes {
  return {
    tags: {
      "Dashboard: orders": "A store's orders and their status.",
      "Admin API: orders":
        "Bearer token with `read_orders` to read; `write_orders` to create orders, move them along their statuses (with the carrier and tracking number when shipped) and change their note, tags, shipping address and the app's own `metadata`.",
      "Developer API: orders": "`read_orders`: orders page by page, and one order.",
    },
    store: (app) => registerDashboardOrderRoutes(app, orders, webhooksOf),
    admin: (app) => registerAdminOrderRoutes(app, orders, appActor),
    developer: (app) => registerDeveloperOrderRoutes(app, orders),
  };
}
