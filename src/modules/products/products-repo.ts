import { sql } from "kysely";
import type { Executor } from "../../db/client.ts";
import { queryShapes } from "../../db/query-shapes.ts";
import type { NewProduct, Product, ProductUpdate } from "../../db/schema.ts";
import {
  containsPattern,
  type ExportWindow,
  exportWhere,
  keyset,
  type PagePlan,
} from "../../lib/pagination.ts";

export function createProductRepo(db: Executor) {
  // The reads every product page and product answer runs, compiled once per shape (query-shapes.ts).
  const compiled = queryShapes();
  return {
    async insert(row: NewProduct, tx: Executor = db) {
      return tx.insertInto("products").values(row).returningAll().executeTakeFirstOrThrow();
    },
    async find(storeId: string, id: string, tx: Executor = db) {
      const [row] = await compiled(tx, "find", { storeId, id }, (v) =>
        db.selectFrom("products").selectAll().where("store_id", "=", v.storeId).where("id", "=", v.id),
      );
      return row;
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
      // Which clauses the query has comes from `plan` and `filter`; the values from `v`.
      const build = (v: typeof values) => {
        const { where, column, id, direction } = keyset({
          ...plan,
          after: plan.after && { v: v.afterValue!, id: v.afterId! },
          updatedSince: plan.updatedSince && v.updatedSince,
        });
        let q = db.selectFrom("products").selectAll().where("store_id", "=", v.storeId);
        if (filter.status) q = q.where("status", "=", v.status!);
        if (filter.q) {
          // The title or the SKU contains the text, case-insensitively: a trigram index each
          // (migrations 20261124_0010 and 20261126_0095).
          const like = containsPattern(filter.q);
          q = q.where((eb) => eb.or([eb("title", "ilike", like), eb("sku", "ilike", like)]));
        }
        for (const w of where) q = q.where(w);
        return q.orderBy(column, direction).orderBy(id, direction).limit(v.limit);
      };
      const values = {
        storeId,
        status: filter.status,
        afterValue: plan.after?.v,
        afterId: plan.after?.id,
        updatedSince: plan.updatedSince,
        limit: plan.limit + 1,
      };
      // A search is built on each request: its cost is the index scan, and its condition its own.
      if (filter.q) return (await tx.executeQuery(build(values))).rows;
      // Every choice `build` makes, and nothing else: one text for all pages of a sort and filter.
      const shape = `list:${filter.status ? "status" : ""}:${plan.column} ${plan.direction}:${plan.after ? "after" : ""}:${plan.updatedSince ? "since" : ""}`;
      return compiled(tx, shape, values, build);
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
