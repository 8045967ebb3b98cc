import Type from "typebox";
import { ImportKindSchema, ImportStatusSchema, Scope, Timestamp } from "../../contracts/index.ts";
import { AppError } from "../../lib/errors.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Body, Envelope, Id } from "../../lib/http/schemas.ts";
import { isoString } from "../../lib/iso-string.ts";
import { AUTHENTICATED } from "../families/api-family.ts";
import { DASHBOARD } from "../families/dashboard-family.ts";
import { defineOperation, mount } from "../families/operation.ts";
import { CUSTOMER_COLUMNS, PRODUCT_COLUMNS, REQUIRED_COLUMNS } from "./csv-columns.ts";
import { CSV_LIMITS } from "./csv-text.ts";
import type { ImportSummary } from "./imports-repo.ts";
import { IMPORT_BATCH_ITEMS, type ImportService, MAX_KEPT_ERRORS } from "./imports-service.ts";

const RowError = Type.Object(
  {
    row: Type.Integer({ description: "The row as a spreadsheet numbers it: the header is row 1." }),
    column: Type.Union([Type.String(), Type.Null()], {
      description: "The column, when the problem is one cell's.",
    }),
    message: Type.String(),
  },
  { title: "ImportRowError" },
);

export const ImportResource = Type.Object(
  {
    id: Id("csvImport"),
    kind: ImportKindSchema,
    fileName: Type.String(),
    status: ImportStatusSchema,
    dryRun: Type.Boolean({ description: "Whether the run queued, under way or last finished is a dry run." }),
    totalRows: Type.Integer({ description: "Data rows in the file (the header aside)." }),
    totalItems: Type.Integer({ description: "Products (a handle's rows are one) or customers in the file." }),
    doneItems: Type.Integer({ description: "Items the run has gone through: its progress." }),
    created: Type.Integer({ description: "Items the run created (a dry run: would create)." }),
    skipped: Type.Integer({ description: "Items already in the store, left as they are." }),
    errorCount: Type.Integer({ description: "Row problems found (all of them; `errors` holds the first)." }),
    errors: Type.Array(RowError, { description: `The first ${MAX_KEPT_ERRORS} row problems, in row order.` }),
    preview: Type.Object({
      columns: Type.Array(Type.String(), { description: "The columns read, in the file's order." }),
      ignoredColumns: Type.Array(Type.String(), {
        description: "Columns of the file the import does not read.",
      }),
      rows: Type.Array(Type.Object({ row: Type.Integer(), cells: Type.Array(Type.String()) }), {
        description: "The first 20 rows as read, a cell per column (cut to 200 characters).",
      }),
      existingItems: Type.Integer({ description: "Items already in the store when the file was checked." }),
      invalidItems: Type.Integer({ description: "Items with an error: a run leaves them out." }),
    }),
    failure: Type.Union([Type.String(), Type.Null()], { description: "Why a `failed` run stopped." }),
    createdAt: Timestamp,
    startedAt: Type.Union([Timestamp, Type.Null()]),
    finishedAt: Type.Union([Timestamp, Type.Null()]),
  },
  { title: "CsvImport" },
);

function toImportResource(i: ImportSummary) {
  return {
    id: i.id,
    kind: i.kind,
    fileName: i.file_name,
    status: i.status,
    dryRun: i.dry_run,
    totalRows: i.total_rows,
    totalItems: i.total_items,
    doneItems: i.done_items,
    created: i.created_count,
    skipped: i.skipped_count,
    errorCount: i.error_count,
    errors: i.errors,
    preview: i.preview,
    failure: i.failure,
    createdAt: isoString(i.created_at),
    startedAt: i.started_at ? isoString(i.started_at) : null,
    finishedAt: i.finished_at ? isoString(i.finished_at) : null,
  };
}

const UploadBody = Body({
  fileName: Type.String({
    minLength: 1,
    maxLength: 255,
    description: "The file's name, as the merchant chose it.",
  }),
  csv: Type.String({
    minLength: 1,
    maxLength: CSV_LIMITS.chars,
    description: `The file's text (UTF-8). At most ${CSV_LIMITS.chars.toLocaleString("en")} characters, ${CSV_LIMITS.rows.toLocaleString("en")} rows, ${CSV_LIMITS.columns} columns and ${CSV_LIMITS.cell.toLocaleString("en")} characters per cell.`,
  }),
});
const RunBody = Body({
  dryRun: Type.Boolean({
    description: "true: every row through the same checks and services, nothing kept.",
  }),
});
const ImportIdParam = { id: Id("csvImport") };
/** The request body of an upload: the text and JSON around it. */
export const IMPORT_BODY_LIMIT = CSV_LIMITS.chars * 2 + 4096;

const MATCHING = {
  products:
    "Rows with the same Handle are one product (its first row carries the product's fields and option names, each row one variant). A product already in the store, by any of its SKUs (by title when it has none), is skipped.",
  customers: "A row per customer. A customer already in the store, by e-mail address (any case), is skipped.",
};

function uploadOperation(imports: ImportService, kind: "products" | "customers") {
  const columns = kind === "products" ? PRODUCT_COLUMNS : CUSTOMER_COLUMNS;
  return defineOperation({
    method: "POST",
    path: `/imports/${kind}`,
    summary: `Check a CSV file of ${kind}`,
    description: `Parses and checks the file now, with the rules of the ${kind} API (its schema, the store's currency for amounts): the answer is the preview, with each row's problems (row and column). Nothing else is written: start a dry run or the import with \`…/imports/${kind}/{id}/run\`. Columns: ${columns.join(", ")} (${REQUIRED_COLUMNS[kind].join(", ")} required; others are ignored and listed). ${MATCHING[kind]} A file past a bound, unreadable, or without the required columns is a 400 naming it.`,
    body: UploadBody,
    response: { 201: Envelope(ImportResource, "Checked") },
    run: async ({ caller, body }) => {
      if (caller.principal.kind !== "account") throw new AppError("FORBIDDEN");
      return {
        data: toImportResource(await imports.upload(caller.store, { kind, ...body }, caller.principal.id)),
      };
    },
  });
}

/** A run of a checked file, under the kind's write scope (an import of the other kind is 404 here). */
function runOperation(imports: ImportService, kind: "products" | "customers") {
  return defineOperation({
    method: "POST",
    path: `/imports/${kind}/:id/run`,
    params: ImportIdParam,
    summary: `Start a dry run or the import of ${kind}`,
    description: `Queues the run and answers at once (202): the worker applies it in the background, ${IMPORT_BATCH_ITEMS} items per transaction, each through the ${kind === "products" ? "product" : "customer"} service (the same checks, events${kind === "products" ? " and stock rules" : ""} as the API). A dry run writes nothing and reports what the import would do. A run survives a restart: it goes on from its last batch. Running a file again creates nothing twice (existing items are skipped). 409 while a run of the file is queued or under way.`,
    body: RunBody,
    response: { 202: Envelope(ImportResource, "Queued") },
    errors: ["NOT_FOUND", "CONFLICT"],
    run: async ({ caller, params, body, reply }) => {
      const data = toImportResource(await imports.start(caller.store, kind, params.id, body.dryRun));
      return reply.code(202).send({ success: true, data });
    },
  });
}

export function importOperations(imports: ImportService) {
  return {
    uploadProducts: { ...uploadOperation(imports, "products"), bodyLimit: IMPORT_BODY_LIMIT },
    uploadCustomers: { ...uploadOperation(imports, "customers"), bodyLimit: IMPORT_BODY_LIMIT },
    list: defineOperation({
      method: "GET",
      path: "/imports",
      summary: "The store's latest imports",
      description: "The 10 latest, newest first.",
      response: { 200: Envelope(Type.Array(ImportResource)) },
      run: async ({ caller }) => ({ data: (await imports.latest(caller.store)).map(toImportResource) }),
    }),
    get: defineOperation({
      method: "GET",
      path: "/imports/:id",
      params: ImportIdParam,
      summary: "An import and its progress",
      description:
        "Poll it while a run is `queued` or `running`: `doneItems` of `totalItems`, the counts and the row problems so far.",
      response: { 200: Envelope(ImportResource) },
      errors: ["NOT_FOUND"],
      run: async ({ caller, params }) => ({
        data: toImportResource(await imports.get(caller.store, params.id)),
      }),
    }),
    runProducts: runOperation(imports, "products"),
    runCustomers: runOperation(imports, "customers"),
  };
}

/** The dashboard's import routes (platform.ts lists them); the CSV downloads are the export module's. */
export function importRoutes(imports: ImportService): FeatureRoutes {
  const op = importOperations(imports);
  return {
    tags: {
      "Dashboard: import and export":
        "Products (with variants) and customers from CSV, checked first (a preview with each row's problems), then a dry run or the import in the background; products, orders and customers downloaded as CSV through the bulk export.",
    },
    store(app) {
      const tags = ["Dashboard: import and export"];
      mount(app, DASHBOARD, op.uploadProducts, {
        operationId: "dashboardUploadProductImport",
        scope: Scope.write_products,
        tags,
      });
      mount(app, DASHBOARD, op.uploadCustomers, {
        operationId: "dashboardUploadCustomerImport",
        scope: Scope.write_customers,
        tags,
      });
      mount(app, DASHBOARD, op.list, { operationId: "dashboardListImports", scope: AUTHENTICATED, tags });
      mount(app, DASHBOARD, op.get, { operationId: "dashboardGetImport", scope: AUTHENTICATED, tags });
      mount(app, DASHBOARD, op.runProducts, {
        operationId: "dashboardRunProductImport",
        scope: Scope.write_products,
        tags,
      });
      mount(app, DASHBOARD, op.runCustomers, {
        operationId: "dashboardRunCustomerImport",
        scope: Scope.write_customers,
        tags,
      });
    },
  };
}
