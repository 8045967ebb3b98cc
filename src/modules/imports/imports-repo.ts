import { sql } from "kysely";
import { ImportStatus } from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import { jsonb } from "../../db/json.ts";
import type { CsvImport, ImportPreviewJson, ImportRowErrorJson } from "../../db/schema.ts";

/** The columns a read answers with: everything but the uploaded text (up to 5 MB). */
const SUMMARY = [
  "store_id",
  "id",
  "kind",
  "file_name",
  "total_rows",
  "total_items",
  "preview",
  "status",
  "dry_run",
  "done_items",
  "created_count",
  "skipped_count",
  "error_count",
  "errors",
  "lease_until",
  "attempts",
  "failure",
  "created_by",
  "created_at",
  "updated_at",
  "started_at",
  "finished_at",
] as const;
export type ImportSummary = Omit<CsvImport, "csv">;

/** A run taken by one worker: the row, and the claim's fencing token (`attempts` when claimed). */
export interface ClaimedImport {
  job: CsvImport;
  token: number;
}

/** Thrown when a batch's progress could not be written: the run was taken over, the batch rolls back. */
export class LostClaim extends Error {
  constructor() {
    super("the import's lease was taken over by another worker");
  }
}

export function createImportRepo(db: Db) {
  return {
    async insert(row: {
      store_id: string;
      id: string;
      kind: CsvImport["kind"];
      file_name: string;
      csv: string;
      total_rows: number;
      total_items: number;
      preview: ImportPreviewJson;
      errors: ImportRowErrorJson[];
      error_count: number;
      created_by: string;
      now: Date;
    }): Promise<ImportSummary> {
      const { now, preview, errors, ...rest } = row;
      return db
        .insertInto("csv_imports")
        .values({
          ...rest,
          preview: jsonb(preview),
          errors: jsonb(errors),
          status: ImportStatus.previewed,
          created_at: now,
          updated_at: now,
        })
        .returning(SUMMARY)
        .executeTakeFirstOrThrow();
    },

    async find(storeId: string, id: string): Promise<ImportSummary | undefined> {
      return db
        .selectFrom("csv_imports")
        .select(SUMMARY)
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .executeTakeFirst();
    },

    /** The store's latest imports, newest first. */
    async latest(storeId: string, limit: number): Promise<ImportSummary[]> {
      return db
        .selectFrom("csv_imports")
        .select(SUMMARY)
        .where("store_id", "=", storeId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(limit)
        .execute();
    },

    /**
     * Queues a run of a checked file: one statement that succeeds only while no run of it is
     * queued or under way, so two clicks (or two tabs) start one run. The counts start again.
     */
    async queue(
      storeId: string,
      kind: CsvImport["kind"],
      id: string,
      dryRun: boolean,
      now: Date,
    ): Promise<ImportSummary | undefined> {
      return db
        .updateTable("csv_imports")
        .set({
          status: ImportStatus.queued,
          dry_run: dryRun,
          done_items: 0,
          created_count: 0,
          skipped_count: 0,
          error_count: 0,
          errors: jsonb([]),
          attempts: 0,
          failure: null,
          lease_until: null,
          started_at: null,
          finished_at: null,
          updated_at: now,
        })
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .where("kind", "=", kind)
        .where("status", "in", [ImportStatus.previewed, ImportStatus.completed, ImportStatus.failed])
        .returning(SUMMARY)
        .executeTakeFirst();
    },

    /**
     * The oldest run waiting, or under way with a lapsed lease (its worker died): leased to the
     * caller in one statement. FOR UPDATE SKIP LOCKED: two workers claiming at once take two
     * different runs, never one twice; `attempts` grows with each claim and is the fencing token
     * the batches write under (saveProgress), so a worker that outlived its lease writes nothing.
     */
    async claim(now: Date, leaseMs: number): Promise<ClaimedImport | undefined> {
      const job = await db
        .updateTable("csv_imports")
        .set({
          status: ImportStatus.running,
          lease_until: new Date(now.getTime() + leaseMs),
          attempts: sql`attempts + 1`,
          started_at: sql`coalesce(started_at, ${now})`,
          updated_at: now,
        })
        .where(({ eb, refTuple, selectFrom }) =>
          eb(
            refTuple("store_id", "id"),
            "=",
            selectFrom("csv_imports")
              .select(["store_id", "id"])
              .where((w) =>
                w.or([
                  w("status", "=", ImportStatus.queued),
                  w.and([w("status", "=", ImportStatus.running), w("lease_until", "<", now)]),
                ]),
              )
              .orderBy("created_at")
              .limit(1)
              .forUpdate()
              .skipLocked()
              // biome-ignore lint/suspicious/noExplicitAny: Kysely types a tuple comparison's right side loosely.
              .$castTo<any>(),
          ),
        )
        .returningAll()
        .executeTakeFirst();
      return job ? { job, token: job.attempts } : undefined;
    },

    /**
     * A batch's progress, in the batch's transaction: only while the claim is still this worker's
     * (same fencing token, still running); otherwise LostClaim rolls the batch back.
     */
    async saveProgress(
      tx: Executor,
      claim: ClaimedImport,
      progress: {
        done: number;
        created: number;
        skipped: number;
        errorCount: number;
        errors: ImportRowErrorJson[];
        leaseUntil: Date;
        now: Date;
      },
    ): Promise<void> {
      const result = await tx
        .updateTable("csv_imports")
        .set({
          done_items: progress.done,
          created_count: progress.created,
          skipped_count: progress.skipped,
          error_count: progress.errorCount,
          errors: jsonb(progress.errors),
          lease_until: progress.leaseUntil,
          updated_at: progress.now,
        })
        .where("store_id", "=", claim.job.store_id)
        .where("id", "=", claim.job.id)
        .where("status", "=", ImportStatus.running)
        .where("attempts", "=", claim.token)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) throw new LostClaim();
    },

    /** The run's end: completed, or failed with the reason; only by the claim's holder. */
    async finish(
      claim: ClaimedImport,
      outcome: {
        status: typeof ImportStatus.completed | typeof ImportStatus.failed;
        failure?: string;
        now: Date;
      },
    ): Promise<void> {
      await db
        .updateTable("csv_imports")
        .set({
          status: outcome.status,
          failure: outcome.failure ?? null,
          lease_until: null,
          finished_at: outcome.now,
          updated_at: outcome.now,
        })
        .where("store_id", "=", claim.job.store_id)
        .where("id", "=", claim.job.id)
        .where("status", "=", ImportStatus.running)
        .where("attempts", "=", claim.token)
        .execute();
    },

    /** Variants of the store with any of these SKUs (what a product's rows match on). */
    async productsWithSkus(storeId: string, skus: string[], tx: Executor = db): Promise<Map<string, string>> {
      if (skus.length === 0) return new Map();
      const rows = await tx
        .selectFrom("product_variants")
        .select(["sku", "product_id"])
        .where("store_id", "=", storeId)
        .where("sku", "in", skus)
        .execute();
      return new Map(rows.map((r) => [r.sku!, r.product_id]));
    },

    /** Products of the store with one of these titles, any case (a product without SKUs matches on it). */
    async productsWithTitles(storeId: string, titles: string[], tx: Executor = db): Promise<Set<string>> {
      if (titles.length === 0) return new Set();
      const rows = await tx
        .selectFrom("products")
        .select(sql<string>`lower(title)`.as("title"))
        .where("store_id", "=", storeId)
        .where(
          sql<string>`lower(title)`,
          "in",
          titles.map((t) => t.toLowerCase()),
        )
        .execute();
      return new Set(rows.map((r) => r.title));
    },

    /** Customers of the store with one of these e-mail addresses, any case. */
    async customersWithEmails(storeId: string, emails: string[], tx: Executor = db): Promise<Set<string>> {
      if (emails.length === 0) return new Set();
      const rows = await tx
        .selectFrom("customers")
        .select(sql<string>`lower(email)`.as("email"))
        .where("store_id", "=", storeId)
        .where(
          sql<string>`lower(email)`,
          "in",
          emails.map((e) => e.toLowerCase()),
        )
        .execute();
      return new Set(rows.map((r) => r.email));
    },
  };
}
export type ImportRepo = ReturnType<typeof createImportRepo>;
