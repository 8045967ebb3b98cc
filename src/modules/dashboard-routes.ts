import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Type from "typebox";
import { AppError } from "../lib/errors.ts";
import { installFamilyGuard } from "../lib/http/api-family.ts";
import { Envelope, errorResponses } from "../lib/http/schemas.ts";
import type { App } from "../lib/http/types.ts";
import type { Platform } from "../platform.ts";
import { registerAccountRoutes } from "./accounts/accounts-routes.ts";
import { currentAccount } from "./accounts/session-auth.ts";
import { registerAppRoutes } from "./apps/apps-routes.ts";
import { createDashboardGuard } from "./dashboard-family.ts";
import { CreateStoreBody, StoreResource, toStoreResource } from "./stores/stores-schemas.ts";

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The merchant dashboard API (`/api/v1/dashboard`), authenticated by the session cookie. A merchant
 * reaches only the stores they own; any other slug is 404.
 */
export function registerDashboardRoutes(app: App, platform: Platform) {
  const { services, requireSession } = platform;

  // CSRF guard: with SameSite=Lax cookies, a cross-site page can still POST a form; it cannot send
  // application/json without a CORS preflight, which this service never grants.
  app.addHook("onRequest", async (request) => {
    if (!STATE_CHANGING.has(request.method)) return;
    const type = request.headers["content-type"] ?? "";
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      throw new AppError("UNSUPPORTED_MEDIA_TYPE", {
        message: "State-changing dashboard requests must send Content-Type: application/json.",
      });
    }
  });

  registerAccountRoutes(app, {
    accounts: services.accounts,
    requireSession,
    secureCookies: platform.config.PUBLIC_BASE_URL.startsWith("https://"),
  });

  const security = [{ sessionCookie: [] }];

  app.post(
    "/stores",
    {
      preHandler: requireSession,
      schema: {
        operationId: "dashboardCreateStore",
        tags: ["Dashboard: stores"],
        summary: "Create a store",
        security,
        body: CreateStoreBody,
        response: {
          201: Envelope(StoreResource, "Created"),
          ...errorResponses("UNAUTHENTICATED", "CONFLICT"),
        },
      },
    },
    async (request, reply) => {
      const store = await services.stores.create(currentAccount(request).id, request.body);
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
        security,
        response: { 200: Envelope(Type.Array(StoreResource)), ...errorResponses("UNAUTHENTICATED") },
      },
    },
    async (request) => ({
      success: true as const,
      data: (await services.stores.listOwned(currentAccount(request).id)).map(toStoreResource),
    }),
  );

  registerAppRoutes(app, {
    apps: platform.integration.apps,
    uninstallEverywhere: platform.integration.installations.uninstallEverywhere,
    requireSession,
  });

  // A store's routes (`/stores/:slug/...`), in their own scope so that the guard (session, a store
  // the account owns, the route's scope) runs on each of them and every one must declare its scope.
  app.register(async (scope) => {
    const store = scope.withTypeProvider<TypeBoxTypeProvider>();
    installFamilyGuard(store, createDashboardGuard({ requireSession, stores: services.stores }));
    for (const feature of platform.routes) feature.store?.(store);
  });
}
