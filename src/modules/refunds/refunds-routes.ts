import Type from "typebox";
import { EVENT, Scope } from "../../contracts/index.ts";
import { eventName } from "../../lib/http/event-docs.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope } from "../../lib/http/schemas.ts";
import { ADMIN_API } from "../families/admin-family.ts";
import { DASHBOARD } from "../families/dashboard-family.ts";
import { defineOperation, mount } from "../families/operation.ts";
import { type AppActor, orderActor } from "../orders/orders-routes.ts";
import { OrderIdParam } from "../orders/orders-schemas.ts";
import {
  CalculateRefundBody,
  CreateRefundBody,
  RefundCalculationResource,
  RefundResource,
} from "./refunds-schemas.ts";
import type { RefundService } from "./refunds-service.ts";

/** The refund operations (issue 31, part 3): reads under read_orders, the calculation and the create under write_orders. */
export function refundOperations(refunds: RefundService, appActor: AppActor) {
  const actorOf = orderActor(appActor);
  return {
    calculate: defineOperation({
      method: "POST",
      path: "/orders/:id/refunds/calculate",
      params: OrderIdParam,
      summary: "Calculate a refund",
      description:
        "What refunding these units (and the shipping, when `shipping` is true) would return now: each line's share of its discounts and tax, prorated by units, and where restocked units would go. Records nothing. A paid or partially refunded order only (409 otherwise).",
      body: CalculateRefundBody,
      response: { 200: Envelope(RefundCalculationResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params, body }) => ({
        data: await refunds.calculate(caller.store, params.id, body),
      }),
    }),
    create: defineOperation({
      method: "POST",
      path: "/orders/:id/refunds",
      params: OrderIdParam,
      summary: "Refund an order",
      description: `Records money the store's payment provider returned for these units (and the shipping): the amounts \`calculate\` gives, never more than was paid per line and in all, also under concurrent requests; restocks at \`locationId\` when asked. The order's \`financialStatus\` becomes partially_refunded or refunded. Emits ${eventName(EVENT.refundCreated)} and ${eventName(EVENT.orderUpdated)}.`,
      body: CreateRefundBody,
      response: { 201: Envelope(RefundResource, "Created") },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params, body }) => ({
        data: await refunds.create(caller.store, params.id, body, await actorOf(caller.principal)),
      }),
    }),
    list: defineOperation({
      method: "GET",
      path: "/orders/:id/refunds",
      params: OrderIdParam,
      summary: "List an order's refunds",
      description: "Oldest first.",
      response: { 200: Envelope(Type.Array(RefundResource)) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({ data: await refunds.list(caller.store, params.id) }),
    }),
  };
}

export function refundRoutes(refunds: RefundService, appActor: AppActor): FeatureRoutes {
  const op = refundOperations(refunds, appActor);
  return {
    tags: {
      "Dashboard: refunds": "Refunds of an order's units and shipping, with restocking.",
      "Admin API: refunds": "Bearer token with `read_orders` (read) / `write_orders` (calculate, refund).",
    },
    store(app) {
      const tags = ["Dashboard: refunds"];
      mount(app, DASHBOARD, op.list, { operationId: "dashboardListRefunds", scope: Scope.read_orders, tags });
      mount(app, DASHBOARD, op.calculate, {
        operationId: "dashboardCalculateRefund",
        scope: Scope.write_orders,
        tags,
      });
      mount(app, DASHBOARD, op.create, {
        operationId: "dashboardCreateRefund",
        scope: Scope.write_orders,
        tags,
      });
    },
    admin(app) {
      const tags = ["Admin API: refunds"];
      mount(app, ADMIN_API, op.list, { operationId: "adminListRefunds", scope: Scope.read_orders, tags });
      mount(app, ADMIN_API, op.calculate, {
        operationId: "adminCalculateRefund",
        scope: Scope.write_orders,
        tags,
      });
      mount(app, ADMIN_API, op.create, { operationId: "adminCreateRefund", scope: Scope.write_orders, tags });
    },
  };
}
