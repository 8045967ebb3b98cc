import Type from "typebox";
import { type ApiFamily, familyErrors, storeOf } from "../../lib/http/api-family.ts";
import { Envelope, Params, Timestamp } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { ScopeSchema } from "../../lib/scopes.ts";
import { ClientId } from "../apps/apps-schemas.ts";
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

/** The merchant's view of the apps installed in a store, and uninstall. */
export function registerInstallationRoutes(app: App, family: ApiFamily, installations: InstallationService) {
  const tags = ["Dashboard: installed apps"];
  const guard = family.guard("read_products");

  app.get(
    `${family.storePath}/installations`,
    {
      preHandler: guard,
      schema: {
        operationId: "dashboardListInstallations",
        tags,
        summary: "List the apps installed in the store",
        security: family.security,
        params: Params(family.params),
        response: {
          200: Envelope(Type.Array(InstallationResource)),
          ...familyErrors(family),
        },
      },
    },
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
    `${family.storePath}/installations/:clientId`,
    {
      preHandler: guard,
      schema: {
        operationId: "dashboardUninstallApp",
        tags,
        summary: "Uninstall an app",
        description:
          "Every token of the app in this store is revoked at once (401 from then on, on every instance). `app/uninstalled` is delivered to the app's subscriptions for it; then its subscriptions stop. Installing again later starts a new installation; old tokens stay dead.",
        security: family.security,
        params: Params({ ...family.params, clientId: ClientId }),
        response: {
          200: Envelope(Type.Object({ clientId: ClientId, name: Type.String(), uninstalledAt: Timestamp })),
          ...familyErrors(family, "NOT_FOUND"),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await installations.uninstall(storeOf(request), request.params.clientId),
    }),
  );
}
