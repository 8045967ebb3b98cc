import Type from "typebox";
import { Scope } from "../../contracts/index.ts";
import { ScopeSchema } from "../../contracts/scopes.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope, Timestamp } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { ClientId } from "../apps/apps-schemas.ts";
import { storeOf } from "../families/api-family.ts";
import { dashboardRoute, StoreParams, storeParams } from "../families/dashboard-family.ts";
import type { InstallationService } from "./installations-service.ts";

const InstallationResource = Type.Object(
  {
    clientId: ClientId,
    appName: Type.String(),
    scopes: Type.Array(ScopeSchema),
    installedAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: "Installation" },
);

/** The merchant's view of the apps installed in a store, and uninstall (scope manage_installations). */
export function registerInstallationRoutes(app: App, installations: InstallationService) {
  const tags = ["Dashboard: installed apps"];

  app.get(
    "/stores/:slug/installations",
    dashboardRoute({
      operationId: "dashboardListInstallations",
      scope: Scope.manage_installations,
      tags,
      summary: "List the apps installed in the store",
      params: StoreParams,
      response: { 200: Envelope(Type.Array(InstallationResource)) },
    }),
    async (request) => ({
      success: true as const,
      data: (await installations.list(storeOf(request))).map((i) => ({
        clientId: i.client_id,
        appName: i.name,
        scopes: i.scopes,
        installedAt: i.created_at.toISOString(),
        updatedAt: i.updated_at.toISOString(),
      })),
    }),
  );

  app.delete(
    "/stores/:slug/installations/:clientId",
    dashboardRoute({
      operationId: "dashboardUninstallApp",
      scope: Scope.manage_installations,
      tags,
      summary: "Uninstall an app",
      description:
        "Every token of the app in this store is revoked at once (401 from then on, on every instance). `app/uninstalled` is delivered to the app's subscriptions for it; then its subscriptions stop. Installing again later starts a new installation; old tokens stay dead.",
      params: storeParams({ clientId: ClientId }),
      response: {
        200: Envelope(Type.Object({ clientId: ClientId, name: Type.String(), uninstalledAt: Timestamp })),
      },
      errors: ["NOT_FOUND"],
    }),
    async (request) => {
      const store = storeOf(request);
      const data = await installations.uninstall(store, request.params.clientId);
      request.log.info({ store: store.slug, clientId: data.clientId }, `app ${data.name} uninstalled`);
      return { success: true as const, data };
    },
  );
}

export function installationRoutes(installations: InstallationService): FeatureRoutes {
  return {
    tags: { "Dashboard: installed apps": "Apps installed in a store; uninstall." },
    store: (app) => registerInstallationRoutes(app, installations),
  };
}
