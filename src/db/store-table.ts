import { type Selectable, sql } from "kysely";
import { type ExportWindow, exportWhere } from "../lib/pagination.ts";
import type { Executor } from "./client.ts";
import { queryShapes } from "./query-shapes.ts";
import type { DB, StoreRowCountsTable } from "./schema.ts";

/** The store-scoped tables whose rows a store counts (store_row_counts.resource, kept by triggers). */
export type CountedTable = StoreRowCountsTable["resource"];

/**
 * The reads every counted resource has, written once: one row, how many the store has, the
 * developer API's offset page and a bulk export's batch. A resource's repository spreads them
 * into its own (`...storeTable(db, "products")`) and holds only its own queries.
 */
export function storeTable<T extends CountedTable>(db: Executor, table: T) {
  // Kysely cannot type a statement on a table named by a type parameter: each is built on the
  // union of the counted tables (the columns it uses are common to all three; the SQL names
  // `table`) and its rows are typed as `table`'s.
  type Row = Selectable<DB[T]>;
  const from: CountedTable = table;
  // A row is read by every answer about one record: its query is compiled once (query-shapes.ts).
  const compiled = queryShapes();
  return {
    async find(storeId: string, id: string, tx: Executor = db): Promise<Row | undefined> {
      const [row] = await compiled(tx, "find", { storeId, id }, (v) =>
        db.selectFrom(from).selectAll().where("store_id", "=", v.storeId).where("id", "=", v.id),
      );
      return row as Row | undefined;
    },
    /**
     * The store's rows, from the counts the triggers of migrations 20261123_0040 and
     * 20261126_0042 keep: at most 16 rows read, whatever the size of the table.
     */
    async count(storeId: string, tx: Executor = db): Promise<number> {
      const row = await tx
        .selectFrom("store_row_counts")
        .select(sql<number>`coalesce(sum(n), 0)::bigint`.as("n"))
        .where("store_id", "=", storeId)
        .where("resource", "=", table)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** Offset page for the developer API's page/perPage contract (bounded by the caller: perPage <= 100). */
    async listPage(storeId: string, offset: number, limit: number, tx: Executor = db): Promise<Row[]> {
      const rows = await tx
        .selectFrom(from)
        .selectAll()
        .where("store_id", "=", storeId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .offset(offset)
        .limit(limit)
        .execute();
      return rows as Row[];
    },
    /** A bulk export's batch (ExportWindow): the primary key's order, so each batch is one index range. */
    async exportBatch(storeId: string, window: ExportWindow, tx: Executor = db): Promise<Row[]> {
      let q = tx.selectFrom(from).selectAll().where("store_id", "=", storeId);
      for (const w of exportWhere(window)) q = q.where(w);
      return (await q.orderBy("id").limit(window.limit).execute()) as Row[];
    },
  };
}
