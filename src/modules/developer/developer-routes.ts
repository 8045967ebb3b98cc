import Type from "typebox";
import { type ApiFamily, storeOf } from "../../lib/http/api-family.ts";
import { Envelope, errorResponses } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { registerProductRoutes } from "../products/products-routes.ts";
import { ProductResource } from "../products/products-schemas.ts";
import type { ProductService } from "../products/products-service.ts";
import { StoreResource, toStoreResource } from "../stores/stores-schemas.ts";

const PageMeta = Type.Object({
  page: Type.Integer({ minimum: 1 }),
  perPage: Type.Integer({ minimum: 1, maximum: 100 }),
  total: Type.Integer({ minimum: 0, description: "Products in the store." }),
  totalPages: Type.Integer({ minimum: 0, description: "0 for an empty store." }),
});

/** The developer API (`/api/v1/developer`, spec 4.4): the store and its products with a key pair. */
export function registerDeveloperRoutes(app: App, family: ApiFamily, products: ProductService) {
  const errors = (...codes: Parameters<typeof errorResponses>) =>
    errorResponses(...family.authErrors, ...codes);

  app.get(
    "/store",
    {
      preHandler: family.guard("read_products"),
      schema: {
        operationId: "developerGetStore",
        tags: ["Developer API: store"],
        summary: "The key's store",
        description: "Needs any key of the store with `read_products`.",
        security: family.security,
        response: { 200: Envelope(StoreResource), ...errors() },
      },
    },
    async (request) => ({ success: true as const, data: toStoreResource(storeOf(request)) }),
  );

  app.get(
    "/products",
    {
      preHandler: family.guard("read_products"),
      schema: {
        operationId: "developerListProducts",
        tags: ["Developer API: products"],
        summary: "List products, page by page",
        description:
          "Newest first. A page past the end answers an empty `data` with the true totals in `meta`.",
        security: family.security,
        querystring: Type.Object(
          {
            page: Type.Integer({
              minimum: 1,
              maximum: 1_000_000,
              default: 1,
              description: "1-based page number.",
            }),
            perPage: Type.Integer({
              minimum: 1,
              maximum: 100,
              default: 20,
              description: "Products per page, 1 to 100.",
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            { success: Type.Literal(true), data: Type.Array(ProductResource), meta: PageMeta },
            {
              examples: [
                {
                  success: true,
                  data: [],
                  meta: { page: 3, perPage: 20, total: 41, totalPages: 3 },
                },
              ],
            },
          ),
          ...errors(),
        },
      },
    },
    async (request) => {
      const page = await products.listByPage(storeOf(request), request.query.page, request.query.perPage);
      return { success: true as const, data: page.items, meta: page.meta };
    },
  );

  registerProductRoutes(app, family, products, { list: false, write: true });
}
