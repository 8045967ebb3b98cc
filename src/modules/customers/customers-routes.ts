import Type from "typebox";
import { EVENT, METADATA_LIMITS, Scope } from "../../contracts/index.ts";
import type { StoreScope } from "../../contracts/scopes.ts";
import { type RouteSpec, storeOf } from "../../lib/http/api-family.ts";
import { eventName } from "../../lib/http/event-docs.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { CursorPage, Envelope, Params } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { accessOf, adminRoute } from "../families/admin-family.ts";
import { dashboardRoute, StoreParams, storeParams } from "../families/dashboard-family.ts";
import { developerRoute } from "../families/developer-family.ts";
import { Page, PageQuery, pageDescription } from "../families/developer-pages.ts";
import {
  AdminCreateCustomerBody,
  AdminUpdateCustomerBody,
  CreateCustomerBody,
  CustomerIdParam,
  CustomerListQuery,
  CustomerResource,
  CustomerStats,
  UpdateCustomerBody,
} from "./customers-schemas.ts";
import type { CustomerService } from "./customers-service.ts";

/**
 * Customer routes of the dashboard, the Admin API and the developer API. Each route states its
 * method, path, operationId and required scope; what the families share is declared once here.
 * Reads need read_customers, writes write_customers (an app may be granted it; a key pair not).
 * An app's reads and writes carry its own metadata and only its own.
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
  create: {
    summary: "Create a customer",
    response: { 201: Envelope(CustomerResource, "Created") },
    errors: ["CONFLICT"],
  },
  update: {
    summary: "Change a customer",
    response: { 200: Envelope(CustomerResource) },
    errors: ["NOT_FOUND", "CONFLICT"],
  },
} satisfies Record<string, Partial<RouteSpec<StoreScope>>>;

const CREATE_RULES = `E-mail addresses are unique per store, case-insensitively (409). \`addresses\`: the first is the default shipping address. Emits ${eventName(EVENT.customerCreated)}.`;
const UPDATE_RULES = `Send only what changes; \`addresses\` and \`tags\` replace the lists. E-mail addresses stay unique per store (409). A deleted (anonymised) customer cannot change (409). Emits ${eventName(EVENT.customerUpdated)} when something changed; an update that changes nothing emits nothing.`;
const METADATA_RULES = `\`metadata\` is your app's own (at most ${METADATA_LIMITS.keys} keys): merged into the pairs it keeps on the customer, \`null\` removes a key; other apps never see it.`;

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
      description: UPDATE_RULES,
      params: storeParams(CustomerIdParam),
      body: UpdateCustomerBody,
      ...CUSTOMER.update,
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
      description: `A customer without orders is removed. One with orders is anonymised instead (\`anonymizedAt\` is set): the orders stay, with a customer whose name, e-mail address, phone, addresses, note, tags and app metadata are erased, and emits ${eventName(EVENT.customerUpdated)}. Either way, in the same transaction, the customer's personal data is erased from every copy the platform stored: their orders' shipping addresses (down to city, region, postal code and country), notes and tracking; the payloads of the customer's and their orders' events (the event feed); the bodies kept with those events' webhook deliveries (what a redelivery or recover sends) and what receivers answered to them; the stored answers of idempotent creates naming them. Apps are sent ${eventName(EVENT.customerRedact)}. No order can be placed for a deleted customer afterwards (409).`,
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
      description: CREATE_RULES,
      params: StoreParams,
      body: CreateCustomerBody,
      ...CUSTOMER.create,
    }),
    async (request, reply) =>
      reply
        .status(201)
        .send({ success: true as const, data: await customers.create(storeOf(request), request.body) }),
  );
}

export function registerAdminCustomerRoutes(app: App, customers: CustomerService) {
  const tags = ["Admin API: customers"];
  const viewer = (request: Parameters<typeof accessOf>[0]) => ({ appId: accessOf(request).appId });
  app.get(
    "/customers",
    adminRoute({ operationId: "adminListCustomers", scope: Scope.read_customers, tags, ...CUSTOMER.list }),
    async (request) => {
      const page = await customers.list(storeOf(request), request.query, viewer(request));
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
      data: await customers.get(storeOf(request), request.params.id, viewer(request)),
    }),
  );
  app.post(
    "/customers",
    adminRoute({
      operationId: "adminCreateCustomer",
      scope: Scope.write_customers,
      tags,
      description: `${CREATE_RULES} ${METADATA_RULES}`,
      body: AdminCreateCustomerBody,
      ...CUSTOMER.create,
    }),
    async (request, reply) =>
      reply.status(201).send({
        success: true as const,
        data: await customers.create(storeOf(request), request.body, viewer(request)),
      }),
  );
  app.patch(
    "/customers/:id",
    adminRoute({
      operationId: "adminUpdateCustomer",
      scope: Scope.write_customers,
      tags,
      description: `${UPDATE_RULES} ${METADATA_RULES}`,
      params: Params(CustomerIdParam),
      body: AdminUpdateCustomerBody,
      ...CUSTOMER.update,
    }),
    async (request) => ({
      success: true as const,
      data: await customers.update(storeOf(request), request.params.id, request.body, viewer(request)),
    }),
  );
}

/** The developer API's customer reads: page-numbered like its product list (spec 4.4). */
export function registerDeveloperCustomerRoutes(app: App, customers: CustomerService) {
  const tags = ["Developer API: customers"];
  app.get(
    "/customers",
    developerRoute({
      operationId: "developerListCustomers",
      scope: Scope.read_customers,
      tags,
      summary: "List customers, page by page",
      description: pageDescription("customers"),
      querystring: PageQuery,
      response: { 200: Page(CustomerResource, "Customers") },
    }),
    async (request) => {
      const page = await customers.listByPage(storeOf(request), request.query.page, request.query.perPage);
      return { success: true as const, data: page.items, meta: page.meta };
    },
  );
  app.get(
    "/customers/:id",
    developerRoute({
      operationId: "developerGetCustomer",
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
    tags: {
      "Dashboard: customers": "A store's customers.",
      "Admin API: customers":
        "Bearer token with `read_customers` to read; `write_customers` to create customers and change them, addresses and the app's own `metadata` included.",
      "Developer API: customers": "`read_customers`: customers page by page, and one customer.",
    },
    store: (app) => registerDashboardCustomerRoutes(app, customers),
    admin: (app) => registerAdminCustomerRoutes(app, customers),
    developer: (app) => registerDeveloperCustomerRoutes(app, customers),
  };
}
