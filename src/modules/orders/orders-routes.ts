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
import { AppError } from "../../lib/errors.ts";
import { eventName, orderMovesInWords } from "../../lib/http/event-docs.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope } from "../../lib/http/schemas.ts";
import { ADMIN_API } from "../families/admin-family.ts";
import { DASHBOARD } from "../families/dashboard-family.ts";
import { DEVELOPER_API } from "../families/developer-family.ts";
import { defineOperation, mount, type Principal } from "../families/operation.ts";
import { readOperations } from "../families/read-operations.ts";
import type { Actor } from "./orders-repo.ts";
import {
  AdminCreateOrderBody,
  AdminUpdateOrderBody,
  CreateOrderBody,
  FulfillOrderBody,
  OrderIdParam,
  OrderListQuery,
  OrderResource,
  UpdateOrderBody,
  UpdateOrderStatusBody,
} from "./orders-schemas.ts";
import type { OrderService } from "./orders-service.ts";

const CREATE_RULES = `Prices and totals come from the catalogue; stock is taken at once (409 when short). A deleted (anonymised) customer orders nothing more (409). The shipping address, when left out, is the customer's default address. Emits ${eventName(EVENT.orderCreated)} and ${eventName(EVENT.productUpdated)} for each product whose stock changed.`;
const STATUS_RULES = `One step at a time. ${orderMovesInWords()} Cancelling returns the stock. Any other move answers 409. Moving to \`${OrderStatus.shipped}\` may carry \`fulfillment\` (carrier, tracking number, tracking URL), kept on the order and sent with ${eventName(EVENT.orderShipped)}; with another status it is a 400.`;
const UPDATE_RULES = `Send only what changes; \`tags\` replaces the list. The shipping address changes only before the order ships or is cancelled (409 after). Emits ${eventName(EVENT.orderUpdated)} when something changed; an update that changes nothing emits nothing.`;
const METADATA_RULES = `\`metadata\` is your app's own (at most ${METADATA_LIMITS.keys} keys): merged into the pairs it keeps on the order, \`null\` removes a key; other apps never see it.`;

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

/** How an app is named in an order's history: its name as it is when it acts. */
export type AppActor = (appId: string) => Promise<Actor>;

/** Who a request changing an order is: the merchant's account, or the app (its name as the app's page shows it). */
export function orderActor(appActor: AppActor) {
  return async (principal: Principal): Promise<Actor> => {
    if (principal.kind === "account")
      return { kind: ActorKind.account, id: principal.id, name: principal.name };
    if (principal.kind === "app") return appActor(principal.appId);
    // No order write is mounted in the developer API.
    throw new AppError("INTERNAL", { message: "A key pair does not change orders." });
  };
}

/**
 * The order operations, each declared once and mounted by the families that offer it
 * (orderRoutes). Reads need read_orders, writes write_orders (an app may be granted it; a key pair
 * not). An app's reads and writes carry its own metadata and only its own; a move is named in the
 * order's history as whoever made it: the merchant, or the app by its name when it acts.
 */
export function orderOperations(deps: {
  orders: OrderService;
  webhooksOf: (storeId: string, orderId: string) => Promise<OrderWebhookView[]>;
  appActor: AppActor;
}) {
  const { orders, webhooksOf } = deps;
  const actorOf = orderActor(deps.appActor);
  return {
    ...readOperations({
      path: "/orders",
      idParam: OrderIdParam,
      resource: OrderResource,
      singular: "order",
      plural: "orders",
      pluralTitle: "Orders",
      article: "an",
      listQuery: OrderListQuery,
      listDescription:
        "Newest first; with `updatedSince`, oldest change first. Follow `meta.nextCursor` for more.",
      service: orders,
    }),
    create: defineOperation({
      method: "POST",
      path: "/orders",
      description: CREATE_RULES,
      body: AdminCreateOrderBody,
      summary: "Create an order",
      response: { 201: Envelope(OrderResource, "Created") },
      errors: ["CONFLICT"],
      run: async ({ caller, body }) => ({
        data: await orders.create(caller.store, body, await actorOf(caller.principal), caller.viewer),
      }),
    }),
    history: defineOperation({
      method: "GET",
      path: "/orders/:id/history",
      summary: "An order's status timeline",
      description: "Each status the order entered, oldest first: when, and who moved it there.",
      params: OrderIdParam,
      response: { 200: Envelope(Type.Array(HistoryEntry)) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({ data: await orders.history(caller.store, params.id) }),
    }),
    webhooks: defineOperation({
      method: "GET",
      path: "/orders/:id/webhooks",
      summary: "The webhooks an order caused",
      description:
        "How the order's events reached the apps installed in the store, newest first (at most 100): each subscription's delivery (`via: subscription`: which event, which app, how the delivery went) and each `listen` session that streamed one to a developer's machine (`via: listen`).",
      params: OrderIdParam,
      response: { 200: Envelope(Type.Array(OrderWebhook)) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => {
        await orders.get(caller.store, params.id);
        return { data: await webhooksOf(caller.store.id, params.id) };
      },
    }),
    setStatus: defineOperation({
      method: "POST",
      path: "/orders/:id/status",
      description: STATUS_RULES,
      params: OrderIdParam,
      summary: "Move an order to its next status",
      body: UpdateOrderStatusBody,
      response: { 200: Envelope(OrderResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params, body }) => ({
        data: await orders.setStatus(
          caller.store,
          params.id,
          body.status,
          await actorOf(caller.principal),
          body.fulfillment,
          caller.viewer,
        ),
      }),
    }),
    fulfill: defineOperation({
      method: "POST",
      path: "/orders/:id/fulfill",
      description: `Ships a paid or confirmed order in one action: a paid order is confirmed, then shipped with how it left (carrier, tracking number and URL, each optional). Each step is recorded in the order's history and sent as its own event (${eventName(EVENT.orderConfirmed)}, ${eventName(EVENT.orderShipped)}), as if taken one by one; 409 from any other status.`,
      params: OrderIdParam,
      summary: "Fulfil an order",
      body: FulfillOrderBody,
      response: { 200: Envelope(OrderResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params, body }) => ({
        data: await orders.fulfill(
          caller.store,
          params.id,
          await actorOf(caller.principal),
          body.fulfillment,
          caller.viewer,
        ),
      }),
    }),
    update: defineOperation({
      method: "PATCH",
      path: "/orders/:id",
      description: UPDATE_RULES,
      params: OrderIdParam,
      body: AdminUpdateOrderBody,
      summary: "Change an order's note, tags or shipping address",
      response: { 200: Envelope(OrderResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params, body }) => ({
        data: await orders.update(caller.store, params.id, body, caller.viewer),
      }),
    }),
  };
}

/** The order routes of every family (platform.ts lists them). */
export function orderRoutes(
  orders: OrderService,
  webhooksOf: (storeId: string, orderId: string) => Promise<OrderWebhookView[]>,
  appActor: AppActor,
): FeatureRoutes {
  const op = orderOperations({ orders, webhooksOf, appActor });
  return {
    tags: {
      "Dashboard: orders": "A store's orders and their status.",
      "Admin API: orders":
        "Bearer token with `read_orders` to read; `write_orders` to create orders, move them along their statuses (with the carrier and tracking number when shipped) and change their note, tags, shipping address and the app's own `metadata`.",
      "Developer API: orders": "`read_orders`: orders page by page, and one order.",
    },
    store(app) {
      const tags = ["Dashboard: orders"];
      mount(app, DASHBOARD, op.list, { operationId: "dashboardListOrders", scope: Scope.read_orders, tags });
      mount(app, DASHBOARD, op.count, {
        operationId: "dashboardCountOrders",
        scope: Scope.read_orders,
        tags,
      });
      mount(app, DASHBOARD, op.get, { operationId: "dashboardGetOrder", scope: Scope.read_orders, tags });
      mount(app, DASHBOARD, op.create, {
        operationId: "dashboardCreateOrder",
        scope: Scope.write_orders,
        tags,
        body: CreateOrderBody,
      });
      mount(app, DASHBOARD, op.history, {
        operationId: "dashboardGetOrderHistory",
        scope: Scope.read_orders,
        tags,
      });
      mount(app, DASHBOARD, op.webhooks, {
        operationId: "dashboardListOrderWebhooks",
        scope: Scope.read_orders,
        tags,
      });
      mount(app, DASHBOARD, op.setStatus, {
        operationId: "dashboardSetOrderStatus",
        scope: Scope.write_orders,
        tags,
      });
      mount(app, DASHBOARD, op.fulfill, {
        operationId: "dashboardFulfillOrder",
        scope: Scope.write_orders,
        tags,
      });
      mount(app, DASHBOARD, op.update, {
        operationId: "dashboardUpdateOrder",
        scope: Scope.write_orders,
        tags,
        body: UpdateOrderBody,
      });
    },
    admin(app) {
      const tags = ["Admin API: orders"];
      mount(app, ADMIN_API, op.list, { operationId: "adminListOrders", scope: Scope.read_orders, tags });
      mount(app, ADMIN_API, op.count, { operationId: "adminCountOrders", scope: Scope.read_orders, tags });
      mount(app, ADMIN_API, op.get, { operationId: "adminGetOrder", scope: Scope.read_orders, tags });
      mount(app, ADMIN_API, op.create, {
        operationId: "adminCreateOrder",
        scope: Scope.write_orders,
        tags,
        description: `${CREATE_RULES} The customer is \`customerId\` (an existing one) or \`customer\` (inline: the store's customer with that e-mail address, else a new one with \`customer.created\`); one of the two. Send an \`Idempotency-Key\`: a retry with it answers the first order instead of placing a second. ${METADATA_RULES}`,
      });
      mount(app, ADMIN_API, op.update, {
        operationId: "adminUpdateOrder",
        scope: Scope.write_orders,
        tags,
        description: `${UPDATE_RULES} ${METADATA_RULES}`,
      });
      mount(app, ADMIN_API, op.setStatus, {
        operationId: "adminSetOrderStatus",
        scope: Scope.write_orders,
        tags,
        description: `${STATUS_RULES} The order's history names your app as who moved it.`,
      });
      mount(app, ADMIN_API, op.fulfill, {
        operationId: "adminFulfillOrder",
        scope: Scope.write_orders,
        tags,
      });
    },
    developer(app) {
      const tags = ["Developer API: orders"];
      mount(app, DEVELOPER_API, op.listByPage, {
        operationId: "developerListOrders",
        scope: Scope.read_orders,
        tags,
      });
      mount(app, DEVELOPER_API, op.get, { operationId: "developerGetOrder", scope: Scope.read_orders, tags });
    },
  };
}
