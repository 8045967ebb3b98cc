import { sql } from "kysely";
import type { DiscountStatus } from "../../contracts/index.ts";
import type { Executor } from "../../db/client.ts";
import type { Discount } from "../../db/schema.ts";
import { keysetPage, type PagePlan } from "../../lib/pagination.ts";

export type DiscountRow = Omit<Discount, "times_used">;
export type DiscountChanges = Partial<Omit<DiscountRow, "store_id" | "id" | "created_at">> & {
  updated_at: Date;
};

/** Discount codes (issue 31): their rows, the codes an order names, and each use. */
export function createDiscountRepo(db: Executor) {
  return {
    async list(storeId: string, plan: PagePlan, filter: { status?: DiscountStatus | undefined }) {
      let q = db.selectFrom("discounts").selectAll().where("store_id", "=", storeId);
      if (filter.status) q = q.where("status", "=", filter.status);
      return keysetPage(q, plan).execute();
    },
    async find(storeId: string, id: string, tx: Executor = db, lock = false) {
      const q = tx.selectFrom("discounts").selectAll().where("store_id", "=", storeId).where("id", "=", id);
      return (lock ? q.forUpdate() : q).executeTakeFirst();
    },
    /** The store's discounts with these codes, whatever their case. */
    async byCodes(storeId: string, codes: readonly string[], tx: Executor) {
      if (codes.length === 0) return [];
      return tx
        .selectFrom("discounts")
        .selectAll()
        .where("store_id", "=", storeId)
        .where(
          sql<string>`lower(code)`,
          "in",
          codes.map((c) => c.toLowerCase()),
        )
        .execute();
    },
    /** Undefined when another discount of the store has the code (the unique index says so). */
    async insert(row: DiscountRow, tx: Executor) {
      return tx
        .insertInto("discounts")
        .values(row)
        .onConflict((oc) => oc.expression(sql`store_id, lower(code)`).doNothing())
        .returningAll()
        .executeTakeFirst();
    },
    async codeTaken(storeId: string, code: string, exceptId: string, tx: Executor) {
      const row = await tx
        .selectFrom("discounts")
        .select("id")
        .where("store_id", "=", storeId)
        .where(sql<string>`lower(code)`, "=", code.toLowerCase())
        .where("id", "<>", exceptId)
        .executeTakeFirst();
      return row !== undefined;
    },
    async update(storeId: string, id: string, changes: DiscountChanges, tx: Executor) {
      return tx
        .updateTable("discounts")
        .set(changes)
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    async remove(storeId: string, id: string, tx: Executor) {
      await tx.deleteFrom("discounts").where("store_id", "=", storeId).where("id", "=", id).execute();
    },
    /**
     * Takes one use of the discount for an order, or nothing when none is left: the check and the
     * increment are one statement, so a burst of orders cannot pass the limit between a read and a
     * write (the row's CHECK holds the same line). The row stays locked until the order commits or
     * rolls back (an order refused later gives its use back with its transaction), which also
     * makes a customer's second order with a once-per-customer code wait to see the first's use.
     */
    async reserve(storeId: string, id: string, tx: Executor): Promise<boolean> {
      const row = await tx
        .updateTable("discounts")
        .set({ times_used: sql`times_used + 1` })
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .where((eb) => eb.or([eb("usage_limit", "is", null), eb("times_used", "<", eb.ref("usage_limit"))]))
        .returning("id")
        .executeTakeFirst();
      return row !== undefined;
    },
    async usedBy(storeId: string, discountId: string, customerId: string, tx: Executor) {
      const row = await tx
        .selectFrom("discount_usages")
        .select("order_id")
        .where("store_id", "=", storeId)
        .where("discount_id", "=", discountId)
        .where("customer_id", "=", customerId)
        .executeTakeFirst();
      return row !== undefined;
    },
    async recordUse(
      row: { store_id: string; discount_id: string; order_id: string; customer_id: string; used_at: Date },
      tx: Executor,
    ) {
      await tx.insertInto("discount_usages").values(row).execute();
    },
    /**
     * An order's use of a discount given back (an edit took the code off it): its usage row
     * deleted and the count lowered, in one transaction; nothing when it was never recorded.
     */
    async releaseUse(storeId: string, discountId: string, orderId: string, tx: Executor) {
      const gone = await tx
        .deleteFrom("discount_usages")
        .where("store_id", "=", storeId)
        .where("discount_id", "=", discountId)
        .where("order_id", "=", orderId)
        .returning("order_id")
        .executeTakeFirst();
      if (!gone) return;
      await tx
        .updateTable("discounts")
        .set({ times_used: sql`greatest(times_used - 1, 0)` })
        .where("store_id", "=", storeId)
        .where("id", "=", discountId)
        .execute();
    },
  };
}
export type DiscountRepo = ReturnType<typeof createDiscountRepo>;
