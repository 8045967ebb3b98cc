import type { ErrorCode } from "../../lib/errors.ts";
import { type ApiFamily, capitalize, familyErrors, storeOf } from "../../lib/http/api-family.ts";
import { CursorPage, Envelope, Params } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import {
  CreateProductBody,
  ProductIdParam,
  ProductListQuery,
  ProductResource,
  UpdateProductBody,
} from "./products-schemas.ts";
import type { ProductService } from "./products-service.ts";

/** Product routes of one API family. Reads need read_products; writes need write_products. */
export function registerProductRoutes(
  app: App,
  family: ApiFamily,
  products: ProductService,
  options: { list: boolean; write: boolean },
) {
  const tags = [`${family.tag}: products`];
  const op = (name: string) => `${family.operation}${capitalize(name)}`;
  const base = `${family.storePath}/products`;
  const read = family.guard("read_products");
  const write = family.guard("write_products");
  const one = Params({ ...family.params, ...ProductIdParam });
  const errors = (...codes: ErrorCode[]) => familyErrors(family, ...codes);

  if (options.list) {
    app.get(
      base,
      {
        preHandler: read,
        schema: {
          operationId: op("listProducts"),
          tags,
          summary: "List products",
          description:
            "Newest first. With `updatedSince`, oldest change first (for incremental sync). Follow `meta.nextCursor` for more.",
          security: family.security,
          params: Params(family.params),
          querystring: ProductListQuery,
          response: { 200: CursorPage(ProductResource), ...errors() },
        },
      },
      async (request) => {
        const page = await products.list(storeOf(request), request.query);
        return { success: true as const, data: page.items, meta: page.meta };
      },
    );
  }

  app.get(
    `${base}/:id`,
    {
      preHandler: read,
      schema: {
        operationId: op("getProduct"),
        tags,
        summary: "Get a product",
        security: family.security,
        params: one,
        response: { 200: Envelope(ProductResource), ...errors("NOT_FOUND") },
      },
    },
    async (request) => ({
      success: true as const,
      data: await products.get(storeOf(request), request.params.id),
    }),
  );

  if (!options.write) return;

  app.post(
    base,
    {
      preHandler: write,
      schema: {
        operationId: op("createProduct"),
        tags,
        summary: "Create a product",
        description: "Emits `product.created`.",
        security: family.security,
        params: Params(family.params),
        body: CreateProductBody,
        response: { 201: Envelope(ProductResource, "Created"), ...errors("CONFLICT") },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send({ success: true as const, data: await products.create(storeOf(request), request.body) }),
  );

  app.patch(
    `${base}/:id`,
    {
      preHandler: write,
      schema: {
        operationId: op("updateProduct"),
        tags,
        summary: "Update a product",
        description: "Send only the fields to change. Emits `product.updated` when something changed.",
        security: family.security,
        params: one,
        body: UpdateProductBody,
        response: { 200: Envelope(ProductResource), ...errors("NOT_FOUND", "CONFLICT") },
      },
    },
    async (request) => ({
      success: true as const,
      data: await products.update(storeOf(request), request.params.id, request.body),
    }),
  );

  app.delete(
    `${base}/:id`,
    {
      preHandler: write,
      schema: {
        operationId: op("deleteProduct"),
        tags,
        summary: "Delete a product",
        description:
          "Orders keep their line items' snapshot. Emits `product.deleted` with the deleted product.",
        security: family.security,
        params: one,
        response: { 200: Envelope(ProductResource, "The deleted product"), ...errors("NOT_FOUND") },
      },
    },
    async (request) => ({
      success: true as const,
      data: await products.remove(storeOf(request), request.params.id),
    }),
  );
}
