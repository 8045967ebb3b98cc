import { EVENT, METADATA_LIMITS, Scope } from "../../contracts/index.ts";
import type { StoreScope } from "../../contracts/scopes.ts";
import { type RouteSpec, storeOf } from "../../lib/http/api-family.ts";
import { eventName } from "../../lib/http/event-docs.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { CursorPage, Envelope, Params } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { accessOf, adminRoute } from "../admin-api/admin-family.ts";
import { dashboardRoute, StoreParams, storeParams } from "../dashboard-family.ts";
import { developerRoute } from "../developer/developer-family.ts";
import {
  AdminCreateProductBody,
  AdminUpdateProductBody,
  CreateProductBody,
  ProductIdParam,
  ProductListQuery,
  ProductResource,
  UpdateProductBody,
} from "./products-schemas.ts";
import type { ProductService } from "./products-service.ts";

/**
 * Product routes of the dashboard, the Admin API and the developer API. Each route states its
 * method, path, operationId and required scope; what the families share is declared once here.
 * Reads need read_products, writes write_products.
 */
const PRODUCT = {
  list: {
    summary: "List products",
    description:
      "Newest first. With `updatedSince`, oldest change first (for incremental sync). Follow `meta.nextCursor` for more.",
    querystring: ProductListQuery,
    response: { 200: CursorPage(ProductResource) },
  },
  get: {
    summary: "Get a product",
    response: { 200: Envelope(ProductResource) },
    errors: ["NOT_FOUND"],
  },
  create: {
    summary: "Create a product",
    description: `Emits ${eventName(EVENT.productCreated)}.`,
    body: CreateProductBody,
    response: { 201: Envelope(ProductResource, "Created") },
    errors: ["CONFLICT"],
  },
  update: {
    summary: "Update a product",
    description: `Send only the fields to change. Emits ${eventName(EVENT.productUpdated)} when something changed.`,
    body: UpdateProductBody,
    response: { 200: Envelope(ProductResource) },
    errors: ["NOT_FOUND", "CONFLICT"],
  },
  remove: {
    summary: "Delete a product",
    description: `Orders keep their line items' snapshot. Emits ${eventName(EVENT.productDeleted)} with the deleted product.`,
    response: { 200: Envelope(ProductResource, "The deleted product") },
    errors: ["NOT_FOUND"],
  },
} satisfies Record<string, Partial<RouteSpec<StoreScope>>>;

const ProductParams = Params(ProductIdParam);
const METADATA_RULES = `\`metadata\` is your app's own (at most ${METADATA_LIMITS.keys} keys): merged into the pairs it keeps on the product, \`null\` removes a key; other apps never see it.`;

export function registerDashboardProductRoutes(app: App, products: ProductService) {
  const tags = ["Dashboard: products"];
  app.get(
    "/stores/:slug/products",
    dashboardRoute({
      operationId: "dashboardListProducts",
      scope: Scope.read_products,
      tags,
      params: StoreParams,
      ...PRODUCT.list,
    }),
    async (request) => {
      const page = await products.list(storeOf(request), request.query);
      return { success: true as const, data: page.items, meta: page.meta };
    },
  );
  app.get(
    "/stores/:slug/products/:id",
    dashboardRoute({
      operationId: "dashboardGetProduct",
      scope: Scope.read_products,
      tags,
      params: storeParams(ProductIdParam),
      ...PRODUCT.get,
    }),
    async (request) => ({
      success: true as const,
      data: await products.get(storeOf(request), request.params.id),
    }),
  );
  app.post(
    "/stores/:slug/products",
    dashboardRoute({
      operationId: "dashboardCreateProduct",
      scope: Scope.write_products,
      tags,
      params: StoreParams,
      ...PRODUCT.create,
    }),
    async (request, reply) =>
      reply
        .status(201)
        .send({ success: true as const, data: await products.create(storeOf(request), request.body) }),
  );
  app.patch(
    "/stores/:slug/products/:id",
    dashboardRoute({
      operationId: "dashboardUpdateProduct",
      scope: Scope.write_products,
      tags,
      params: storeParams(ProductIdParam),
      ...PRODUCT.update,
    }),
    async (request) => ({
      success: true as const,
      data: await products.update(storeOf(request), request.params.id, request.body),
    }),
  );
  app.delete(
    "/stores/:slug/products/:id",
    dashboardRoute({
      operationId: "dashboardDeleteProduct",
      scope: Scope.write_products,
      tags,
      params: storeParams(ProductIdParam),
      ...PRODUCT.remove,
    }),
    async (request) => ({
      success: true as const,
      data: await products.remove(storeOf(request), request.params.id),
    }),
  );
}

export function registerAdminProductRoutes(app: App, products: ProductService) {
  const tags = ["Admin API: products"];
  const viewer = (request: Parameters<typeof accessOf>[0]) => ({ appId: accessOf(request).appId });
  app.get(
    "/products",
    adminRoute({ operationId: "adminListProducts", scope: Scope.read_products, tags, ...PRODUCT.list }),
    async (request) => {
      const page = await products.list(storeOf(request), request.query, viewer(request));
      return { success: true as const, data: page.items, meta: page.meta };
    },
  );
  app.get(
    "/products/:id",
    adminRoute({
      operationId: "adminGetProduct",
      scope: Scope.read_products,
      tags,
      params: ProductParams,
      ...PRODUCT.get,
    }),
    async (request) => ({
      success: true as const,
      data: await products.get(storeOf(request), request.params.id, viewer(request)),
    }),
  );
  app.post(
    "/products",
    adminRoute({
      operationId: "adminCreateProduct",
      scope: Scope.write_products,
      tags,
      ...PRODUCT.create,
      description: `${PRODUCT.create.description} ${METADATA_RULES}`,
      body: AdminCreateProductBody,
    }),
    async (request, reply) =>
      reply.status(201).send({
        success: true as const,
        data: await products.create(storeOf(request), request.body, viewer(request)),
      }),
  );
  app.patch(
    "/products/:id",
    adminRoute({
      operationId: "adminUpdateProduct",
      scope: Scope.write_products,
      tags,
      params: ProductParams,
      ...PRODUCT.update,
      description: `${PRODUCT.update.description} ${METADATA_RULES}`,
      body: AdminUpdateProductBody,
    }),
    async (request) => ({
      success: true as const,
      data: await products.update(storeOf(request), request.params.id, request.body, viewer(request)),
    }),
  );
  app.delete(
    "/products/:id",
    adminRoute({
      operationId: "adminDeleteProduct",
      scope: Scope.write_products,
      tags,
      params: ProductParams,
      ...PRODUCT.remove,
    }),
    async (request) => ({
      success: true as const,
      data: await products.remove(storeOf(request), request.params.id),
    }),
  );
}

/** The developer API's product routes but its page-numbered list (developer-routes.ts). */
export function registerDeveloperProductRoutes(app: App, products: ProductService) {
  const tags = ["Developer API: products"];
  app.get(
    "/products/:id",
    developerRoute({
      operationId: "developerGetProduct",
      scope: Scope.read_products,
      tags,
      params: ProductParams,
      ...PRODUCT.get,
    }),
    async (request) => ({
      success: true as const,
      data: await products.get(storeOf(request), request.params.id),
    }),
  );
  app.post(
    "/products",
    developerRoute({
      operationId: "developerCreateProduct",
      scope: Scope.write_products,
      tags,
      ...PRODUCT.create,
    }),
    async (request, reply) =>
      reply
        .status(201)
        .send({ success: true as const, data: await products.create(storeOf(request), request.body) }),
  );
  app.patch(
    "/products/:id",
    developerRoute({
      operationId: "developerUpdateProduct",
      scope: Scope.write_products,
      tags,
      params: ProductParams,
      ...PRODUCT.update,
    }),
    async (request) => ({
      success: true as const,
      data: await products.update(storeOf(request), request.params.id, request.body),
    }),
  );
  app.delete(
    "/products/:id",
    developerRoute({
      operationId: "developerDeleteProduct",
      scope: Scope.write_products,
      tags,
      params: ProductParams,
      ...PRODUCT.remove,
    }),
    async (request) => ({
      success: true as const,
      data: await products.remove(storeOf(request), request.params.id),
    }),
  );
}

/** The product routes of every family (platform.ts lists them). */
export function productRoutes(products: ProductService): FeatureRoutes {
  return {
    tags: {
      "Dashboard: products": "A store's catalogue.",
      "Admin API: products":
        "Bearer token with `read_products` / `write_products`. Each app reads and writes its own `metadata` on a product, and only its own.",
      "Developer API: products": "`read_products` to read; `write_products` to create, change and delete.",
    },
    store: (app) => registerDashboardProductRoutes(app, products),
    admin: (app) => registerAdminProductRoutes(app, products),
    developer: (app) => registerDeveloperProductRoutes(app, products),
  };
}
