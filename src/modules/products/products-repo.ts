import { type SelectQueryBuilder, sql } from "kysely";
import { LOW_STOCK_THRESHOLD, UNFULFILLED_ORDER_STATUSES } from "../../contracts/index.ts";
import type { Executor } from "../../db/client.ts";
import { queryShapes } from "../../db/query-shapes.ts";
import type {
  DB,
  NewProduct,
  NewProductVariant,
  Product,
  ProductUpdate,
  ProductVariant,
  VariantUpdate,
} from "../../db/schema.ts";
import { storeTable } from "../../db/store-table.ts";
import { containsPattern, keyset, keysetPage, type PagePlan } from "../../lib/pagination.ts";
import type { ProductListFilter } from "./products-schemas.ts";

/**
 * Above this many suffixes beginning with the searched text, a SKU match is checked row by row
 * instead of being looked up (products-repo `list`). Measured at a million products: an array of
 * 10,000 ids costs 0.13-0.23 s before the page, of 100,000 2.6 s and of a million 29 s; walking
 * the sort's index costs 1 ms when matches are among the first rows it reads and about 2 s when
 * it must read the whole store to find them (a catalogue-wide prefix such as `SKU-0`: 1 ms).
 */
export const SKU_MATCHES_AS_IDS = 10_000;

/**
 * The store's SKU suffixes (every suffix of each variant's SKU, upper-cased: migrations
 * 20261126_0120 and 20261129_0010) that begin with `text`: a text is part of a SKU exactly when it begins one of its suffixes. Written
 * as a range, not LIKE 'x%', which becomes an index range only for a constant and never on a
 * prepared statement's generic plan; a range has no wildcards, so `%` and `_` are literal.
 * U+10FFFF (a noncharacter) sorts after every other character in the column's "C" order.
 */
function skuSuffixRange(storeId: string, text: string, tx: Executor) {
  const part = text.trim();
  return tx
    .selectFrom("variant_sku_suffixes")
    .where("store_id", "=", storeId)
    .where(sql<boolean>`suffix >= upper(${part})`)
    .where(sql<boolean>`suffix < upper(${part}) || chr(1114111)`);
}

type ProductQuery = SelectQueryBuilder<DB, "products", Product>;

/**
 * The list's filters (not the search), each through an index of migration 20261129_0010: which
 * clauses from `which` (the request's filter), their values from `v` (the same filter, or the
 * compiled statement's placeholders: query-shapes.ts).
 */
function filtered(q: ProductQuery, which: ProductListFilter, v: ProductListFilter = which): ProductQuery {
  let out = q;
  if (which.status) out = out.where("status", "=", v.status!);
  if (which.vendor) out = out.where(sql<boolean>`lower(vendor) = lower(${v.vendor})`);
  if (which.productType) out = out.where(sql<boolean>`lower(product_type) = lower(${v.productType})`);
  if (which.tag) out = out.where(sql<boolean>`tags @> ARRAY[${v.tag}]::text[]`);
  // A product has a variant in [min, max] when its cheapest is at most max and its dearest at least min.
  if (which.priceMin !== undefined) out = out.where("price_max_minor", ">=", v.priceMin!);
  if (which.priceMax !== undefined) out = out.where("price_minor", "<=", v.priceMax!);
  if (which.stock === "out_of_stock") out = out.where("stock", "=", 0).where("untracked_variants", "=", 0);
  if (which.stock === "low_stock")
    out = out
      .where("stock", ">", 0)
      .where("stock", "<=", LOW_STOCK_THRESHOLD)
      .where("untracked_variants", "=", 0);
  if (which.stock === "in_stock")
    out = out.where((eb) => eb.or([eb("stock", ">", LOW_STOCK_THRESHOLD), eb("untracked_variants", ">", 0)]));
  return out;
}

/** Which filters a list has (not their values): part of its compiled statement's shape. */
const filterShape = (f: ProductListFilter) =>
  (["status", "vendor", "productType", "tag", "priceMin", "priceMax"] as const)
    .filter((k) => f[k] !== undefined)
    .concat(f.stock ? ([`stock=${f.stock}`] as never[]) : [])
    .join(",");

export function createProductRepo(db: Executor) {
  // The reads every product page runs, compiled once per shape (query-shapes.ts).
  const compiled = queryShapes();
  /** `list` with a search: the title or the SKU contains the text, case-insensitively. */
  async function search(
    storeId: string,
    plan: PagePlan,
    filter: ProductListFilter & { q: string },
    tx: Executor = db,
  ) {
    let q = filtered(tx.selectFrom("products").selectAll().where("store_id", "=", storeId), filter);
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
        : sql<boolean>`EXISTS (SELECT 1 FROM product_variants v WHERE v.store_id = products.store_id
            AND v.product_id = products.id AND upper(v.sku) LIKE upper(${like}))`;
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
    /** Which of `skus` another variant of the store already has (not one of `except`). */
    async takenSkus(storeId: string, skus: string[], except: string[], tx: Executor = db) {
      if (skus.length === 0) return [];
      let q = tx
        .selectFrom("product_variants")
        .select("sku")
        .where("store_id", "=", storeId)
        .where("sku", "in", skus);
      if (except.length) q = q.where("id", "not in", except);
      return (await q.execute()).map((r) => r.sku!);
    },
    /** Each product's variants, in order. */
    async variantsOf(storeId: string, productIds: string[], tx: Executor = db) {
      const byProduct = new Map<string, ProductVariant[]>(productIds.map((id) => [id, []]));
      if (productIds.length === 0) return byProduct;
      const rows = await tx
        .selectFrom("product_variants")
        .selectAll()
        .where("store_id", "=", storeId)
        .where(
          "product_id",
          productIds.length === 1 ? "=" : "in",
          productIds.length === 1 ? productIds[0]! : productIds,
        )
        .orderBy("product_id")
        .orderBy("position")
        .execute();
      for (const r of rows) byProduct.get(r.product_id)?.push(r);
      return byProduct;
    },
    async findVariant(storeId: string, productId: string, variantId: string, tx: Executor = db) {
      return tx
        .selectFrom("product_variants")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("product_id", "=", productId)
        .where("id", "=", variantId)
        .executeTakeFirst();
    },
    async insertVariants(rows: NewProductVariant[], tx: Executor) {
      if (rows.length === 0) return [];
      return tx.insertInto("product_variants").values(rows).returningAll().execute();
    },
    async updateVariant(storeId: string, id: string, changes: VariantUpdate, tx: Executor) {
      return tx
        .updateTable("product_variants")
        .set(changes)
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    async deleteVariants(storeId: string, ids: string[], tx: Executor) {
      if (ids.length === 0) return;
      await tx
        .deleteFrom("product_variants")
        .where("store_id", "=", storeId)
        .where("id", "in", ids)
        .execute();
    },
    /**
     * Which of `variantIds` unfulfilled orders hold (committed stock on an order not yet shipped
     * or cancelled): such a variant is not deleted.
     */
    async variantsOnOpenOrders(storeId: string, variantIds: string[], tx: Executor) {
      if (variantIds.length === 0) return [];
      const rows = await tx
        .selectFrom("order_line_items")
        .innerJoin("orders", (j) =>
          j
            .onRef("orders.store_id", "=", "order_line_items.store_id")
            .onRef("orders.id", "=", "order_line_items.order_id"),
        )
        .select("order_line_items.variant_id")
        .distinct()
        .where("order_line_items.store_id", "=", storeId)
        .where("order_line_items.variant_id", "in", variantIds)
        .where("orders.status", "in", [...UNFULFILLED_ORDER_STATUSES])
        .execute();
      return rows.map((r) => r.variant_id!);
    },
    /**
     * The product's figures from its variants (lowest and highest price, what can be sold, the
     * untracked count). Every writer of a product's variants or stock holds the product's row
     * lock (findForUpdate, or the inventory's lock), so the sums read here are not stale.
     */
    async refreshTotals(storeId: string, productId: string, now: Date | null, tx: Executor) {
      return tx
        .updateTable("products")
        .set({
          price_minor: sql`(SELECT min(price_minor) FROM product_variants v WHERE v.store_id = products.store_id AND v.product_id = products.id)`,
          price_max_minor: sql`(SELECT max(price_minor) FROM product_variants v WHERE v.store_id = products.store_id AND v.product_id = products.id)`,
          stock: sql`(SELECT coalesce(sum(available) FILTER (WHERE tracked), 0) FROM product_variants v WHERE v.store_id = products.store_id AND v.product_id = products.id)`,
          untracked_variants: sql`(SELECT count(*) FILTER (WHERE NOT tracked) FROM product_variants v WHERE v.store_id = products.store_id AND v.product_id = products.id)`,
          ...(now ? { updated_at: now } : {}),
        })
        .where("store_id", "=", storeId)
        .where("id", "=", productId)
        .returningAll()
        .executeTakeFirstOrThrow();
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
    async list(storeId: string, plan: PagePlan, filter: ProductListFilter, tx: Executor = db) {
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
        let q = filtered(db.selectFrom("products").selectAll().where("store_id", "=", v.storeId), filter, v);
        for (const w of where) q = q.where(w);
        return q.orderBy(column, direction).orderBy(id, direction).limit(v.limit);
      };
      const values = {
        storeId,
        ...filter,
        afterValue: plan.after?.v,
        afterId: plan.after?.id,
        updatedSince: plan.updatedSince,
        limit: plan.limit + 1,
      };
      // Every choice `build` makes, and nothing else: one text for all pages of a sort and filter.
      const shape = `list:${filterShape(filter)}:${plan.column} ${plan.direction}:${plan.after ? "after" : ""}:${plan.updatedSince ? "since" : ""}`;
      return compiled(tx, shape, values, build);
    },
  };
}
export type ProductRepo = ReturnType<typeof createProductRepo>;
