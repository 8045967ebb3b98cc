import type { ErrorCode } from "../../lib/errors.ts";
import { type ApiFamily, capitalize, familyErrors, storeOf } from "../../lib/http/api-family.ts";
import { CursorPage, Envelope, Params } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import {
  CreateOrderBody,
  OrderIdParam,
  OrderListQuery,
  OrderResource,
  UpdateOrderStatusBody,
} from "./orders-schemas.ts";
import type { OrderService } from "./orders-service.ts";

export function registerOrderRoutes(
  app: App,
  family: ApiFamily,
  orders: OrderService,
  options: { write: boolean },
) {
  const tags = [`${family.tag}: orders`];
  const op = (name: string) => `${family.operation}${capitalize(name)}`;
  const base = `${family.storePath}/orders`;
  const read = family.guard("read_orders");
  const one = Params({ ...family.params, ...OrderIdParam });
  const errors = (...codes: ErrorCode[]) => familyErrors(family, ...codes);

  app.get(
    base,
    {
      preHandler: read,
      schema: {
        operationId: op("listOrders"),
        tags,
        summary: "List orders",
        description:
          "Newest first; with `updatedSince`, oldest change first. Follow `meta.nextCursor` for more.",
        security: family.security,
        params: Params(family.params),
        querystring: OrderListQuery,
        response: { 200: CursorPage(OrderResource), ...errors() },
      },
    },
    async (request) => {
      const page = await orders.list(storeOf(request), request.query);
      return { success: true as const, data: page.items, meta: page.meta };
    },
  );

  app.get(
    `${base}/:id`,
    {
      preHandler: read,
      schema: {
        operationId: op("getOrder"),
        tags,
        summary: "Get an order",
        security: family.security,
        params: one,
        response: { 200: Envelope(OrderResource), ...errors("NOT_FOUND") },
      },
    },
    async (request) => ({
      success: true as const,
      data: await orders.get(storeOf(request), request.params.id),
    }),
  );

  if (!options.write) return;

  app.post(
    base,
    {
      preHandler: read,
      schema: {
        operationId: op("createOrder"),
        tags,
        summary: "Create an order",
        description:
          "Prices and totals come from the catalogue; stock is taken at once (409 when short). Emits `order.created` and `product.updated` for each product whose stock changed.",
        security: family.security,
        params: Params(family.params),
        body: CreateOrderBody,
        response: { 201: Envelope(OrderResource, "Created"), ...errors("CONFLICT") },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send({ success: true as const, data: await orders.create(storeOf(request), request.body) }),
  );

  app.post(
    `${base}/:id/status`,
    {
      preHandler: read,
      schema: {
        operationId: op("setOrderStatus"),
        tags,
        summary: "Move an order to its next status",
        description:
          "pending -> paid -> confirmed -> shipped -> delivered, one step at a time; cancelled from pending, paid or confirmed (stock is returned). Any other move answers 409. Emits `order.<status>`.",
        security: family.security,
        params: one,
        body: UpdateOrderStatusBody,
        response: { 200: Envelope(OrderResource), ...errors("NOT_FOUND", "CONFLICT") },
      },
    },
    async (request) => ({
      success: true as const,
      data: await orders.setStatus(storeOf(request), request.params.id, request.body.status),
    }),
  );
}
