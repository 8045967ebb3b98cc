import Type from "typebox";
import { ProductStatus, Scope } from "../../contracts/index.ts";
import { storeOf } from "../../lib/http/api-family.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import type { App } from "../../lib/http/types.ts";
import { ProductResource } from "../products/products-schemas.ts";
import type { ProductService } from "../products/products-service.ts";
import { StoreResource, toStoreResource } from "../stores/stores-schemas.ts";
import { developerRoute } from "./developer-family.ts";
import { Page, PageQuery, pageDescription } from "./developer-pages.ts";

/**
 * The developer API (`/api/v1/developer`, spec 4.4): the store and its products with a key pair.
 * Register inside its own scope, with the developer guard installed on it (installFamilyGuard).
 */
/**
 * The developer API's own routes: the key's store and the page-numbered product list of the spec.
 * The other product routes come with the products feature (products-routes.ts).
 */
export function registerDeveloperRoutes(app: App, products: ProductService) {
  app.get(
    "/store",
    developerRoute({
      operationId: "developerGetStore",
      // Whatever the key's scopes: an integration must be able to tell which store it talks to.
      scope: "authenticated",
      tags: ["Developer API: store"],
      summary: "The key's store",
      description:
        "Any valid key pair of the store, whatever its scopes: it tells an integration which store it is talking to.",
      response: {
        200: Type.Object(
          { success: Type.Literal(true), data: StoreResource },
          {
            description: "Success",
            examples: [
              {
                success: true,
                data: {
                  id: "store_4Fq9Lm2Xb7Kd1Rt8Vw3Yz6",
                  slug: "demo-store",
                  name: "Demo Store",
                  currency: "USD",
                  contactEmail: "hello@demo-store.example",
                  address: null,
                  timeZone: "UTC",
                  orderNumberPrefix: "#",
                  createdAt: "2026-11-22T10:00:00.000Z",
                  updatedAt: "2026-11-22T10:00:00.000Z",
                },
              },
            ],
          },
        ),
      },
    }),
    async (request) => ({ success: true as const, data: toStoreResource(storeOf(request)) }),
  );

  app.get(
    "/products",
    developerRoute({
      operationId: "developerListProducts",
      scope: Scope.read_products,
      tags: ["Developer API: products"],
      summary: "List products, page by page",
      description: pageDescription("products"),
      querystring: PageQuery,
      response: {
        200: Page(ProductResource, "Products", [
          {
            success: true,
            data: [
              {
                id: "prod_8Kd2Lm4Xq7Rt1Vw9Yz3Bc5",
                title: "Linen shirt",
                description: "Breathable, pre-washed linen.",
                price: "19.99",
                currency: "USD",
                sku: "SHIRT-LIN-M",
                stock: 25,
                status: ProductStatus.active,
                createdAt: "2026-11-22T10:00:00.000Z",
                updatedAt: "2026-11-22T10:00:00.000Z",
              },
            ],
            meta: { page: 3, perPage: 20, total: 41, totalPages: 3 },
          },
          { success: true, data: [], meta: { page: 4, perPage: 20, total: 41, totalPages: 3 } },
        ]),
      },
    }),
    async (request) => {
      const page = await products.listByPage(storeOf(request), request.query.page, request.query.perPage);
      return { success: true as const, data: page.items, meta: page.meta };
    },
  );
}

/** The developer API's own routes (platform.ts lists them). */
export function developerRoutes(products: ProductService): FeatureRoutes {
  return {
    tags: {
      "Developer API: store":
        "The developer API (`/api/v1/developer`). Send `x-api-key` and `x-api-secret` on every request. Checks, in order: both headers (401 `UNAUTHENTICATED`); the key pair (401 `INVALID_CREDENTIALS`, the same answer for an unknown key, a wrong secret, a revoked or an expired key; repeated failures per key id or IP answer 429); the key's rate limit (429, `X-RateLimit-*` headers on every authenticated answer); the key's scope for the operation (403 `INSUFFICIENT_SCOPE` with `details.requiredScope`; each operation names its scope); the request (400).",
    },
    developer: (app) => registerDeveloperRoutes(app, products),
  };
}
