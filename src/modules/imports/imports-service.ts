import { sql } from "kysely";
import type { Static } from "typebox";
import { type ImportKind, ImportStatus } from "../../contracts/index.ts";
import { type Db, type Tx, transactionAsDatabase } from "../../db/client.ts";
import type { ImportPreviewJson, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { validationDetails } from "../../lib/http/error-handler.ts";
import { bodyValidator } from "../../lib/http/validation.ts";
import { newId } from "../../lib/ids.ts";
import { currencyExponent, toMinorUnits } from "../../lib/money.ts";
import { CreateCustomerBody } from "../customers/customers-schemas.ts";
import type { CustomerService } from "../customers/customers-service.ts";
import type { StockActor } from "../inventory/inventory-service.ts";
import { CreateProductBody } from "../products/products-schemas.ts";
import type { ProductService } from "../products/products-service.ts";
import {
  CUSTOMER_COLUMNS,
  type CustomerPlan,
  locate,
  PRODUCT_COLUMNS,
  type ProductPlan,
  planCustomer,
  planProducts,
  REQUIRED_COLUMNS,
  type RowCells,
  type RowError,
} from "./csv-columns.ts";
import { CSV_LIMITS, type CsvTable, parseCsv, unguardCell } from "./csv-text.ts";
import { type ImportRepo, type ImportSummary, LostClaim } from "./imports-repo.ts";

/** Row problems kept with an import (the count goes on past it). */
export const MAX_KEPT_ERRORS = 500;
/** Rows shown in the preview. */
const PREVIEW_ROWS = 20;
/** Characters of a cell shown in the preview. */
const PREVIEW_CELL = 200;
/** Items (products or customers) per transaction of a run: its progress commits with them. */
export const IMPORT_BATCH_ITEMS = 50;
/** A run's lease: renewed with every batch, so only a dead worker's run is taken over. */
export const IMPORT_LEASE_MS = 60_000;
/** Claims of one run before it is stopped as failing (a batch that fails for a reason not its rows'). */
const MAX_ATTEMPTS = 5;
/** Values per lookup statement of the upload's check. */
const LOOKUP_CHUNK = 1000;

type Plan = (ProductPlan | CustomerPlan) & { invalid?: boolean; existing?: boolean };

/** The services a run writes through, on the run's batch transaction (platform.ts `commerceAt`). */
export type ImportServices = (db: Db) => {
  products: Pick<ProductService, "create">;
  customers: Pick<CustomerService, "create">;
};

/** Thrown to roll a dry run's batch back once its outcomes are counted. */
class DryRunRollback extends Error {}

function columnsOf(kind: ImportKind): readonly string[] {
  return kind === "products" ? PRODUCT_COLUMNS : CUSTOMER_COLUMNS;
}

/** The file's cells by known column; the header checked (required columns, each column once). */
function readTable(kind: ImportKind, table: CsvTable) {
  const known = columnsOf(kind);
  const index = new Map<string, number>();
  const ignored: string[] = [];
  table.header.forEach((name, i) => {
    const column = known.find((k) => k.toLowerCase() === name.toLowerCase());
    if (!column) {
      if (name) ignored.push(name);
      return;
    }
    if (index.has(column))
      throw new AppError("VALIDATION_FAILED", {
        details: [{ field: "csv", message: `names the column "${column}" twice` }],
      });
    index.set(column, i);
  });
  const missing = REQUIRED_COLUMNS[kind].filter((c) => !index.has(c));
  if (missing.length)
    throw new AppError("VALIDATION_FAILED", {
      details: [
        {
          field: "csv",
          message: `has no ${missing.map((m) => `"${m}"`).join(", ")} column${missing.length > 1 ? "s" : ""}: the first row must name the columns (${columnsOf(kind).join(", ")})`,
        },
      ],
    });
  const columns = [...index.keys()];
  const errors: RowError[] = [];
  const rows = table.rows.map((cells, i) => {
    const row = i + 2;
    if (cells.length !== table.header.length)
      errors.push({
        row,
        column: null,
        message: `has ${cells.length} cells where the header has ${table.header.length}: check for a stray comma or quote`,
      });
    const out: Record<string, string> = {};
    for (const [column, at] of index) {
      const raw = cells[at];
      if (raw === undefined) continue;
      if (raw.length > CSV_LIMITS.cell) {
        errors.push({
          row,
          column,
          message: `is longer than ${CSV_LIMITS.cell.toLocaleString("en")} characters`,
        });
        continue;
      }
      const value = unguardCell(raw.trim());
      if (value !== "") out[column] = value;
    }
    return { row, cells: out, raw: cells };
  });
  return { columns, index, ignored, rows, errors };
}

/** The plans of a file: products grouped by handle, or a customer per row. */
function plan(kind: ImportKind, table: CsvTable) {
  const read = readTable(kind, table);
  const badRows = new Set(read.errors.map((e) => e.row));
  const usable = read.rows.filter((r) => !badRows.has(r.row));
  let plans: Plan[];
  const errors = [...read.errors];
  if (kind === "products") {
    const planned = planProducts(
      usable as Array<{ row: number; cells: RowCells<(typeof PRODUCT_COLUMNS)[number]> }>,
    );
    plans = planned.plans;
    errors.push(...planned.errors);
  } else {
    plans = usable.map((r) =>
      planCustomer(r as { row: number; cells: RowCells<(typeof CUSTOMER_COLUMNS)[number]> }),
    );
  }
  return { read, plans, errors };
}

/** A plan's input against the service's own schema and the store's currency; its problems as row errors. */
function check(kind: ImportKind, p: Plan, currency: string): RowError[] {
  const validate = bodyValidator(kind === "products" ? CreateProductBody : CreateCustomerBody);
  const errors: RowError[] = [];
  if (!validate(p.input)) {
    for (const d of validationDetails((validate.errors ?? []) as never, "body"))
      errors.push({ ...locate(p.sources, d.field, p.rows[0]!), message: d.message });
    return errors;
  }
  if (kind === "products") {
    const input = p.input as Static<typeof CreateProductBody>;
    input.variants.forEach((v, i) => {
      // The product service's own rule (toMinorUnits, the one rounding place), told before a run.
      for (const [field, amount] of [
        ["price", v.price],
        ["compareAtPrice", v.compareAtPrice],
      ] as const)
        if (amount && toMinorUnits(amount, currency) === null)
          errors.push({
            ...locate(p.sources, `variants.${i}.${field}`, p.rows[0]!),
            message: `"${amount}" is not an amount in ${currency}: at most ${currencyExponent(currency)} decimals`,
          });
    });
  }
  return errors;
}

/** What a run matches an item on: the SKUs of a product (its title when it has none), or the e-mail address. */
function keysOf(kind: ImportKind, p: Plan): { skus: string[]; title?: string; email?: string } {
  if (kind === "customers") return { skus: [], email: (p.input as { email: string }).email };
  const input = p.input as Static<typeof CreateProductBody>;
  const skus = input.variants.map((v) => v.sku).filter((s): s is string => !!s);
  return skus.length ? { skus } : { skus, title: input.title };
}

const rowsText = (rows: number[]) => (rows.length === 1 ? `row ${rows[0]}` : `rows ${rows.join(", ")}`);

/**
 * CSV imports (issue 32, part 5). An upload is parsed and checked at once against the same schema
 * and currency rule the services apply (the preview, with per-row errors; nothing written). A run
 * (dry or real) is a job row the worker claims: items in file order, IMPORT_BATCH_ITEMS per
 * transaction, each through the product or customer service on that transaction (a savepoint per
 * item, so one refused item leaves the others), with the batch's progress written in the same
 * transaction. A dry run rolls each batch back. An item already in the store (a product by any of
 * its SKUs, or by title when it has none; a customer by e-mail address) is skipped, so running a
 * file again creates nothing twice.
 */
export function createImportService(deps: {
  db: Db;
  repo: ImportRepo;
  stores: { findById(id: string, tx?: Db | Tx): Promise<Store | undefined> };
  services: ImportServices;
  clock: Clock;
  /** A run was queued (the worker of this process looks at once; others at their next poll). */
  onQueued?: () => void;
}) {
  const { repo, clock } = deps;

  async function existingOf(kind: ImportKind, storeId: string, plans: Plan[], tx?: Tx) {
    const skus = new Set<string>();
    const titles = new Set<string>();
    const emails = new Set<string>();
    for (const p of plans) {
      const k = keysOf(kind, p);
      for (const s of k.skus) skus.add(s);
      if (k.title) titles.add(k.title);
      if (k.email) emails.add(k.email);
    }
    const chunks = <T>(values: T[]) =>
      Array.from({ length: Math.ceil(values.length / LOOKUP_CHUNK) }, (_, i) =>
        values.slice(i * LOOKUP_CHUNK, (i + 1) * LOOKUP_CHUNK),
      );
    const foundSkus = new Set<string>();
    const foundTitles = new Set<string>();
    const foundEmails = new Set<string>();
    for (const c of chunks([...skus]))
      for (const s of (await repo.productsWithSkus(storeId, c, tx)).keys()) foundSkus.add(s);
    for (const c of chunks([...titles]))
      for (const t of await repo.productsWithTitles(storeId, c, tx)) foundTitles.add(t);
    for (const c of chunks([...emails]))
      for (const e of await repo.customersWithEmails(storeId, c, tx)) foundEmails.add(e);
    return (p: Plan) => {
      const k = keysOf(kind, p);
      return (
        k.skus.some((s) => foundSkus.has(s)) ||
        (k.title !== undefined && foundTitles.has(k.title.toLowerCase())) ||
        (k.email !== undefined && foundEmails.has(k.email.toLowerCase()))
      );
    };
  }

  /** Items of one file that name the same SKU or e-mail address: the later ones are errors. */
  function duplicatesInFile(kind: ImportKind, plans: Plan[]): RowError[] {
    const seen = new Map<string, number>();
    const errors: RowError[] = [];
    for (const p of plans) {
      if (kind === "customers") {
        const email = (p.input as { email: string }).email.toLowerCase();
        const first = seen.get(email);
        if (first !== undefined && email)
          errors.push({
            row: p.rows[0]!,
            column: "Email",
            message: `is also on row ${first}: each customer once`,
          });
        else seen.set(email, p.rows[0]!);
        continue;
      }
      (p.input as Static<typeof CreateProductBody>).variants.forEach((v, i) => {
        if (!v.sku) return;
        const at = locate(p.sources, `variants.${i}.sku`, p.rows[0]!);
        const first = seen.get(v.sku);
        if (first !== undefined)
          errors.push({ ...at, message: `"${v.sku}" is also on row ${first}: a SKU names one variant` });
        else seen.set(v.sku, at.row);
      });
    }
    return errors;
  }

  return {
    /**
     * Upload: the file parsed and checked, kept with what was found; nothing else is written. A
     * file past a bound, unreadable, or without the required columns is a 400 naming it.
     */
    async upload(
      store: Store,
      input: { kind: ImportKind; fileName: string; csv: string },
      accountId: string,
    ): Promise<ImportSummary> {
      const table = parseCsv(input.csv);
      const { read, plans, errors } = plan(input.kind, table);
      for (const p of plans as Plan[]) {
        const found = check(input.kind, p, store.currency);
        if (found.length) {
          p.invalid = true;
          errors.push(...found);
        }
      }
      const dupes = duplicatesInFile(
        input.kind,
        plans.filter((p) => !p.invalid),
      );
      errors.push(...dupes);
      const dupeRows = new Set(dupes.map((d) => d.row));
      for (const p of plans) if (p.rows.some((r) => dupeRows.has(r))) p.invalid = true;
      const exists = await existingOf(input.kind, store.id, plans);
      const existingItems = plans.filter((p) => !p.invalid && exists(p)).length;
      // Items the grouping refused (a product's first row without a title) count as invalid too.
      const planned = new Set(plans.flatMap((p) => p.rows));
      const unplanned = new Set(errors.filter((e) => !planned.has(e.row)).map((e) => e.row));
      errors.sort((a, b) => a.row - b.row);
      const preview: ImportPreviewJson = {
        columns: read.columns,
        ignoredColumns: read.ignored,
        rows: read.rows.slice(0, PREVIEW_ROWS).map((r) => ({
          row: r.row,
          cells: read.columns.map((c) => (r.cells[c] ?? "").slice(0, PREVIEW_CELL)),
        })),
        existingItems,
        invalidItems: plans.filter((p) => p.invalid).length + unplanned.size,
      };
      return repo.insert({
        store_id: store.id,
        id: newId("csvImport"),
        kind: input.kind,
        file_name: input.fileName,
        csv: input.csv,
        total_rows: table.rows.length,
        total_items: plans.length,
        preview,
        errors: errors.slice(0, MAX_KEPT_ERRORS),
        error_count: errors.length,
        created_by: accountId,
        now: clock.now(),
      });
    },

    async get(store: Store, id: string): Promise<ImportSummary> {
      const found = await repo.find(store.id, id);
      if (!found) throw notFound("Import");
      return found;
    },

    latest: (store: Store) => repo.latest(store.id, 10),

    /** Queues a dry run or the import (202): 409 while a run of this file is queued or under way. */
    async start(store: Store, kind: ImportKind, id: string, dryRun: boolean): Promise<ImportSummary> {
      const queued = await repo.queue(store.id, kind, id, dryRun, clock.now());
      if (queued) {
        deps.onQueued?.();
        return queued;
      }
      // 404 for another store's, an unknown one, or one of the other kind (its route has its scope).
      if ((await this.get(store, id)).kind !== kind) throw notFound("Import");
      throw new AppError("CONFLICT", {
        message: "This file is already being imported: wait for the run to end.",
      });
    },

    /**
     * The worker's turn: claims one run and applies it to its end, a batch per transaction.
     * Answers whether it found one. A batch that fails for a reason not its rows' (the database
     * gone) leaves the run to be claimed again when its lease lapses, from its last batch.
     */
    async work(
      options: {
        /** Called after each batch; answering true stops the run there (a worker shutting down). */
        afterBatch?: (job: ImportSummary) => boolean;
      } = {},
    ): Promise<boolean> {
      const claim = await repo.claim(clock.now(), IMPORT_LEASE_MS);
      if (!claim) return false;
      const { job } = claim;
      const store = await deps.stores.findById(job.store_id);
      if (!store) return true; // the store was deleted: its imports went with it
      if (claim.token > MAX_ATTEMPTS) {
        await repo.finish(claim, {
          status: ImportStatus.failed,
          failure:
            "The import stopped after failing several times for a reason not in the file; nothing past its last saved batch was written.",
          now: clock.now(),
        });
        return true;
      }
      const { plans, errors: fileErrors } = plan(job.kind, parseCsv(job.csv));
      // The upload's checks again (the store's currency may have changed since), in-file duplicates too.
      const valid = plans.map((p) => ({ p, invalid: check(job.kind, p, store.currency) }));
      const dupes = duplicatesInFile(
        job.kind,
        valid.filter((v) => !v.invalid.length).map((v) => v.p),
      );
      for (const d of dupes) valid.find((v) => v.p.rows.includes(d.row))?.invalid.push(d);
      let progress = {
        done: job.done_items,
        created: job.created_count,
        skipped: job.skipped_count,
        errorCount: job.error_count,
        errors: [...job.errors],
      };
      // The grouping's own problems are counted once, with the first batch.
      if (job.done_items === 0 && fileErrors.length) {
        progress.errorCount += fileErrors.length;
        progress.errors.push(...fileErrors.slice(0, MAX_KEPT_ERRORS - progress.errors.length));
        progress.errors.sort((a, b) => a.row - b.row);
      }
      while (progress.done < valid.length) {
        const batch = valid.slice(progress.done, progress.done + IMPORT_BATCH_ITEMS);
        const next = { ...progress, errors: [...progress.errors] };
        const note = (found: RowError[]) => {
          next.errorCount += found.length;
          next.errors.push(...found.slice(0, Math.max(0, MAX_KEPT_ERRORS - next.errors.length)));
          next.errors.sort((a, b) => a.row - b.row);
        };
        const actor: StockActor = { kind: "account", id: job.created_by };
        try {
          await deps.db.transaction().execute(async (tx) => {
            const services = deps.services(transactionAsDatabase(tx));
            const exists = await existingOf(
              job.kind,
              store.id,
              batch.filter((b) => !b.invalid.length).map((b) => b.p),
              tx,
            );
            for (const { p, invalid } of batch) {
              next.done++;
              if (invalid.length) {
                note(invalid);
                continue;
              }
              if (exists(p)) {
                next.skipped++;
                continue;
              }
              // A savepoint per item: a refused item rolls back alone (on PostgreSQL a failed
              // statement would otherwise abort the whole batch).
              await sql`SAVEPOINT import_item`.execute(tx);
              try {
                if (job.kind === "products")
                  await services.products.create(store, p.input as Static<typeof CreateProductBody>, actor);
                else await services.customers.create(store, p.input as Static<typeof CreateCustomerBody>);
                await sql`RELEASE SAVEPOINT import_item`.execute(tx);
                next.created++;
              } catch (error) {
                await sql`ROLLBACK TO SAVEPOINT import_item`.execute(tx);
                if (!(error instanceof AppError)) throw error;
                const details = (error.details ?? []) as Array<{ field?: string; message: string }>;
                if (details.length)
                  note(
                    details.map((d) => ({ ...locate(p.sources, d.field, p.rows[0]!), message: d.message })),
                  );
                else
                  note([{ row: p.rows[0]!, column: null, message: `${rowsText(p.rows)}: ${error.message}` }]);
              }
            }
            if (job.dry_run) throw new DryRunRollback();
            await repo.saveProgress(tx, claim, {
              ...next,
              leaseUntil: new Date(clock.now().getTime() + IMPORT_LEASE_MS),
              now: clock.now(),
            });
          });
        } catch (error) {
          if (error instanceof LostClaim) return true;
          if (!(error instanceof DryRunRollback)) throw error;
          // The dry run's batch is rolled back; its outcomes are the progress.
          try {
            await deps.db.transaction().execute((tx) =>
              repo.saveProgress(tx, claim, {
                ...next,
                leaseUntil: new Date(clock.now().getTime() + IMPORT_LEASE_MS),
                now: clock.now(),
              }),
            );
          } catch (lost) {
            if (lost instanceof LostClaim) return true;
            throw lost;
          }
        }
        progress = next;
        // Left running under its lease: taken up again from here when the lease lapses.
        if (options.afterBatch?.({ ...job, done_items: progress.done })) return true;
      }
      await repo.finish(claim, { status: ImportStatus.completed, now: clock.now() });
      return true;
    },
  };
}
export type ImportService = ReturnType<typeof createImportService>;
