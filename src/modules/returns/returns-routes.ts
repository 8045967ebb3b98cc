import Type from "typebox";
import { EVENT, Scope } from "../../contracts/index.ts";
import { eventName } from "../../lib/http/event-docs.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope } from "../../lib/http/schemas.ts";
import { ADMIN_API } from "../families/admin-family.ts";
import { DASHBOARD } from "../families/dashboard-family.ts";
import { defineOperation, mount } from "../families/operation.ts";
import { type AppActor, orderActor } from "../orders/orders-routes.ts";
import {
  CloseReturnBody,
  CreateReturnBody,
  OrderReturnsParam,
  ReceiveReturnBody,
  ReturnIdParam,
  ReturnResource,
} from "./returns-schemas.ts";
import type { ReturnService } from "./returns-service.ts";

/** The return operations (issue 31, part 4): reads under read_returns, every step under write_returns. */
export function returnOperations(returns: ReturnService, appActor: AppActor) {
  const actorOf = orderActor(appActor);
  const step = (name: "approve" | "decline", summary: string, event: string) =>
    defineOperation({
      method: "POST",
      path: `/returns/:id/${name}`,
      params: ReturnIdParam,
      summary,
      description: `Only a requested return (409 otherwise). Emits ${event}.`,
      response: { 200: Envelope(ReturnResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params }) => ({ data: await returns[name](caller.store, params.id) }),
    });
  return {
    create: defineOperation({
      method: "POST",
      path: "/orders/:id/returns",
      params: OrderReturnsParam,
      summary: "Request a return",
      description: `Units of a shipped or delivered order coming back, each line with its reason; never more units of a line than it had, counting the returns not declined (409). Emits ${eventName(EVENT.returnRequested)}.`,
      body: CreateReturnBody,
      response: { 201: Envelope(ReturnResource, "Created") },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params, body }) => ({
        data: await returns.create(caller.store, params.id, body),
      }),
    }),
    ofOrder: defineOperation({
      method: "GET",
      path: "/orders/:id/returns",
      params: OrderReturnsParam,
      summary: "List an order's returns",
      description: "Oldest first, each with the time of every step it took.",
      response: { 200: Envelope(Type.Array(ReturnResource)) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({ data: await returns.ofOrder(caller.store, params.id) }),
    }),
    get: defineOperation({
      method: "GET",
      path: "/returns/:id",
      params: ReturnIdParam,
      summary: "Get a return",
      response: { 200: Envelope(ReturnResource) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({ data: await returns.get(caller.store, params.id) }),
    }),
    approve: step("approve", "Approve a return", eventName(EVENT.returnApproved)),
    decline: step("decline", "Decline a return", eventName(EVENT.returnDeclined)),
    receive: defineOperation({
      method: "POST",
      path: "/returns/:id/receive",
      params: ReturnIdParam,
      summary: "Receive a return",
      description: `The units arrived: an approved return only (409 otherwise). They go back into stock at \`locationId\` unless \`restock\` is false. Emits ${eventName(EVENT.returnReceived)}.`,
      body: ReceiveReturnBody,
      response: { 200: Envelope(ReturnResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params, body }) => ({
        data: await returns.receive(caller.store, params.id, body, await actorOf(caller.principal)),
      }),
    }),
    close: defineOperation({
      method: "POST",
      path: "/returns/:id/close",
      params: ReturnIdParam,
      summary: "Close a return",
      description: `An approved or received return (409 otherwise). On a paid order its units are refunded (their share of discounts and tax; \`refund: false\` closes without), and the refund is linked as \`refundId\`. Emits ${eventName(EVENT.returnClosed)} (and the refund's events).`,
      body: CloseReturnBody,
      response: { 200: Envelope(ReturnResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params, body }) => ({
        data: await returns.close(caller.store, params.id, body, await actorOf(caller.principal)),
      }),
    }),
  };
}

export function returnRoutes(returns: ReturnService, appActor: AppActor): FeatureRoutes {
  const op = returnOperations(returns, appActor);
  const read = Scope.read_returns;
  const write = Scope.write_returns;
  return {
    tags: {
      "Dashboard: returns": "Returns of shipped orders, step by step, refunded on close.",
      "Admin API: returns": "Bearer token with `read_returns` / `write_returns`: a returns app's whole job.",
    },
    store(app) {
      const tags = ["Dashboard: returns"];
      mount(app, DASHBOARD, op.ofOrder, { operationId: "dashboardListOrderReturns", scope: read, tags });
      mount(app, DASHBOARD, op.create, { operationId: "dashboardCreateReturn", scope: write, tags });
      mount(app, DASHBOARD, op.get, { operationId: "dashboardGetReturn", scope: read, tags });
      mount(app, DASHBOARD, op.approve, { operationId: "dashboardApproveReturn", scope: write, tags });
      mount(app, DASHBOARD, op.decline, { operationId: "dashboardDeclineReturn", scope: write, tags });
      mount(app, DASHBOARD, op.receive, { operationId: "dashboardReceiveReturn", scope: write, tags });
      mount(app, DASHBOARD, op.close, { operationId: "dashboardCloseReturn", scope: write, tags });
    },
    admin(app) {
      const tags = ["Admin API: returns"];
      mount(app, ADMIN_API, op.ofOrder, { operationId: "adminListOrderReturns", scope: read, tags });
      mount(app, ADMIN_API, op.create, { operationId: "adminCreateReturn", scope: write, tags });
      mount(app, ADMIN_API, op.get, { operationId: "adminGetReturn", scope: read, tags });
      mount(app, ADMIN_API, op.approve, { operationId: "adminApproveReturn", scope: write, tags });
      mount(app, ADMIN_API, op.decline, { operationId: "adminDeclineReturn", scope: write, tags });
      mount(app, ADMIN_API, op.receive, { operationId: "adminReceiveReturn", scope: write, tags });
      mount(app, ADMIN_API, op.close, { operationId: "adminCloseReturn", scope: write, tags });
    },
  };
}
