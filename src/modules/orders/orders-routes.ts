import { Scope } from "../../contracts/index.ts";
import type { StoreScope } from "../../contracts/scopes.ts";
import { type RouteSpec, storeOf } from "../../lib/http/api-family.ts";
import { CursorPage, Envelope, Params } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { adminRoute } from "../admin-api/admin-family.ts";
import { dashboardRoute, StoreParams, storeParams } from "../dashboard-family.ts";
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

export function registerDashboardOrderRoutes(app: App, orders: OrderService) {
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
      reply
        .status(201)
        .send({ success: true as const, data: await orders.create(storeOf(request), request.body) }),
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
      data: await orders.setStatus(storeOf(request), request.params.id, request.body.status),
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
