import Type, { type Static, type TSchema } from "typebox";
import {
  CustomerResource,
  InventoryLevelResource,
  OrderResource,
  ProductResource,
  Scope,
} from "../../contracts/index.ts";
import type { StoreScope } from "../../contracts/scopes.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { CursorQuery, Id } from "../../lib/http/schemas.ts";
import type { ExportWindow } from "../../lib/pagination.ts";
import type { CustomerService } from "../customers/customers-service.ts";
import { ADMIN_API } from "../families/admin-family.ts";
import type { RouteSpec } from "../families/api-family.ts";
import { DASHBOARD } from "../families/dashboard-family.ts";
import { DEVELOPER_API } from "../families/developer-family.ts";
import { type Caller, defineOperation, mount } from "../families/operation.ts";
import {
  CUSTOMER_COLUMNS,
  customerRow,
  ORDER_COLUMNS,
  orderRows,
  PRODUCT_COLUMNS,
  productRows,
} from "../imports/csv-columns.ts";
import { writeCsv } from "../imports/csv-text.ts";
import type { InventoryService } from "../inventory/inventory-service.ts";
import type { OrderService } from "../orders/orders-service.ts";
import type { ProductService } from "../products/products-service.ts";
import { acceptsGzip, EXPORT_RESOURCES, type ExportResource } from "./export-position.ts";
import type { ExportFormat, ExportLimits, ExportService } from "./exports-service.ts";

export const CSV_CONTENT_TYPE = "text/csv";

export const EXPORT_CONTENT_TYPE = "application/x-ndjson";

/** The response headers of an export, beside the rate limit's. */
const EXPORT_HEADERS = {
  "X-Export-Snapshot": {
    type: "string",
    description:
      "The export's snapshot, opaque: to resume after a dropped connection, send it as `snapshot` with `after` = the `id` of the last complete line received.",
  },
  "X-Export-As-Of": {
    type: "string",
    format: "date-time",
    description:
      "The snapshot time: records created after it are not exported. For the next incremental sync, pass a little less (5 minutes) as `updatedSince`.",
  },
  "Content-Encoding": {
    type: "string",
    enum: ["gzip"],
    description: "`gzip` when the request's `Accept-Encoding` accepts it; absent otherwise.",
  },
};

function exportQuery(resource: ExportResource) {
  return Type.Object(
    {
      ...(resource === "inventory"
        ? {
            locationId: Type.Optional(
              Id(
                "location",
                "Only the levels at this location (404 when the store has no such location). Carried by the snapshot: leave it out when resuming.",
              ),
            ),
          }
        : {}),
      updatedSince: CursorQuery.updatedSince,
      snapshot: Type.Optional(
        Type.String({
          maxLength: 200,
          description:
            "Resume: the `X-Export-Snapshot` of the export to continue (it carries that export's snapshot time and `updatedSince`).",
        }),
      ),
      after: Type.Optional(
        Id(
          EXPORT_RESOURCES[resource],
          "Resume: the `id` of the last complete line received; the export continues with the records after it. Only with `snapshot`.",
        ),
      ),
    },
    { additionalProperties: false },
  );
}

const NOUN: Record<ExportResource, string> = {
  products: "product",
  orders: "order (with its line items)",
  customers: "customer",
  inventory: "stock level (a variant's quantities at a location)",
};

/** What the export routes of one resource share in both families; each route states the rest. */
function exportSpec(resource: ExportResource, item: TSchema, listOperation: string, limits: ExportLimits) {
  return {
    summary: `Export every ${NOUN[resource]} as JSON Lines`,
    description: [
      `The store's ${resource} in one streamed response, \`${EXPORT_CONTENT_TYPE}\`: one JSON object per line, each exactly an item of \`${listOperation}\` for this caller (the same fields; an app's own \`metadata\` too, as in its lists), in ascending \`id\` order. \`updatedSince\` keeps only records changed at or after it. gzip when \`Accept-Encoding\` accepts it.`,
      "",
      "**One consistent snapshot**: the export includes every record created at or before its snapshot time (`X-Export-As-Of`) that still exists when the export reaches it, each exactly once, in the state committed when it was read; records created after the snapshot time are left out, and a record changed while the export runs is not read again. This holds across resumes too. Not promised: one instant for all records (a record is read when the export reaches its id).",
      "",
      "**Resume** after a dropped connection: call again with `snapshot` (the `X-Export-Snapshot` header) and `after` (the `id` of the last complete line): the export goes on from there, nothing twice, nothing missed. A response that ends without its final chunk (the connection cut, or the server failing mid-way) is incomplete: resume it; a complete response ends normally. Errors before the first line are the usual error envelope.",
      "",
      `**Limits**: each request counts once against the rate limit, whatever its size. At most ${limits.perHolder} exports run at once per app installation or key pair, ${limits.perStore} per store (all its apps and key pairs) and ${limits.perAccount} per merchant account (all its stores), over every server, and each server runs a bounded number; past any of these, 429 \`RATE_LIMITED\` with \`Retry-After\` (the message names the bound). Records are read as you read them: a batch (about ${Math.round(limits.batchChars / 1024)} KiB of JSON Lines) is read when you have taken the one before, and an export from which nothing is taken for ${Math.round(limits.idleMs / 1000)} s is cut (resume it). The credential is checked again before every batch: once it is revoked or expires, nothing more is read and the response is cut.`,
    ].join("\n"),
    querystring: exportQuery(resource),
    response: {
      200: Type.Unsafe<string>({
        description: `JSON Lines: one \`${(item as { title?: string }).title}\` per line.`,
        content: { [EXPORT_CONTENT_TYPE]: { schema: item } },
        headers: EXPORT_HEADERS,
      }),
    },
  } satisfies Partial<RouteSpec<StoreScope>>;
}

/** Whose bound an export counts against: the installation or the key pair that asks. */
function holderOf(caller: Caller): string {
  const who = caller.principal;
  if (who.kind === "app") return `install:${who.installationId}`;
  if (who.kind === "key") return `apikey:${who.keyId}`;
  // Not `account:`: that is the per-account pool, which the merchant's export counts against too.
  return `dashboard:${who.id}`;
}

/**
 * Bulk export operations: `GET /export/{products,orders,customers,inventory}`, mounted on the Admin API and
 * the developer API. One literal route per resource and family, each with its operationId and the
 * resource's read scope, so the guard refuses a missing scope (403) before anything else, as
 * everywhere; an unknown resource is the family's 404.
 */
export function exportOperations(deps: {
  exports: ExportService;
  products: Pick<ProductService, "exportBatch">;
  orders: Pick<OrderService, "exportBatch">;
  customers: Pick<CustomerService, "exportBatch">;
  inventory: Pick<InventoryService, "exportBatch">;
  /** Records per batch of an order export (each comes with its line items). */
  orderBatchRows: number;
  /** A record brought to the caller's API version (modules/versions), as an answer's would be. */
  renderAt(apiVersion: string | null, schema: TSchema, record: unknown): unknown;
}) {
  const { exports } = deps;
  /** One resource's export: the list it mirrors (`listOperation`, named in the description) and how a batch is read. */
  function exportOf<T extends { id: string }>(
    resource: ExportResource,
    item: TSchema,
    listOperation: string,
    read: (caller: Caller, window: ExportWindow) => Promise<T[]>,
    batchRows?: number,
  ) {
    return defineOperation({
      method: "GET",
      path: `/export/${resource}`,
      ...exportSpec(resource, item, listOperation, exports.limits),
      run: async ({ caller, query, request, reply }) => {
        const gzip = acceptsGzip(request.headers["accept-encoding"]);
        const started = await exports.start({
          resource,
          store: caller.store,
          holder: holderOf(caller),
          // The inventory export's `locationId` (the others' schemas have none).
          query: { ...query, locationId: "locationId" in query ? (query.locationId as string) : undefined },
          gzip,
          // The guard has checked the credential; the export checks it again before every batch.
          stillAllowed: caller.stillAllowed,
          // Each line is exactly the list's item for this caller, at this caller's version.
          read: async (window: ExportWindow) =>
            (await read(caller, window)).map((record) => deps.renderAt(caller.apiVersion, item, record) as T),
          ...(batchRows ? { batchRows } : {}),
        });
        reply
          .header("content-type", `${EXPORT_CONTENT_TYPE}; charset=utf-8`)
          .header("cache-control", "no-store")
          .header("vary", "accept-encoding")
          // Proxies must pass lines on as they come, not hold the response.
          .header("x-accel-buffering", "no")
          .header("x-export-snapshot", started.token)
          .header("x-export-as-of", started.snapshot.asOf.toISOString());
        if (gzip) reply.header("content-encoding", "gzip");
        return reply.send(started.body);
      },
    });
  }
  /**
   * The dashboard's CSV download of one resource: the bulk export's path (its slots and per-store
   * bounds, its batches read as the browser takes them), written as CSV rows of the columns the
   * import reads (imports/csv-columns.ts), every cell guarded against formulas.
   */
  function csvOf<T extends { id: string }>(
    resource: ExportResource,
    columns: readonly string[],
    rowsOf: (record: T) => Array<Array<string | number | boolean | null>>,
    read: (caller: Caller, window: ExportWindow) => Promise<T[]>,
    batchRows?: number,
  ) {
    const format: ExportFormat<T> = {
      head: writeCsv([columns]),
      encode: (batch) => writeCsv(batch.flatMap(rowsOf)),
    };
    return defineOperation({
      method: "GET",
      path: `/export/${resource}.csv`,
      summary: `Download every ${NOUN[resource]} as CSV`,
      description: `The store's ${resource} as one CSV file (UTF-8, a header row, CRLF line ends), streamed as it is read: the bulk export's batches and bounds (at most ${exports.limits.perStore} exports at once per store, 429 \`RATE_LIMITED\` past it). Text a spreadsheet would run as a formula (starting with = + - @, a tab or a carriage return) is written with a leading apostrophe. Columns: ${columns.join(", ")}.`,
      response: {
        200: Type.Unsafe<string>({
          description: "CSV, a header row first.",
          content: { [CSV_CONTENT_TYPE]: { schema: { type: "string" } } },
        }),
      },
      errors: ["RATE_LIMITED"],
      run: async ({ caller, reply }) => {
        const started = await exports.start({
          resource,
          store: caller.store,
          holder: holderOf(caller),
          query: {},
          gzip: false,
          // The guard checked the session and the store at the start; the store's ownership is
          // what a later batch could lose, and the merchant's own download ends with the tab.
          stillAllowed: async () => {},
          read: (window: ExportWindow) => read(caller, window),
          format,
          ...(batchRows ? { batchRows } : {}),
        });
        const day = started.snapshot.asOf.toISOString().slice(0, 10);
        reply
          .header("content-type", `${CSV_CONTENT_TYPE}; charset=utf-8`)
          .header("content-disposition", `attachment; filename="${caller.store.slug}-${resource}-${day}.csv"`)
          .header("cache-control", "no-store")
          .header("x-accel-buffering", "no");
        return reply.send(started.body);
      },
    });
  }
  return {
    csv: {
      products: csvOf("products", PRODUCT_COLUMNS, productRows, (caller, window) =>
        deps.products.exportBatch(caller.store, window),
      ),
      orders: csvOf(
        "orders",
        ORDER_COLUMNS,
        orderRows,
        (caller, window) => deps.orders.exportBatch(caller.store, window),
        deps.orderBatchRows,
      ),
      customers: csvOf<Static<typeof CustomerResource>>(
        "customers",
        CUSTOMER_COLUMNS,
        (c) => [customerRow(c)],
        (caller, window) => deps.customers.exportBatch(caller.store, window),
      ),
    },
    products: exportOf("products", ProductResource, "adminListProducts", (caller, window) =>
      deps.products.exportBatch(caller.store, window, caller.viewer),
    ),
    orders: exportOf(
      "orders",
      OrderResource,
      "adminListOrders",
      (caller, window) => deps.orders.exportBatch(caller.store, window, caller.viewer),
      deps.orderBatchRows,
    ),
    customers: exportOf("customers", CustomerResource, "adminListCustomers", (caller, window) =>
      deps.customers.exportBatch(caller.store, window, caller.viewer),
    ),
    inventory: exportOf("inventory", InventoryLevelResource, "adminListInventoryLevels", (caller, window) =>
      deps.inventory.exportBatch(caller.store, window),
    ),
    /** What the developer API's description says instead: its own list operations. */
    developerDescription: (resource: ExportResource, item: TSchema, listOperation: string) =>
      exportSpec(resource, item, listOperation, exports.limits).description,
  };
}

/** The export routes of the Admin API and the developer API (platform.ts lists them). */
export function exportRoutes(deps: Parameters<typeof exportOperations>[0]): FeatureRoutes {
  const op = exportOperations(deps);
  return {
    tags: {
      "Admin API: export":
        "Bulk export: every product, order, customer or stock level (of one location or all) of the store as JSON Lines in one streamed response (the read scope of the resource), each line exactly an item of the resource's list; resumable after a dropped connection. See the operation's description.",
      "Developer API: export":
        "Bulk export with a key pair: every product, order, customer or stock level as JSON Lines (the key's read scope of the resource), as the Admin API's export.",
    },
    store(app) {
      app.addHook("preClose", async () => deps.exports.closeAll());
      const tags = ["Dashboard: import and export"];
      mount(app, DASHBOARD, op.csv.products, {
        operationId: "dashboardExportProductsCsv",
        scope: Scope.read_products,
        tags,
      });
      mount(app, DASHBOARD, op.csv.orders, {
        operationId: "dashboardExportOrdersCsv",
        scope: Scope.read_orders,
        tags,
      });
      mount(app, DASHBOARD, op.csv.customers, {
        operationId: "dashboardExportCustomersCsv",
        scope: Scope.read_customers,
        tags,
      });
    },
    admin(app) {
      // An export is a long request: stop them before the server closes (the client resumes).
      app.addHook("preClose", async () => deps.exports.closeAll());
      const tags = ["Admin API: export"];
      mount(app, ADMIN_API, op.products, {
        operationId: "adminExportProducts",
        scope: Scope.read_products,
        tags,
      });
      mount(app, ADMIN_API, op.orders, { operationId: "adminExportOrders", scope: Scope.read_orders, tags });
      mount(app, ADMIN_API, op.customers, {
        operationId: "adminExportCustomers",
        scope: Scope.read_customers,
        tags,
      });
      mount(app, ADMIN_API, op.inventory, {
        operationId: "adminExportInventory",
        scope: Scope.read_inventory,
        tags,
      });
    },
    developer(app) {
      app.addHook("preClose", async () => deps.exports.closeAll());
      const tags = ["Developer API: export"];
      mount(app, DEVELOPER_API, op.products, {
        operationId: "developerExportProducts",
        scope: Scope.read_products,
        tags,
        description: op.developerDescription("products", ProductResource, "developerListProducts"),
      });
      mount(app, DEVELOPER_API, op.orders, {
        operationId: "developerExportOrders",
        scope: Scope.read_orders,
        tags,
        description: op.developerDescription("orders", OrderResource, "developerListOrders"),
      });
      mount(app, DEVELOPER_API, op.customers, {
        operationId: "developerExportCustomers",
        scope: Scope.read_customers,
        tags,
        description: op.developerDescription("customers", CustomerResource, "developerListCustomers"),
      });
      mount(app, DEVELOPER_API, op.inventory, {
        operationId: "developerExportInventory",
        scope: Scope.read_inventory,
        tags,
        description: op.developerDescription(
          "inventory",
          InventoryLevelResource,
          "developerListInventoryLevels",
        ),
      });
    },
  };
}
