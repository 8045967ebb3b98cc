import type { FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import { EVENT, Scope } from "../../contracts/index.ts";
import { eventName } from "../../lib/http/event-docs.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope, errorResponses } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { currentAccount } from "../accounts/session-auth.ts";
import { ADMIN_API } from "../families/admin-family.ts";
import { storeOf } from "../families/api-family.ts";
import { DASHBOARD, dashboardRoute } from "../families/dashboard-family.ts";
import { DEVELOPER_API } from "../families/developer-family.ts";
import { defineOperation, mount } from "../families/operation.ts";
import {
  CreateStoreBody,
  DashboardStore,
  SlugParams,
  StoreResource,
  toDashboardStore,
  toStoreResource,
  UpdateStoreBody,
} from "./stores-schemas.ts";
import type { StoreService } from "./stores-service.ts";

/** The merchant's stores in the dashboard, outside any one store: create one, list them. */
export function registerAccountStoreRoutes(
  app: App,
  deps: {
    stores: Pick<StoreService, "create" | "listForAccount">;
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
        summary: "List the stores the signed-in account works in",
        description:
          "The stores it owns and those it is staff of, oldest first, each with its role there and the scopes the role holds; other stores are never listed.",
        security,
        response: {
          200: Envelope(Type.Array(DashboardStore, { maxItems: 1000 })),
          ...errorResponses("UNAUTHENTICATED"),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: (await stores.listForAccount(currentAccount(request).id)).map(toDashboardStore),
    }),
  );
}

/**
 * The store a request acts on, as every family reads it: the merchant's, the app's installation's,
 * the key pair's. Read again, not taken from the credential: an access token's cached installation
 * may be a moment older than the settings.
 */
export function storeOperations(stores: StoreService) {
  return {
    get: defineOperation({
      method: "GET",
      path: "/store",
      summary: "Get one of the merchant's stores",
      description: "The store and its settings.",
      response: { 200: Envelope(StoreResource) },
      run: async ({ caller }) => ({ data: toStoreResource(await stores.current(caller.store.id)) }),
    }),
  };
}

/** The dashboard's store settings: one family only. */
export function registerDashboardStoreRoutes(app: App, stores: StoreService) {
  app.patch(
    "/stores/:slug",
    dashboardRoute({
      operationId: "dashboardUpdateStore",
      scope: Scope.manage_store,
      tags: ["Dashboard: stores"],
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

/** The store routes of every family (platform.ts lists them). */
export function storeRoutes(
  stores: StoreService,
  requireSession: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
): FeatureRoutes {
  const op = storeOperations(stores);
  return {
    tags: {
      "Dashboard: stores": "The merchant's stores.",
      "Admin API: store": "Any valid bearer token: the store the app is installed in, with its settings.",
      "Developer API: store":
        "The developer API (`/api/v1/developer`). Send `x-api-key` and `x-api-secret` on every request. Checks, in order: both headers (401 `UNAUTHENTICATED`); the key pair (401 `INVALID_CREDENTIALS`, the same answer for an unknown key, a wrong secret, a revoked or an expired key; repeated failures per key id or IP answer 429); the key's rate limit (429, `X-RateLimit-*` headers on every authenticated answer); the key's scope for the operation (403 `INSUFFICIENT_SCOPE` with `details.requiredScope`; each operation names its scope); the request (400).",
    },
    account: (app) => registerAccountStoreRoutes(app, { stores, requireSession }),
    store(app) {
      mount(app, DASHBOARD, op.get, {
        operationId: "dashboardGetStore",
        scope: "authenticated",
        tags: ["Dashboard: stores"],
      });
      registerDashboardStoreRoutes(app, stores);
    },
    admin(app) {
      mount(app, ADMIN_API, op.get, {
        operationId: "adminGetStore",
        // Whatever the token's scopes, like the developer API's GET /store: an app needs the
        // currency and time zone of the store it works in.
        scope: "authenticated",
        tags: ["Admin API: store"],
        summary: "The store the app is installed in",
        description: `Its name, contact e-mail, address, currency, time zone and order number prefix. ${eventName(EVENT.shopUpdated)} says when they change (every app may subscribe to it).`,
      });
    },
    developer(app) {
      mount(app, DEVELOPER_API, op.get, {
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
                    taxesIncluded: false,
                    taxShipping: false,
                    createdAt: "2026-11-22T10:00:00.000Z",
                    updatedAt: "2026-11-22T10:00:00.000Z",
                  },
                },
              ],
            },
          ),
        },
      });
    },
  };
}
