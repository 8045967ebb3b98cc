import { sql } from "kysely";
import type { Executor } from "../../db/client.ts";
import type { Customer } from "../../db/schema.ts";
import { keyset, type PagePlan } from "../../lib/pagination.ts";

export function createCustomerRepo(db: Executor) {
  return {
    /** Inserts unless the store already has this e-mail address (case-insensitively); then returns undefined. */
    async insert(row: Customer, tx: Executor = db) {
      return tx
        .insertInto("customers")
        .values(row)
        .onConflict((oc) => oc.expression(sql`store_id, lower(email)`).doNothing())
        .returningAll()
        .executeTakeFirst();
    },
    async find(storeId: string, id: string, tx: Executor = db) {
      return tx
        .selectFrom("customers")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .executeTakeFirst();
    },
    async list(storeId: string, plan: PagePlan, tx: Executor = db) {
      const { where, column, direction } = keyset(plan);
      let q = tx.selectFrom("customers").selectAll().where("store_id", "=", storeId);
      for (const w of where) q = q.where(w);
      return q
        .orderBy(column, direction)
        .orderBy("id", direction)
        .limit(plan.limit + 1)
        .execute();
    },
  };
}
export type CustomerRepo = ReturnType<typeof createCustomerRepo>;
