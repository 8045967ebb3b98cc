import { sql } from "kysely";
import { OrderStatus } from "../../contracts/index.ts";
import type { Executor } from "../../db/client.ts";
import type { Customer } from "../../db/schema.ts";
import { containsPattern, keyset, type PagePlan } from "../../lib/pagination.ts";

/**
 * A customer whose e-mail address or full name contains `text` (case-insensitively). The name is
 * the expression the trigram index of migration 20261124_0010 is built on, written the same way.
 */
export function matchesCustomer(text: string, table = "customers") {
  const like = containsPattern(text);
  const col = (name: string) => sql.ref(`${table}.${name}`);
  return sql<boolean>`(${col("email")} ILIKE ${like} OR (${col("first_name")} || ' ' || ${col("last_name")}) ILIKE ${like})`;
}

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
    /** Locks the row until the transaction ends (edits and deletion of one customer, one at a time). */
    async findForUpdate(storeId: string, id: string, tx: Executor) {
      return tx
        .selectFrom("customers")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .forUpdate()
        .executeTakeFirst();
    },
    /** Applies `changes`; undefined when another customer of the store has the e-mail address. */
    async update(
      storeId: string,
      id: string,
      changes: Partial<Pick<Customer, "email" | "first_name" | "last_name" | "phone" | "anonymized_at">> & {
        updated_at: Date;
      },
      tx: Executor,
    ) {
      if (changes.email !== undefined) {
        const taken = await tx
          .selectFrom("customers")
          .select("id")
          .where("store_id", "=", storeId)
          .where(sql<boolean>`lower(email) = lower(${changes.email})`)
          .where("id", "<>", id)
          .executeTakeFirst();
        if (taken) return undefined;
      }
      return tx
        .updateTable("customers")
        .set(changes)
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    async delete(storeId: string, id: string, tx: Executor) {
      await tx.deleteFrom("customers").where("store_id", "=", storeId).where("id", "=", id).execute();
    },
    /** The customer's orders: how many, what they spent (cancelled orders aside), the last one. */
    async orderStats(storeId: string, id: string, tx: Executor = db) {
      return tx
        .selectFrom("orders")
        .select((eb) => [
          eb.fn.countAll<number>().as("orders"),
          sql<number>`coalesce(sum(total_minor) FILTER (WHERE status <> ${OrderStatus.cancelled}), 0)`.as(
            "spent",
          ),
          eb.fn.max("created_at").as("last_order_at"),
        ])
        .where("store_id", "=", storeId)
        .where("customer_id", "=", id)
        .executeTakeFirstOrThrow();
    },
    async list(storeId: string, plan: PagePlan, filter: { q?: string | undefined } = {}, tx: Executor = db) {
      const { where, column, id, direction } = keyset(plan);
      let q = tx.selectFrom("customers").selectAll().where("store_id", "=", storeId);
      if (filter.q) q = q.where(matchesCustomer(filter.q));
      for (const w of where) q = q.where(w);
      return q
        .orderBy(column, direction)
        .orderBy(id, direction)
        .limit(plan.limit + 1)
        .execute();
    },
  };
}
export type CustomerRepo = ReturnType<typeof createCustomerRepo>;
