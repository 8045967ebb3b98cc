import Type from "typebox";
import { Metadata, Scope } from "../../contracts/index.ts";
import { notFound } from "../../lib/errors.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope, Id } from "../../lib/http/schemas.ts";
import { DASHBOARD } from "../families/dashboard-family.ts";
import { defineOperation, mount } from "../families/operation.ts";
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
 * Which apps keep data on a record, and what (the merchant's view of app metadata): one operation
 * per kind of record, each with the record's read scope. Apps never see each other's pairs; the
 * store's owner sees them all.
 */
export function appDataOperations(repo: AppMetadataRepo) {
  const of = (table: MetadataTable, kind: "product" | "order" | "customer", noun: string) =>
    defineOperation({
      method: "GET",
      path: `/${table}/:id/app-data`,
      params: { id: Id(kind) },
      summary: `Which apps keep data on a ${kind}`,
      description: `Each app that keeps metadata on the ${kind} (its own ids and references, written through the Admin API), and its pairs. Apps see only their own.`,
      response: { 200: Envelope(Type.Array(AppData)) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => {
        const all = await repo.of(table, caller.store.id, params.id);
        if (!all) throw notFound(noun);
        const apps = await repo.apps(caller.store.id, appsWithMetadata(all));
        return {
          data: apps
            .map((a) => ({
              app: { clientId: a.client_id, name: a.name, installed: Boolean(a.installed) },
              metadata: { ...all[a.id] },
            }))
            .sort((x, y) => x.app.name.localeCompare(y.app.name)),
        };
      },
    });
  return {
    product: of("products", "product", "Product"),
    order: of("orders", "order", "Order"),
    customer: of("customers", "customer", "Customer"),
  };
}

export function appDataRoutes(repo: AppMetadataRepo): FeatureRoutes {
  const op = appDataOperations(repo);
  return {
    store(app) {
      mount(app, DASHBOARD, op.product, {
        operationId: "dashboardListProductAppData",
        scope: Scope.read_products,
        tags: ["Dashboard: products"],
      });
      mount(app, DASHBOARD, op.order, {
        operationId: "dashboardListOrderAppData",
        scope: Scope.read_orders,
        tags: ["Dashboard: orders"],
      });
      mount(app, DASHBOARD, op.customer, {
        operationId: "dashboardListCustomerAppData",
        scope: Scope.read_customers,
        tags: ["Dashboard: customers"],
      });
    },
  };
}
