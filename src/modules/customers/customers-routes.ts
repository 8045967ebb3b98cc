import Type from "typebox";
import { Scope } from "../../contracts/index.ts";
import type { StoreScope } from "../../contracts/scopes.ts";
import { type RouteSpec, storeOf } from "../../lib/http/api-family.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { CursorPage, Envelope, Params } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { adminRoute } from "../admin-api/admin-family.ts";
import { dashboardRoute, StoreParams, storeParams } from "../dashboard-family.ts";
import {
  CreateCustomerBody,
  CustomerIdParam,
  CustomerListQuery,
  CustomerResource,
  CustomerStats,
  UpdateCustomerBody,
} from "./customers-schemas.ts";
import type { CustomerService } from "./customers-service.ts";

/**
 * Customer routes of the dashboard and the Admin API. Each route states its method, path,
 * operationId and required scope; what the families share is declared once here. Reads need
 * read_customers; the dashboard's create needs write_customers, which only the store's owner holds.
 */
const CUSTOMER = {
  list: {
    summary: "List customers",
    description: "Newest first; with `updatedSince`, oldest change first. Follow `meta.nextCursor` for more.",
    querystring: CustomerListQuery,
    response: { 200: CursorPage(CustomerResource) },
  },
  get: {
    summary: "Get a customer",
    response: { 200: Envelope(CustomerResource) },
    errors: ["NOT_FOUND"],
  },
} satisfies Record<string, Partial<RouteSpec<StoreScope>>>;

export function registerDashboardCustomerRoutes(app: App, customers: CustomerService) {
  const tags = ["Dashboard: customers"];
  app.get(
    "/stores/:slug/customers",
    dashboardRoute({
      operationId: "dashboardListCustomers",
      scope: Scope.read_customers,
      tags,
      params: StoreParams,
      ...CUSTOMER.list,
    }),
    async (request) => {
      const page = await customers.list(storeOf(request), request.query);
      return { success: true as const, data: page.items, meta: page.meta };
    },
  );
  app.get(
    "/stores/:slug/customers/:id",
    dashboardRoute({
      operationId: "dashboardGetCustomer",
      scope: Scope.read_customers,
      tags,
      params: storeParams(CustomerIdParam),
      ...CUSTOMER.get,
    }),
    async (request) => ({
      success: true as const,
      data: await customers.get(storeOf(request), request.params.id),
    }),
  );
  app.get(
    "/stores/:slug/customers/:id/stats",
    dashboardRoute({
      operationId: "dashboardGetCustomerStats",
      scope: Scope.read_customers,
      tags,
      summary: "A customer's orders in figures",
      description:
        "How many orders, what they spent (cancelled orders aside) and when they last ordered. Their orders: `GET …/orders?customerId=`.",
      params: storeParams(CustomerIdParam),
      response: { 200: Envelope(CustomerStats) },
      errors: ["NOT_FOUND"],
    }),
    async (request) => ({
      success: true as const,
      data: await customers.stats(storeOf(request), request.params.id),
    }),
  );
  app.patch(
    "/stores/:slug/customers/:id",
    dashboardRoute({
      operationId: "dashboardUpdateCustomer",
      scope: Scope.write_customers,
      tags,
      summary: "Change a customer",
      description:
        "E-mail addresses stay unique per store (409). A deleted (anonymised) customer cannot change (409).",
      params: storeParams(CustomerIdParam),
      body: UpdateCustomerBody,
      response: { 200: Envelope(CustomerResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
    }),
    async (request) => ({
      success: true as const,
      data: await customers.update(storeOf(request), request.params.id, request.body),
    }),
  );
  app.delete(
    "/stores/:slug/customers/:id",
    dashboardRoute({
      operationId: "dashboardDeleteCustomer",
      scope: Scope.write_customers,
      tags,
      summary: "Delete a customer",
      description:
        "A customer without orders is removed. One with orders is anonymised instead: the orders stay, with a customer whose name, e-mail address and phone are erased (`anonymizedAt` is set).",
      params: storeParams(CustomerIdParam),
      response: {
        200: Envelope(
          Type.Object({ outcome: Type.Union([Type.Literal("deleted"), Type.Literal("anonymized")]) }),
        ),
      },
      errors: ["NOT_FOUND"],
    }),
    async (request) => ({
      success: true as const,
      data: await customers.remove(storeOf(request), request.params.id),
    }),
  );
  app.post(
    "/stores/:slug/customers",
    dashboardRoute({
      operationId: "dashboardCreateCustomer",
      scope: Scope.write_customers,
      tags,
      summary: "Create a customer",
      description: "E-mail addresses are unique per store, case-insensitively. Emits `customer.created`.",
      params: StoreParams,
      body: CreateCustomerBody,
      response: { 201: Envelope(CustomerResource, "Created") },
      errors: ["CONFLICT"],
    }),
    async (request, reply) =>
      reply
        .status(201)
        .send({ success: true as const, data: await customers.create(storeOf(request), request.body) }),
  );
}

export function registerAdminCustomerRoutes(app: App, customers: CustomerService) {
  const tags = ["Admin API: customers"];
  app.get(
    "/customers",
    adminRoute({ operationId: "adminListCustomers", scope: Scope.read_customers, tags, ...CUSTOMER.list }),
    async (request) => {
      const page = await customers.list(storeOf(request), request.query);
      return { success: true as const, data: page.items, meta: page.meta };
    },
  );
  app.get(
    "/customers/:id",
    adminRoute({
      operationId: "adminGetCustomer",
      scope: Scope.read_customers,
      tags,
      params: Params(CustomerIdParam),
      ...CUSTOMER.get,
    }),
    async (request) => ({
      success: true as const,
      data: await customers.get(storeOf(request), request.params.id),
    }),
  );
}

/** The customer routes of every family (platform.ts lists them). */
export function customerRoutes(customers: CustomerService): FeatureRoutes {
  return {
    store: (app) => registerDashboardCustomerRoutes(app, customers),
    admin: (app) => registerAdminCustomerRoutes(app, customers),
  };
}
