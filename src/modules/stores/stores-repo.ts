import type { Executor } from "../../db/client.ts";
import type { Store } from "../../db/schema.ts";

export function createStoreRepo(db: Executor) {
  return {
    async insert(
      row: {
        id: string;
        slug: string;
        name: string;
        currency: string;
        owner_account_id: string;
        created_at: Date;
      },
      tx: Executor = db,
    ) {
      return tx
        .insertInto("stores")
        .values({ ...row, updated_at: row.created_at })
        .onConflict((oc) => oc.column("slug").doNothing())
        .returningAll()
        .executeTakeFirst();
    },
    async listByOwner(accountId: string, tx: Executor = db): Promise<Store[]> {
      return tx
        .selectFrom("stores")
        .selectAll()
        .where("owner_account_id", "=", accountId)
        .orderBy("created_at")
        .orderBy("id")
        .limit(1000)
        .execute();
    },
    async findBySlug(slug: string, tx: Executor = db) {
      return tx.selectFrom("stores").selectAll().where("slug", "=", slug).executeTakeFirst();
    },
    async findById(id: string, tx: Executor = db) {
      return tx.selectFrom("stores").selectAll().where("id", "=", id).executeTakeFirst();
    },
    /** Takes the store's next order number; the row lock lives until the caller's transaction ends. */
    async takeOrderNumber(storeId: string, tx: Executor) {
      const row = await tx
        .updateTable("stores")
        .set((eb) => ({ next_order_number: eb("next_order_number", "+", 1) }))
        .where("id", "=", storeId)
        .returning("next_order_number")
        .executeTakeFirstOrThrow();
      return row.next_order_number - 1;
    },
  };
}
export type StoreRepo = ReturnType<typeof createStoreRepo>;

/** The store columns of a row that joined `stores` with `selectAll("s")`. */
export function pickStore(row: Store): Store {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    currency: row.currency,
    owner_account_id: row.owner_account_id,
    next_order_number: row.next_order_number,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
