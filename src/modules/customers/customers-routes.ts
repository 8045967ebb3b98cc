import Type from "typebox";
import { EVENT, METADATA_LIMITS, Scope } from "../../contracts/index.ts";
import { eventName } from "../../lib/http/event-docs.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope } from "../../lib/http/schemas.ts";
import { ADMIN_API } from "../families/admin-family.ts";
import { DASHBOARD } from "../families/dashboard-family.ts";
import { DEVELOPER_API } from "../families/developer-family.ts";
import { defineOperation, mount } from "../families/operation.ts";
import { readOperations } from "../families/read-operations.ts";
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

const CREATE_RULES = `E-mail addresses are unique per store, case-insensitively (409). \`addresses\`: the first is the default shipping address. Emits ${eventName(EVENT.customerCreated)}.`;
const UPDATE_RULES = `Send only what changes; \`addresses\` and \`tags\` replace the lists. E-mail addresses stay unique per store (409). A deleted (anonymised) customer cannot change (409). Emits ${eventName(EVENT.customerUpdated)} when something changed; an update that changes nothing emits nothing.`;
const METADATA_RULES = `\`metadata\` is your app's own (at most ${METADATA_LIMITS.keys} keys): merged into the pairs it keeps on the customer, \`null\` removes a key; other apps never see it.`;

/**
 * The customer operations, each declared once and mounted by the families that offer it
 * (customerRoutes). Reads need read_customers, writes write_customers (an app may be granted it; a
 * key pair not). An app's reads and writes carry its own metadata and only its own: the bodies are
 * an app's, and the dashboard mounts them with the plain ones.
 */
export function customerOperations(customers: CustomerService) {
  return {
    ...readOperations({
      path: "/customers",
      idParam: CustomerIdParam,
      resource: CustomerResource,
      singular: "customer",
      plural: "customers",
      pluralTitle: "Customers",
      article: "a",
      listQuery: CustomerListQuery,
      listDescription:
        "Newest first; with `updatedSince`, oldest change first. Follow `meta.nextCursor` for more.",
      service: customers,
    }),
    create: defineOperation({
      method: "POST",
      path: "/customers",
      description: CREATE_RULES,
      body: AdminCreateCustomerBody,
      summary: "Create a customer",
      response: { 201: Envelope(CustomerResource, "Created") },
      errors: ["CONFLICT"],
      run: async ({ caller, body }) => ({ data: await customers.create(caller.store, body, caller.viewer) }),
    }),
    update: defineOperation({
      method: "PATCH",
      path: "/customers/:id",
      params: CustomerIdParam,
      description: UPDATE_RULES,
      body: AdminUpdateCustomerBody,
      summary: "Change a customer",
      response: { 200: Envelope(CustomerResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params, body }) => ({
        data: await customers.update(caller.store, params.id, body, caller.viewer),
      }),
    }),
    stats: defineOperation({
      method: "GET",
      path: "/customers/:id/stats",
      summary: "A customer's orders in figures",
      description:
        "How many orders, what they spent (cancelled orders aside) and when they last ordered. Their orders: `GET …/orders?customerId=`.",
      params: CustomerIdParam,
      response: { 200: Envelope(CustomerStats) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({ data: await customers.stats(caller.store, params.id) }),
    }),
    remove: defineOperation({
      method: "DELETE",
      path: "/customers/:id",
      summary: "Delete a customer",
      description: `A customer without orders is removed. One with orders is anonymised instead (\`anonymizedAt\` is set): the orders stay, with a customer whose name, e-mail address, phone, addresses, note, tags and app metadata are erased, and emits ${eventName(EVENT.customerUpdated)}. Either way, in the same transaction, the customer's personal data is erased from every copy the platform stored: their orders' shipping addresses (down to city, region, postal code and country), notes and tracking; the payloads of the customer's and their orders' events (the event feed); the bodies kept with those events' webhook deliveries (what a redelivery or recover sends) and what receivers answered to them; the stored answers of idempotent creates naming them. Apps are sent ${eventName(EVENT.customerRedact)}. No order can be placed for a deleted customer afterwards (409).`,
      params: CustomerIdParam,
      response: {
        200: Envelope(
          Type.Object({ outcome: Type.Union([Type.Literal("deleted"), Type.Literal("anonymized")]) }),
        ),
      },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({ data: await customers.remove(caller.store, params.id) }),
    }),
  };
}

/** The customer routes of every family (platform.ts lists them). */
export function customerRoutes(customers: CustomerService): FeatureRoutes {
  const op = customerOperations(customers);
  return {
    tags: {
      "Dashboard: customers": "A store's customers.",
      "Admin API: customers":
        "Bearer token with `read_customers` to read; `write_customers` to create customers and change them, addresses and the app's own `metadata` included.",
      "Developer API: customers": "`read_customers`: customers page by page, and one customer.",
    },
    store(app) {
      const tags = ["Dashboard: customers"];
      mount(app, DASHBOARD, op.list, {
        operationId: "dashboardListCustomers",
        scope: Scope.read_customers,
        tags,
      });
      mount(app, DASHBOARD, op.count, {
        operationId: "dashboardCountCustomers",
        scope: Scope.read_customers,
        tags,
      });
      mount(app, DASHBOARD, op.get, {
        operationId: "dashboardGetCustomer",
        scope: Scope.read_customers,
        tags,
      });
      mount(app, DASHBOARD, op.stats, {
        operationId: "dashboardGetCustomerStats",
        scope: Scope.read_customers,
        tags,
      });
      mount(app, DASHBOARD, op.update, {
        operationId: "dashboardUpdateCustomer",
        scope: Scope.write_customers,
        tags,
        body: UpdateCustomerBody,
      });
      mount(app, DASHBOARD, op.remove, {
        operationId: "dashboardDeleteCustomer",
        scope: Scope.write_customers,
        tags,
      });
      mount(app, DASHBOARD, op.create, {
        operationId: "dashboardCreateCustomer",
        scope: Scope.write_customers,
        tags,
        body: CreateCustomerBody,
      });
    },
    admin(app) {
      const tags = ["Admin API: customers"];
      mount(app, ADMIN_API, op.list, {
        operationId: "adminListCustomers",
        scope: Scope.read_customers,
        tags,
      });
      mount(app, ADMIN_API, op.count, {
        operationId: "adminCountCustomers",
        scope: Scope.read_customers,
        tags,
      });
      mount(app, ADMIN_API, op.get, { operationId: "adminGetCustomer", scope: Scope.read_customers, tags });
      mount(app, ADMIN_API, op.create, {
        operationId: "adminCreateCustomer",
        scope: Scope.write_customers,
        tags,
        description: `${CREATE_RULES} ${METADATA_RULES}`,
      });
      mount(app, ADMIN_API, op.update, {
        operationId: "adminUpdateCustomer",
        scope: Scope.write_customers,
        tags,
        description: `${UPDATE_RULES} ${METADATA_RULES}`,
      });
    },
    developer(app) {
      const tags = ["Developer API: customers"];
      mount(app, DEVELOPER_API, op.listByPage, {
        operationId: "developerListCustomers",
        scope: Scope.read_customers,
        tags,
      });
      mount(app, DEVELOPER_API, op.get, {
        operationId: "developerGetCustomer",
        scope: Scope.read_customers,
        tags,
      });
    },
  };
}
