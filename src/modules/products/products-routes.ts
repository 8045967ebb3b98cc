import { EVENT, METADATA_LIMITS, ProductStatus, Scope } from "../../contracts/index.ts";
import { eventName } from "../../lib/http/event-docs.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope } from "../../lib/http/schemas.ts";
import { ADMIN_API } from "../families/admin-family.ts";
import { DASHBOARD } from "../families/dashboard-family.ts";
import { DEVELOPER_API } from "../families/developer-family.ts";
import { defineOperation, mount } from "../families/operation.ts";
import { readOperations } from "../families/read-operations.ts";
import { stockActorOf } from "../inventory/inventory-service.ts";
import {
  AdminCreateProductBody,
  AdminUpdateProductBody,
  AdminUpdateVariantBody,
  CreateProductBody,
  ProductIdParam,
  ProductListQuery,
  ProductResource,
  ProductVariantResource,
  UpdateProductBody,
  UpdateVariantBody,
  VariantInput,
  VariantParams,
} from "./products-schemas.ts";
import type { ProductService } from "./products-service.ts";

const METADATA_RULES = `\`metadata\` is your app's own (at most ${METADATA_LIMITS.keys} keys): merged into the pairs it keeps on the product, \`null\` removes a key; other apps never see it.`;

/**
 * The product operations, each declared once: the dashboard, the Admin API and the developer API
 * mount the ones they offer (productRoutes). Reads need read_products, writes write_products. The
 * bodies are an app's (with its `metadata`); the other families mount them with the plain ones.
 */
export function productOperations(products: ProductService) {
  return {
    ...readOperations({
      path: "/products",
      idParam: ProductIdParam,
      resource: ProductResource,
      singular: "product",
      plural: "products",
      pluralTitle: "Products",
      article: "a",
      listQuery: ProductListQuery,
      listDescription:
        "Newest first. With `updatedSince`, oldest change first (for incremental sync). Follow `meta.nextCursor` for more.",
      pageExamples: [
        {
          success: true,
          data: [
            {
              id: "prod_8Kd2Lm4Xq7Rt1Vw9Yz3Bc5",
              title: "Linen shirt",
              description: "Breathable, pre-washed linen.",
              vendor: "Nordic Linen Co.",
              productType: "Shirts",
              tags: ["summer"],
              status: ProductStatus.active,
              options: [{ name: "Size", values: ["M"] }],
              variants: [
                {
                  id: "var_3Jd8Lq2Xm5Rt7Vw1Yz9Bc4",
                  productId: "prod_8Kd2Lm4Xq7Rt1Vw9Yz3Bc5",
                  title: "M",
                  optionValues: ["M"],
                  sku: "SHIRT-LIN-M",
                  barcode: null,
                  price: "19.99",
                  compareAtPrice: null,
                  weightGrams: 240,
                  tracked: true,
                  available: 25,
                  position: 0,
                  createdAt: "2026-11-22T10:00:00.000Z",
                  updatedAt: "2026-11-22T10:00:00.000Z",
                },
              ],
              images: [],
              priceRange: { min: "19.99", max: "19.99" },
              currency: "USD",
              totalAvailable: 25,
              createdAt: "2026-11-22T10:00:00.000Z",
              updatedAt: "2026-11-22T10:00:00.000Z",
            },
          ],
          meta: { page: 3, perPage: 20, total: 41, totalPages: 3 },
        },
        { success: true, data: [], meta: { page: 4, perPage: 20, total: 41, totalPages: 3 } },
      ],
      service: products,
    }),
    create: defineOperation({
      method: "POST",
      path: "/products",
      summary: "Create a product",
      description: `Emits ${eventName(EVENT.productCreated)}.`,
      body: AdminCreateProductBody,
      response: { 201: Envelope(ProductResource, "Created") },
      errors: ["CONFLICT"],
      run: async ({ caller, body }) => ({
        data: await products.create(caller.store, body, stockActorOf(caller.principal), caller.viewer),
      }),
    }),
    update: defineOperation({
      method: "PATCH",
      path: "/products/:id",
      params: ProductIdParam,
      summary: "Update a product",
      description: `Send only the fields to change. \`options\` replaces the options (matched by name); \`variants\` changes existing variants by id. Emits ${eventName(EVENT.productUpdated)} when something changed.`,
      body: AdminUpdateProductBody,
      response: { 200: Envelope(ProductResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params, body }) => ({
        data: await products.update(
          caller.store,
          params.id,
          body,
          stockActorOf(caller.principal),
          caller.viewer,
        ),
      }),
    }),
    remove: defineOperation({
      method: "DELETE",
      path: "/products/:id",
      params: ProductIdParam,
      summary: "Delete a product",
      description: `Orders keep their line items' snapshot. Emits ${eventName(EVENT.productDeleted)} with the deleted product.`,
      response: { 200: Envelope(ProductResource, "The deleted product") },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({ data: await products.remove(caller.store, params.id) }),
    }),
    createVariant: defineOperation({
      method: "POST",
      path: "/products/:id/variants",
      params: ProductIdParam,
      summary: "Add a variant",
      description: `One more combination of the product's option values (a value new to an option is added to it); \`inventoryQuantity\` is its first stock, at the store's first location that fulfils online orders. A product without options has exactly one variant (409). Emits ${eventName(EVENT.productUpdated)}.`,
      body: VariantInput,
      response: { 201: Envelope(ProductVariantResource, "Created") },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params, body }) => ({
        data: await products.createVariant(caller.store, params.id, body, stockActorOf(caller.principal)),
      }),
    }),
    updateVariant: defineOperation({
      method: "PATCH",
      path: "/products/:id/variants/:variantId",
      params: VariantParams,
      summary: "Update a variant",
      description: `Send only the fields to change; stock is written with the inventory operations. Emits ${eventName(EVENT.productUpdated)} when something changed.`,
      body: AdminUpdateVariantBody,
      response: { 200: Envelope(ProductVariantResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params, body }) => ({
        data: await products.updateVariant(caller.store, params.id, params.variantId, body, caller.viewer),
      }),
    }),
    deleteVariant: defineOperation({
      method: "DELETE",
      path: "/products/:id/variants/:variantId",
      params: VariantParams,
      summary: "Delete a variant",
      description: `Its stock records go with it. 409 for the product's only variant, or one on unfulfilled orders. Emits ${eventName(EVENT.productUpdated)}.`,
      response: { 200: Envelope(ProductVariantResource, "The deleted variant") },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params }) => ({
        data: await products.deleteVariant(caller.store, params.id, params.variantId),
      }),
    }),
  };
}

/** The product routes of every family (platform.ts lists them). */
export function productRoutes(products: ProductService): FeatureRoutes {
  const op = productOperations(products);
  return {
    tags: {
      "Dashboard: products": "A store's catalogue.",
      "Admin API: products":
        "Bearer token with `read_products` / `write_products`. Each app reads and writes its own `metadata` on a product and on each variant (`PATCH /products/{id}/variants/{variantId}`), and only its own.",
      "Developer API: products": "`read_products` to read; `write_products` to create, change and delete.",
    },
    store(app) {
      const tags = ["Dashboard: products"];
      mount(app, DASHBOARD, op.list, {
        operationId: "dashboardListProducts",
        scope: Scope.read_products,
        tags,
      });
      mount(app, DASHBOARD, op.count, {
        operationId: "dashboardCountProducts",
        scope: Scope.read_products,
        tags,
      });
      mount(app, DASHBOARD, op.get, { operationId: "dashboardGetProduct", scope: Scope.read_products, tags });
      mount(app, DASHBOARD, op.create, {
        operationId: "dashboardCreateProduct",
        scope: Scope.write_products,
        tags,
        body: CreateProductBody,
      });
      mount(app, DASHBOARD, op.update, {
        operationId: "dashboardUpdateProduct",
        scope: Scope.write_products,
        tags,
        body: UpdateProductBody,
      });
      mount(app, DASHBOARD, op.remove, {
        operationId: "dashboardDeleteProduct",
        scope: Scope.write_products,
        tags,
      });
      mount(app, DASHBOARD, op.createVariant, {
        operationId: "dashboardCreateVariant",
        scope: Scope.write_products,
        tags,
      });
      mount(app, DASHBOARD, op.updateVariant, {
        operationId: "dashboardUpdateVariant",
        scope: Scope.write_products,
        tags,
        body: UpdateVariantBody,
      });
      mount(app, DASHBOARD, op.deleteVariant, {
        operationId: "dashboardDeleteVariant",
        scope: Scope.write_products,
        tags,
      });
    },
    admin(app) {
      const tags = ["Admin API: products"];
      mount(app, ADMIN_API, op.list, { operationId: "adminListProducts", scope: Scope.read_products, tags });
      mount(app, ADMIN_API, op.count, {
        operationId: "adminCountProducts",
        scope: Scope.read_products,
        tags,
      });
      mount(app, ADMIN_API, op.get, { operationId: "adminGetProduct", scope: Scope.read_products, tags });
      mount(app, ADMIN_API, op.create, {
        operationId: "adminCreateProduct",
        scope: Scope.write_products,
        tags,
        description: `${op.create.description} ${METADATA_RULES}`,
      });
      mount(app, ADMIN_API, op.update, {
        operationId: "adminUpdateProduct",
        scope: Scope.write_products,
        tags,
        description: `${op.update.description} ${METADATA_RULES}`,
      });
      mount(app, ADMIN_API, op.remove, {
        operationId: "adminDeleteProduct",
        scope: Scope.write_products,
        tags,
      });
      mount(app, ADMIN_API, op.createVariant, {
        operationId: "adminCreateVariant",
        scope: Scope.write_products,
        tags,
      });
      mount(app, ADMIN_API, op.updateVariant, {
        operationId: "adminUpdateVariant",
        scope: Scope.write_products,
        tags,
      });
      mount(app, ADMIN_API, op.deleteVariant, {
        operationId: "adminDeleteVariant",
        scope: Scope.write_products,
        tags,
      });
    },
    developer(app) {
      const tags = ["Developer API: products"];
      mount(app, DEVELOPER_API, op.listByPage, {
        operationId: "developerListProducts",
        scope: Scope.read_products,
        tags,
      });
      mount(app, DEVELOPER_API, op.get, {
        operationId: "developerGetProduct",
        scope: Scope.read_products,
        tags,
      });
      mount(app, DEVELOPER_API, op.create, {
        operationId: "developerCreateProduct",
        scope: Scope.write_products,
        tags,
        body: CreateProductBody,
      });
      mount(app, DEVELOPER_API, op.update, {
        operationId: "developerUpdateProduct",
        scope: Scope.write_products,
        tags,
        body: UpdateProductBody,
      });
      mount(app, DEVELOPER_API, op.remove, {
        operationId: "developerDeleteProduct",
        scope: Scope.write_products,
        tags,
      });
      mount(app, DEVELOPER_API, op.createVariant, {
        operationId: "developerCreateVariant",
        scope: Scope.write_products,
        tags,
      });
      mount(app, DEVELOPER_API, op.updateVariant, {
        operationId: "developerUpdateVariant",
        scope: Scope.write_products,
        tags,
        body: UpdateVariantBody,
      });
      mount(app, DEVELOPER_API, op.deleteVariant, {
        operationId: "developerDeleteVariant",
        scope: Scope.write_products,
        tags,
      });
    },
  };
}
