import { EVENT, Scope } from "../../contracts/index.ts";
import { eventName } from "../../lib/http/event-docs.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { CursorPage, Envelope } from "../../lib/http/schemas.ts";
import { ADMIN_API } from "../families/admin-family.ts";
import { DASHBOARD } from "../families/dashboard-family.ts";
import { DEVELOPER_API } from "../families/developer-family.ts";
import { defineOperation, mount } from "../families/operation.ts";
import { ProductResource } from "../products/products-schemas.ts";
import {
  CollectionIdParam,
  CollectionListQuery,
  CollectionProductsQuery,
  CollectionResource,
  CreateCollectionBody,
  SetCollectionProductsBody,
  UpdateCollectionBody,
} from "./collections-schemas.ts";
import type { CollectionService } from "./collections-service.ts";

/**
 * The collection operations (issue 30), each declared once: reads need read_products, writes
 * write_products. The products of a collection are paged like the product list.
 */
export function collectionOperations(collections: CollectionService) {
  return {
    list: defineOperation({
      method: "GET",
      path: "/collections",
      summary: "List collections",
      description: "Newest first (or by title or last change). Follow `meta.nextCursor` for more.",
      querystring: CollectionListQuery,
      response: { 200: CursorPage(CollectionResource) },
      run: async ({ caller, query }) => {
        const page = await collections.list(caller.store, query);
        return { data: page.items, meta: page.meta };
      },
    }),
    get: defineOperation({
      method: "GET",
      path: "/collections/:id",
      params: CollectionIdParam,
      summary: "Get a collection",
      response: { 200: Envelope(CollectionResource) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({ data: await collections.get(caller.store, params.id) }),
    }),
    products: defineOperation({
      method: "GET",
      path: "/collections/:id/products",
      params: CollectionIdParam,
      querystring: CollectionProductsQuery,
      summary: "List a collection's products",
      description:
        "A manual collection's products in its order; an automatic one's (those its rules match now) newest first. Follow `meta.nextCursor` for more.",
      response: { 200: CursorPage(ProductResource) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params, query }) => {
        const page = await collections.products(caller.store, params.id, query, caller.viewer);
        return { data: page.items, meta: page.meta };
      },
    }),
    create: defineOperation({
      method: "POST",
      path: "/collections",
      summary: "Create a collection",
      description: `\`manual\` with its \`productIds\` in order, or \`automatic\` with \`rules\` (tag, title, vendor, product type, price) matched \`all\` or \`any\`. Emits ${eventName(EVENT.collectionCreated)}.`,
      body: CreateCollectionBody,
      response: { 201: Envelope(CollectionResource, "Created") },
      run: async ({ caller, body }) => ({ data: await collections.create(caller.store, body) }),
    }),
    update: defineOperation({
      method: "PATCH",
      path: "/collections/:id",
      params: CollectionIdParam,
      summary: "Update a collection",
      description: `Send only the fields to change (rules and match: an automatic collection's). Emits ${eventName(EVENT.collectionUpdated)} when something changed.`,
      body: UpdateCollectionBody,
      response: { 200: Envelope(CollectionResource) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params, body }) => ({
        data: await collections.update(caller.store, params.id, body),
      }),
    }),
    setProducts: defineOperation({
      method: "PUT",
      path: "/collections/:id/products",
      params: CollectionIdParam,
      summary: "Set a manual collection's products",
      description: `Replaces its products with \`productIds\`, in that order (409 for an automatic collection). Emits ${eventName(EVENT.collectionUpdated)}.`,
      body: SetCollectionProductsBody,
      response: { 200: Envelope(CollectionResource) },
      errors: ["NOT_FOUND", "CONFLICT"],
      run: async ({ caller, params, body }) => ({
        data: await collections.setProducts(caller.store, params.id, body.productIds),
      }),
    }),
    remove: defineOperation({
      method: "DELETE",
      path: "/collections/:id",
      params: CollectionIdParam,
      summary: "Delete a collection",
      description: `Its products stay. Emits ${eventName(EVENT.collectionDeleted)}.`,
      response: { 200: Envelope(CollectionResource, "The deleted collection") },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({ data: await collections.remove(caller.store, params.id) }),
    }),
  };
}

/** The collection routes of every family (platform.ts lists them). */
export function collectionRoutes(collections: CollectionService): FeatureRoutes {
  const op = collectionOperations(collections);
  return {
    tags: {
      "Dashboard: collections": "Manual and automatic collections of products.",
      "Admin API: collections": "Bearer token with `read_products` / `write_products`.",
      "Developer API: collections": "`read_products` to read; `write_products` to write.",
    },
    store(app) {
      const tags = ["Dashboard: collections"];
      mount(app, DASHBOARD, op.list, {
        operationId: "dashboardListCollections",
        scope: Scope.read_products,
        tags,
      });
      mount(app, DASHBOARD, op.get, {
        operationId: "dashboardGetCollection",
        scope: Scope.read_products,
        tags,
      });
      mount(app, DASHBOARD, op.products, {
        operationId: "dashboardListCollectionProducts",
        scope: Scope.read_products,
        tags,
      });
      mount(app, DASHBOARD, op.create, {
        operationId: "dashboardCreateCollection",
        scope: Scope.write_products,
        tags,
      });
      mount(app, DASHBOARD, op.update, {
        operationId: "dashboardUpdateCollection",
        scope: Scope.write_products,
        tags,
      });
      mount(app, DASHBOARD, op.setProducts, {
        operationId: "dashboardSetCollectionProducts",
        scope: Scope.write_products,
        tags,
      });
      mount(app, DASHBOARD, op.remove, {
        operationId: "dashboardDeleteCollection",
        scope: Scope.write_products,
        tags,
      });
    },
    admin(app) {
      const tags = ["Admin API: collections"];
      mount(app, ADMIN_API, op.list, {
        operationId: "adminListCollections",
        scope: Scope.read_products,
        tags,
      });
      mount(app, ADMIN_API, op.get, { operationId: "adminGetCollection", scope: Scope.read_products, tags });
      mount(app, ADMIN_API, op.products, {
        operationId: "adminListCollectionProducts",
        scope: Scope.read_products,
        tags,
      });
      mount(app, ADMIN_API, op.create, {
        operationId: "adminCreateCollection",
        scope: Scope.write_products,
        tags,
      });
      mount(app, ADMIN_API, op.update, {
        operationId: "adminUpdateCollection",
        scope: Scope.write_products,
        tags,
      });
      mount(app, ADMIN_API, op.setProducts, {
        operationId: "adminSetCollectionProducts",
        scope: Scope.write_products,
        tags,
      });
      mount(app, ADMIN_API, op.remove, {
        operationId: "adminDeleteCollection",
        scope: Scope.write_products,
        tags,
      });
    },
    developer(app) {
      const tags = ["Developer API: collections"];
      mount(app, DEVELOPER_API, op.list, {
        operationId: "developerListCollections",
        scope: Scope.read_products,
        tags,
      });
      mount(app, DEVELOPER_API, op.get, {
        operationId: "developerGetCollection",
        scope: Scope.read_products,
        tags,
      });
      mount(app, DEVELOPER_API, op.products, {
        operationId: "developerListCollectionProducts",
        scope: Scope.read_products,
        tags,
      });
    },
  };
}
