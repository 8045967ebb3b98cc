import { Scope } from "../../contracts/index.ts";
import type { StoreScope } from "../../contracts/scopes.ts";
import { type RouteSpec, storeOf } from "../../lib/http/api-family.ts";
import { CursorPage, Envelope, Params } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { adminRoute } from "../admin-api/admin-family.ts";
import { dashboardRoute, StoreParams, storeParams } from "../dashboard-family.ts";
import {
  CreateCustomerBody,
  CustomerIdParam,
  CustomerListQuery,
  CustomerResource,
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
