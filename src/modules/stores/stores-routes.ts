import type { FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import { EVENT, Scope } from "../../contracts/index.ts";
import { storeOf } from "../../lib/http/api-family.ts";
import { eventName } from "../../lib/http/event-docs.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope, errorResponses } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { currentAccount } from "../accounts/session-auth.ts";
import { adminRoute } from "../admin-api/admin-family.ts";
import { dashboardRoute } from "../dashboard-family.ts";
import {
  CreateStoreBody,
  SlugParams,
  StoreResource,
  toStoreResource,
  UpdateStoreBody,
} from "./stores-schemas.ts";
import type { StoreService } from "./stores-service.ts";

/** The merchant's stores in the dashboard, outside any one store: create one, list them. */
export function registerAccountStoreRoutes(
  app: App,
  deps: {
    stores: Pick<StoreService, "create" | "listOwned">;
    requireSession: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  },
) {
  const { stores, requireSession } = deps;
  const security = [{ sessionCookie: [] }];

  app.post(
    "/stores",
    {
      preHandler: requireSession,
      schema: {
        operationId: "dashboardCreateStore",
        tags: ["Dashboard: stores"],
        summary: "Create a store",
        description:
          "The signed-in merchant owns the new store. Its slug is its address in the dashboard and in every API path, unique across the platform: a taken or reserved slug is 409 `CONFLICT` on `slug`. The currency (ISO 4217, default USD) is the one every price of the store is in.",
        security,
        body: CreateStoreBody,
        response: {
          201: Envelope(StoreResource, "Created"),
          ...errorResponses("UNAUTHENTICATED", "CONFLICT"),
        },
      },
    },
    async (request, reply) => {
      const store = await stores.create(currentAccount(request).id, request.body);
      return reply.status(201).send({ success: true as const, data: toStoreResource(store) });
    },
  );

  app.get(
    "/stores",
    {
      preHandler: requireSession,
      schema: {
        operationId: "dashboardListStores",
        tags: ["Dashboard: stores"],
        summary: "List the stores the signed-in merchant owns",
        description: "Oldest first; another merchant's stores are never listed.",
        security,
        response: { 200: Envelope(Type.Array(StoreResource)), ...errorResponses("UNAUTHENTICATED") },
      },
    },
    async (request) => ({
      success: true as const,
      data: (await stores.listOwned(currentAccount(request).id)).map(toStoreResource),
    }),
  );
}

/**
 * A store's own page and settings in the dashboard, and the store an app is installed in. (The
 * developer API's `GET /store` is in developer-routes.ts.)
 */
export function registerDashboardStoreRoutes(app: App, stores: StoreService) {
  const tags = ["Dashboard: stores"];
  app.get(
    "/stores/:slug",
    dashboardRoute({
      operationId: "dashboardGetStore",
      scope: "authenticated",
      tags,
      summary: "Get one of the merchant's stores",
      description: "The store and its settings.",
      params: SlugParams,
      response: { 200: Envelope(StoreResource) },
    }),
    async (request) => ({ success: true as const, data: toStoreResource(storeOf(request)) }),
  );
  app.patch(
    "/stores/:slug",
    dashboardRoute({
      operationId: "dashboardUpdateStore",
      scope: Scope.manage_store,
      tags,
      summary: "Change the store's settings",
      description: `Send only what changes: name, contact e-mail, address, currency, time zone, order number prefix. Emits ${eventName(EVENT.shopUpdated)} when something changed; a change to nothing emits nothing. The currency changes only while the store has no orders (409 \`CONFLICT\` after): every order stays in the currency it was placed in. New orders take the prefix in force when they are placed.`,
      params: SlugParams,
      body: UpdateStoreBody,
      response: { 200: Envelope(StoreResource) },
      errors: ["CONFLICT"],
    }),
    async (request) => ({
      success: true as const,
      data: await stores.updateSettings(storeOf(request), request.body),
    }),
  );
}

export function registerAdminStoreRoutes(app: App, stores: StoreService) {
  app.get(
    "/store",
    adminRoute({
      operationId: "adminGetStore",
      // Whatever the token's scopes, like the developer API's GET /store: an app needs the
      // currency and time zone of the store it works in.
      scope: "authenticated",
      tags: ["Admin API: store"],
      summary: "The store the app is installed in",
      description: `Its name, contact e-mail, address, currency, time zone and order number prefix. ${eventName(EVENT.shopUpdated)} says when they change (every app may subscribe to it).`,
      response: { 200: Envelope(StoreResource) },
    }),
    async (request) => ({
      success: true as const,
      data: toStoreResource(await stores.current(storeOf(request).id)),
    }),
  );
}

/** The store routes of every family (platform.ts lists them). */
export function storeRoutes(
  stores: StoreService,
  requireSession: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
): FeatureRoutes {
  return {
    tags: {
      "Dashboard: stores": "The merchant's stores.",
      "Admin API: store": "Any valid bearer token: the store the app is installed in, with its settings.",
    },
    account: (app) => registerAccountStoreRoutes(app, { stores, requireSession }),
    store: (app) => registerDashboardStoreRoutes(app, stores),
    admin: (app) => registerAdminStoreRoutes(app, stores),
  };
}
