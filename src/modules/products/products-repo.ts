import { sql } from "kysely";
import type { Executor } from "../../db/client.ts";
import { queryShapes } from "../../db/query-shapes.ts";
import type { NewProduct, Product, ProductUpdate } from "../../db/schema.ts";
import { storeTable } from "../../db/store-table.ts";
import { containsPattern, keyset, keysetPage, type PagePlan } from "../../lib/pagination.ts";

/**
 * Above this many suffixes beginning with the searched text, a SKU match is checked row by row
 * instead of being looked up (products-repo `list`). Measured at a million products: an array of
 * 10,000 ids costs 0.13-0.23 s before the page, of 100,000 2.6 s and of a million 29 s; walking
 * the sort's index costs 1 ms when matches are among the first rows it reads and about 2 s when
 * it must read the whole store to find them (a catalogue-wide prefix such as `SKU-0`: 1 ms).
 */
export const SKU_MATCHES_AS_IDS = 10_000;

/**
 * The store's SKU suffixes (migration 20261126_0120: every suffix of each SKU, upper-cased) that
 * begin with `text`: a text is part of a SKU exactly when it begins one of its suffixes. Written
 * as a range, not LIKE 'x%', which becomes an index range only for a constant and never on a
 * prepared statement's generic plan; a range has no wildcards, so `%` and `_` are literal.
 * U+10FFFF (a noncharacter) sorts after every other character in the column's "C" order.
 */
function skuSuffixRange(storeId: string, text: string, tx: Executor) {
  const part = text.trim();
  return tx
    .selectFrom("product_sku_suffixes")
    .where("store_id", "=", storeId)
    .where(sql<boolean>`suffix >= upper(${part})`)
    .where(sql<boolean>`suffix < upper(${part}) || chr(1114111)`);
}

export function createProductRepo(db: Executor) {
  // The reads every product page runs, compiled once per shape (query-shapes.ts).
  const compiled = queryShapes();
  /** `list` with a search: the title or the SKU contains the text, case-insensitively. */
  async function search(
    storeId: string,
    plan: PagePlan,
    filter: { status?: Product["status"] | undefined; q: string },
    tx: Executor = db,
  ) {
    let q = tx.selectFrom("products").selectAll().where("store_id", "=", storeId);
    if (filter.status) q = q.where("status", "=", filter.status);
    // The title contains the text (trigram index, migration 20261124_0010) or the SKU does.
    const like = containsPattern(filter.q);
    const skus = skuSuffixRange(storeId, filter.q, tx);
    const few = await tx
      .selectFrom(
        skus
          .select(sql`1`.as("one"))
          .limit(SKU_MATCHES_AS_IDS + 1)
          .as("m"),
      )
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .executeTakeFirstOrThrow();
    // Few SKUs match: their ids, one array (an InitPlan, computed once) the planner can OR
    // with the title's trigram bitmap as a primary-key condition; a product matched by
    // several of its suffixes is still one row. Many match: an array would cost one
    // primary-key probe per match before the page (29 s for a text in all of a million
    // SKUs), while walking the sort's index finds a page of them, each checked by its own
    // SKU (upper-cased like the suffixes, so both ways find the same products).
    const skuMatches =
      Number(few.n) <= SKU_MATCHES_AS_IDS
        ? sql<boolean>`id = ANY (ARRAY(${skus.select("product_id")}))`
        : sql<boolean>`upper(sku) LIKE upper(${like})`;
    q = q.where((eb) => eb.or([eb("title", "ilike", like), skuMatches]));
    return keysetPage(q, plan).execute();
  }

  return {
    ...storeTable(db, "products"),
    async insert(row: NewProduct, tx: Executor = db) {
      return tx.insertInto("products").values(row).returningAll().executeTakeFirstOrThrow();
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
      // A search is built on each request: its cost is the index scans, and it needs the count
      // of SKU matches first.
      if (filter.q) return search(storeId, plan, { ...filter, q: filter.q }, tx);
      // Which clauses the query has comes from `plan` and `filter`; the values from `v`.
      const build = (v: typeof values) => {
        const { where, column, id, direction } = keyset({
          ...plan,
          after: plan.after && { v: v.afterValue!, id: v.afterId! },
          updatedSince: plan.updatedSince && v.updatedSince,
        });
        let q = db.selectFrom("products").selectAll().where("store_id", "=", v.storeId);
        if (filter.status) q = q.where("status", "=", v.status!);
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
      // Every choice `build` makes, and nothing else: one text for all pages of a sort and filter.
      const shape = `list:${filter.status ? "status" : ""}:${plan.column} ${plan.direction}:${plan.after ? "after" : ""}:${plan.updatedSince ? "since" : ""}`;
      return compiled(tx, shape, values, build);
    },
  };
}
export type ProductRepo = ReturnType<typeof createProductRepo>;
