import { sql } from "kysely";
import type { Executor } from "../../db/client.ts";
import type { NewProduct, Product, ProductUpdate } from "../../db/schema.ts";
import {
  containsPattern,
  type ExportWindow,
  exportWhere,
  keyset,
  type PagePlan,
} from "../../lib/pagination.ts";

export function createProductRepo(db: Executor) {
  return {
    async insert(row: NewProduct, tx: Executor = db) {
      return tx.insertInto("products").values(row).returningAll().executeTakeFirstOrThrow();
    },
    async find(storeId: string, id: string, tx: Executor = db) {
      return tx
        .selectFrom("products")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .executeTakeFirst();
    },
    /** Locks the row until the transaction ends, so concurrent edits of one product apply one after another. */
    async findForUpdate(storeId: string, id: string, tx: Executor) {
      return tx
        .selectFrom("products")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .forUpdate()
        .executeTakeFirst();
    },
    async findSku(storeId: string, sku: string, tx: Executor = db) {
      return tx
        .selectFrom("products")
        .select("id")
        .where("store_id", "=", storeId)
        .where("sku", "=", sku)
        .executeTakeFirst();
    },
    async update(storeId: string, id: string, changes: ProductUpdate, tx: Executor = db) {
      return tx
        .updateTable("products")
        .set(changes)
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
    },
    async delete(storeId: string, id: string, tx: Executor = db) {
      return tx
        .deleteFrom("products")
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
    },
    async list(
      storeId: string,
      plan: PagePlan,
      filter: { status?: Product["status"] | undefined; q?: string | undefined },
      tx: Executor = db,
    ) {
      const { where, column, id, direction } = keyset(plan);
      let q = tx.selectFrom("products").selectAll().where("store_id", "=", storeId);
      if (filter.status) q = q.where("status", "=", filter.status);
      if (filter.q) {
        // The title contains the text (trigram index, migration 20261124_0010) or the SKU does:
        // one of the SKU's upper-cased suffixes begins with it (migration 20261126_0120), a range
        // of that table's primary key. The range is written out rather than as LIKE 'x%', which
        // becomes a range only on a constant and never on a prepared statement's generic plan;
        // it has no wildcards, so `%` and `_` are literal. The matching ids come as one array
        // (an InitPlan, computed once), so the planner can OR the title's trigram bitmap with the
        // primary key's, and a SKU matched by several of its suffixes is still one product.
        const like = containsPattern(filter.q);
        const part = filter.q.trim();
        const skuMatches = tx
          .selectFrom("product_sku_suffixes")
          .select("product_id")
          .where("store_id", "=", storeId)
          .where(sql<boolean>`suffix >= upper(${part})`)
          .where(sql<boolean>`suffix < upper(${part}) || chr(1114111)`);
        q = q.where((eb) =>
          eb.or([eb("title", "ilike", like), sql<boolean>`id = ANY (ARRAY(${skuMatches}))`]),
        );
      }
      for (const w of where) q = q.where(w);
      return q
        .orderBy(column, direction)
        .orderBy(id, direction)
        .limit(plan.limit + 1)
        .execute();
    },
    /** A bulk export's batch (ExportWindow): the primary key's order, so each batch is one index range. */
    async exportBatch(storeId: string, window: ExportWindow, tx: Executor = db) {
      let q = tx.selectFrom("products").selectAll().where("store_id", "=", storeId);
      for (const w of exportWhere(window)) q = q.where(w);
      return q.orderBy("id").limit(window.limit).execute();
    },
    /**
     * The store's products, from the counts the triggers of migration 20261123_0040 keep: at most
     * 16 rows read, whatever the size of the catalogue.
     */
    async count(storeId: string, tx: Executor = db) {
      const row = await tx
        .selectFrom("store_row_counts")
        .select(sql<number>`coalesce(sum(n), 0)::bigint`.as("n"))
        .where("store_id", "=", storeId)
        .where("resource", "=", "products")
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** Offset page for the developer API's page/perPage contract (bounded: perPage <= 100). */
    async listPage(storeId: string, offset: number, limit: number, tx: Executor = db) {
      return tx
        .selectFrom("products")
        .selectAll()
        .where("store_id", "=", storeId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .offset(offset)
        .limit(limit)
        .execute();
    },
  };
}
export type ProductRepo = ReturnType<typeof createProductRepo>;
