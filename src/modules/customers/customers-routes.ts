import type { ErrorCode } from "../../lib/errors.ts";
import { type ApiFamily, capitalize, familyErrors, storeOf } from "../../lib/http/api-family.ts";
import { CursorPage, Envelope, Params } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import {
  CreateCustomerBody,
  CustomerIdParam,
  CustomerListQuery,
  CustomerResource,
} from "./customers-schemas.ts";
import type { CustomerService } from "./customers-service.ts";

export function registerCustomerRoutes(
  app: App,
  family: ApiFamily,
  customers: CustomerService,
  options: { write: boolean },
) {
  const tags = [`${family.tag}: customers`];
  const op = (name: string) => `${family.operation}${capitalize(name)}`;
  const base = `${family.storePath}/customers`;
  const read = family.guard("read_customers");
  const errors = (...codes: ErrorCode[]) => familyErrors(family, ...codes);

  app.get(
    base,
    {
      preHandler: read,
      schema: {
        operationId: op("listCustomers"),
        tags,
        summary: "List customers",
        description:
          "Newest first; with `updatedSince`, oldest change first. Follow `meta.nextCursor` for more.",
        security: family.security,
        params: Params(family.params),
        querystring: CustomerListQuery,
        response: { 200: CursorPage(CustomerResource), ...errors() },
      },
    },
    async (request) => {
      const page = await customers.list(storeOf(request), request.query);
      return { success: true as const, data: page.items, meta: page.meta };
    },
  );

  app.get(
    `${base}/:id`,
    {
      preHandler: read,
      schema: {
        operationId: op("getCustomer"),
        tags,
        summary: "Get a customer",
        security: family.security,
        params: Params({ ...family.params, ...CustomerIdParam }),
        response: { 200: Envelope(CustomerResource), ...errors("NOT_FOUND") },
      },
    },
    async (request) => ({
      success: true as const,
      data: await customers.get(storeOf(request), request.params.id),
    }),
  );

  if (!options.write) return;
  app.post(
    base,
    {
      preHandler: family.guard("read_customers"),
      schema: {
        operationId: op("createCustomer"),
        tags,
        summary: "Create a customer",
        description: "E-mail addresses are unique per store, case-insensitively. Emits `customer.created`.",
        security: family.security,
        params: Params(family.params),
        body: CreateCustomerBody,
        response: { 201: Envelope(CustomerResource, "Created"), ...errors("CONFLICT") },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send({ success: true as const, data: await customers.create(storeOf(request), request.body) }),
  );
}
