import Type from "typebox";
import { Metadata, Scope } from "../../contracts/index.ts";
import { type ErrorCode, notFound } from "../../lib/errors.ts";
import { storeOf } from "../../lib/http/api-family.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope, Id } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { dashboardRoute, storeParams } from "../families/dashboard-family.ts";
import { appsWithMetadata } from "./app-metadata.ts";
import type { AppMetadataRepo, MetadataTable } from "./app-metadata-repo.ts";

/** One app's data on a record, as the merchant sees it. */
const AppData = Type.Object(
  {
    app: Type.Object({
      clientId: Type.String(),
      name: Type.String(),
      installed: Type.Boolean({
        description: "Whether the app is installed in the store now (an uninstalled app's pairs stay).",
      }),
    }),
    metadata: {
      ...Metadata,
      description: "The app's key-value pairs on this record (its own ids and references).",
    },
  },
  { title: "AppData" },
);

/**
 * Which apps keep data on a record, and what (the merchant's view of app metadata): one route per
 * kind of record, each with the record's read scope. Apps never see each other's pairs; the store's
 * owner sees them all.
 */
export function registerAppDataRoutes(app: App, repo: AppMetadataRepo) {
  const answer = async (table: MetadataTable, noun: string, storeId: string, id: string) => {
    const all = await repo.of(table, storeId, id);
    if (!all) throw notFound(noun);
    const apps = await repo.apps(storeId, appsWithMetadata(all));
    return apps
      .map((a) => ({
        app: { clientId: a.client_id, name: a.name, installed: Boolean(a.installed) },
        metadata: { ...all[a.id] },
      }))
      .sort((x, y) => x.app.name.localeCompare(y.app.name));
  };
  const spec = (noun: string) => ({
    summary: `Which apps keep data on a ${noun}`,
    description: `Each app that keeps metadata on the ${noun} (its own ids and references, written through the Admin API), and its pairs. Apps see only their own.`,
    response: { 200: Envelope(Type.Array(AppData)) },
    errors: ["NOT_FOUND"] as ErrorCode[],
  });

  app.get(
    "/stores/:slug/products/:id/app-data",
    dashboardRoute({
      operationId: "dashboardListProductAppData",
      scope: Scope.read_products,
      tags: ["Dashboard: products"],
      params: storeParams({ id: Id("product") }),
      ...spec("product"),
    }),
    async (request) => ({
      success: true as const,
      data: await answer("products", "Product", storeOf(request).id, request.params.id),
    }),
  );
  app.get(
    "/stores/:slug/orders/:id/app-data",
    dashboardRoute({
      operationId: "dashboardListOrderAppData",
      scope: Scope.read_orders,
      tags: ["Dashboard: orders"],
      params: storeParams({ id: Id("order") }),
      ...spec("order"),
    }),
    async (request) => ({
      success: true as const,
      data: await answer("orders", "Order", storeOf(request).id, request.params.id),
    }),
  );
  app.get(
    "/stores/:slug/customers/:id/app-data",
    dashboardRoute({
      operationId: "dashboardListCustomerAppData",
      scope: Scope.read_customers,
      tags: ["Dashboard: customers"],
      params: storeParams({ id: Id("customer") }),
      ...spec("customer"),
    }),
    async (request) => ({
      success: true as const,
      data: await answer("customers", "Customer", storeOf(request).id, request.params.id),
    }),
  );
}

export function appDataRoutes(repo: AppMetadataRepo): FeatureRoutes {
  return { store: (app) => registerAppDataRoutes(app, repo) };
}
