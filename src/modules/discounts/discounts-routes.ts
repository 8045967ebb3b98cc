import { EVENT, Scope } from "../../contracts/index.ts";
import { eventName } from "../../lib/http/event-docs.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { CursorPage, Envelope } from "../../lib/http/schemas.ts";
import { ADMIN_API } from "../families/admin-family.ts";
import { DASHBOARD } from "../families/dashboard-family.ts";
import { defineOperation, mount } from "../families/operation.ts";
import {
  CreateDiscountBody,
  DiscountIdParam,
  DiscountListQuery,
  DiscountResource,
  UpdateDiscountBody,
} from "./discounts-schemas.ts";
import type { DiscountService } from "./discounts-service.ts";

/** The discount code operations (issue 31), each declared once: reads read_discounts, writes write_discounts. */
export function discountOperations(discounts: DiscountService) {
  return {
    list: defineOperation({
      method: "GET",
      path: "/discounts",
      summary: "List discount codes",
      description:
        "Newest first (or by last change), with how often each was used. Follow `meta.nextCursor` for more.",
      querystring: DiscountListQuery,
      response: { 200: CursorPage(DiscountResource) },
      run: async ({ caller, query }) => {
        const page = await discounts.list(caller.store, query);
        return { data: page.items, meta: page.meta };
      },
    }),
    get: defineOperation({
      method: "GET",
      path: "/discounts/:id",
      params: DiscountIdParam,
      summary: "Get a discount code",
      response: { 200: Envelope(DiscountResource) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({ data: await discounts.get(caller.store, params.id) }),
    }),
    create: defineOperation({
      method: "POST",
      path: "/discounts",
      summary: "Create a discount code",
      description: `A percentage (\`percentage\`), a fixed amount (\`value\`, once per order or off each item) or free shipping; on every product or on some products and collections; with an optional minimum, dates, a usage limit and the once-per-customer rule. A code is unique in the store without regard to case (409). Emits ${eventName(EVENT.discountCreated)}.`,
      body: CreateDiscountBody,
      response: { 201: Envelope(DiscountResource, "Created") },
      errors: ["CONFLICT"],
      run: async ({ caller, body }) => ({ data: await discounts.create(caller.store, body) }),
    }),
    update: defineOperation({
      method: "PATCH",
      path: "/discounts/:id",
      params: DiscountIdParam,
      summary: "Update, pause or resume a discount code",
      description: `Send only what changes (\`status: paused\` pauses it). Orders placed before keep what it took. A usage limit below the uses so far is a 409. Emits ${eventName(EVENT.discountUpdated)} when something changed.`,
      body: UpdateDiscountBody,
      response: { 200: Envelope(DiscountResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params, body }) => ({
        data: await discounts.update(caller.store, params.id, body),
      }),
    }),
    remove: defineOperation({
      method: "DELETE",
      path: "/discounts/:id",
      params: DiscountIdParam,
      summary: "Delete a discount code",
      description: `Orders that used it keep what it took (their \`discountApplications\` keep the code). Emits ${eventName(EVENT.discountDeleted)}.`,
      response: { 200: Envelope(DiscountResource, "The deleted discount code") },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({ data: await discounts.remove(caller.store, params.id) }),
    }),
  };
}

/** The discount routes of the dashboard and the Admin API (platform.ts lists them). */
export function discountRoutes(discounts: DiscountService): FeatureRoutes {
  const op = discountOperations(discounts);
  return {
    tags: {
      "Dashboard: discounts":
        "Discount codes: percentages, fixed amounts and free shipping, with their limits.",
      "Admin API: discounts": "Bearer token with `read_discounts` / `write_discounts`.",
    },
    store(app) {
      const tags = ["Dashboard: discounts"];
      mount(app, DASHBOARD, op.list, {
        operationId: "dashboardListDiscounts",
        scope: Scope.read_discounts,
        tags,
      });
      mount(app, DASHBOARD, op.get, {
        operationId: "dashboardGetDiscount",
        scope: Scope.read_discounts,
        tags,
      });
      mount(app, DASHBOARD, op.create, {
        operationId: "dashboardCreateDiscount",
        scope: Scope.write_discounts,
        tags,
      });
      mount(app, DASHBOARD, op.update, {
        operationId: "dashboardUpdateDiscount",
        scope: Scope.write_discounts,
        tags,
      });
      mount(app, DASHBOARD, op.remove, {
        operationId: "dashboardDeleteDiscount",
        scope: Scope.write_discounts,
        tags,
      });
    },
    admin(app) {
      const tags = ["Admin API: discounts"];
      mount(app, ADMIN_API, op.list, {
        operationId: "adminListDiscounts",
        scope: Scope.read_discounts,
        tags,
      });
      mount(app, ADMIN_API, op.get, { operationId: "adminGetDiscount", scope: Scope.read_discounts, tags });
      mount(app, ADMIN_API, op.create, {
        operationId: "adminCreateDiscount",
        scope: Scope.write_discounts,
        tags,
      });
      mount(app, ADMIN_API, op.update, {
        operationId: "adminUpdateDiscount",
        scope: Scope.write_discounts,
        tags,
      });
      mount(app, ADMIN_API, op.remove, {
        operationId: "adminDeleteDiscount",
        scope: Scope.write_discounts,
        tags,
      });
    },
  };
}
