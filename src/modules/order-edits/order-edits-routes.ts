import Type from "typebox";
import { EVENT, OrderResource, Scope } from "../../contracts/index.ts";
import { eventName } from "../../lib/http/event-docs.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope } from "../../lib/http/schemas.ts";
import { ADMIN_API } from "../families/admin-family.ts";
import { DASHBOARD } from "../families/dashboard-family.ts";
import { defineOperation, mount } from "../families/operation.ts";
import { type AppActor, orderActor } from "../orders/orders-routes.ts";
import { OrderIdParam } from "../orders/orders-schemas.ts";
import {
  CreateOrderEditBody,
  OrderEditPreviewResource,
  OrderEditResource,
  PreviewOrderEditBody,
} from "./order-edits-schemas.ts";
import type { OrderEditService } from "./order-edits-service.ts";

/** The order edit operations (issue 31, part 5): reads under read_orders, the rest under write_orders. */
export function orderEditOperations(edits: OrderEditService, appActor: AppActor) {
  const actorOf = orderActor(appActor);
  return {
    preview: defineOperation({
      method: "POST",
      path: "/orders/:id/edits/preview",
      params: OrderIdParam,
      summary: "Preview an order edit",
      description:
        "The order as committing this edit now would leave it: its lines, codes, shipping, tax and totals, the difference to the total before, and the refusals a commit would meet (no stock: 409; a code: 400 DISCOUNT_NOT_APPLICABLE). Records nothing, reserves nothing. Only an order not yet shipped or cancelled, without refunds (409 otherwise).",
      body: PreviewOrderEditBody,
      response: { 200: Envelope(OrderEditPreviewResource) },
      errors: ["NOT_FOUND", "CONFLICT", "DISCOUNT_NOT_APPLICABLE"],
      run: async ({ caller, params, body }) => ({
        data: await edits.preview(caller.store, params.id, body, await actorOf(caller.principal)),
      }),
    }),
    create: defineOperation({
      method: "POST",
      path: "/orders/:id/edits",
      params: OrderIdParam,
      summary: "Edit an order",
      description: `Changes lines' quantities (0 removes a line), adds variants, replaces the discount codes or the shipping lines of an order not yet shipped, and prices it again: stock is committed or released at the order's location in the same transaction. On a paid order the difference shows as \`outstanding\` until it is settled. Send the order's \`updatedAt\` as read as \`expectedUpdatedAt\` to be refused (409) when it changed since. Emits ${eventName(EVENT.orderEdited)} (the lines before and after) and ${eventName(EVENT.orderUpdated)}.`,
      body: CreateOrderEditBody,
      response: { 201: Envelope(OrderEditResource, "Created") },
      errors: ["NOT_FOUND", "CONFLICT", "DISCOUNT_NOT_APPLICABLE"],
      run: async ({ caller, params, body }) => ({
        data: await edits.create(caller.store, params.id, body, await actorOf(caller.principal)),
      }),
    }),
    list: defineOperation({
      method: "GET",
      path: "/orders/:id/edits",
      params: OrderIdParam,
      summary: "List an order's edits",
      description: "Oldest first.",
      response: { 200: Envelope(Type.Array(OrderEditResource)) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({ data: await edits.list(caller.store, params.id) }),
    }),
    settle: defineOperation({
      method: "POST",
      path: "/orders/:id/settle",
      params: OrderIdParam,
      summary: "Record an order's balance settled",
      description: `Records that the difference an edit left on a paid order (its \`outstanding\`) was collected from the customer or returned to them through the store's payment provider: \`received\` becomes the total and \`outstanding\` 0. It moves no money. 409 when nothing is owed. Emits ${eventName(EVENT.orderUpdated)}.`,
      response: { 200: Envelope(OrderResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params }) => ({ data: await edits.settle(caller.store, params.id) }),
    }),
  };
}

export function orderEditRoutes(edits: OrderEditService, appActor: AppActor): FeatureRoutes {
  const op = orderEditOperations(edits, appActor);
  return {
    tags: {
      "Dashboard: order edits":
        "Changes to an order not yet shipped: lines, codes, shipping; and settling the difference.",
      "Admin API: order edits":
        "Bearer token with `read_orders` (read) / `write_orders` (preview, edit, settle).",
    },
    store(app) {
      const tags = ["Dashboard: order edits"];
      mount(app, DASHBOARD, op.list, {
        operationId: "dashboardListOrderEdits",
        scope: Scope.read_orders,
        tags,
      });
      mount(app, DASHBOARD, op.preview, {
        operationId: "dashboardPreviewOrderEdit",
        scope: Scope.write_orders,
        tags,
      });
      mount(app, DASHBOARD, op.create, {
        operationId: "dashboardEditOrder",
        scope: Scope.write_orders,
        tags,
      });
      mount(app, DASHBOARD, op.settle, {
        operationId: "dashboardSettleOrder",
        scope: Scope.write_orders,
        tags,
      });
    },
    admin(app) {
      const tags = ["Admin API: order edits"];
      mount(app, ADMIN_API, op.list, { operationId: "adminListOrderEdits", scope: Scope.read_orders, tags });
      mount(app, ADMIN_API, op.preview, {
        operationId: "adminPreviewOrderEdit",
        scope: Scope.write_orders,
        tags,
      });
      mount(app, ADMIN_API, op.create, { operationId: "adminEditOrder", scope: Scope.write_orders, tags });
      mount(app, ADMIN_API, op.settle, { operationId: "adminSettleOrder", scope: Scope.write_orders, tags });
    },
  };
}
