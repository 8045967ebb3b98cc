import { sql } from "kysely";
import type { Executor } from "../../db/client.ts";
import { jsonb } from "../../db/json.ts";
import type { Location } from "../../db/schema.ts";
import { newId } from "../../lib/ids.ts";

/** A location's columns as written: its address as JSON. */
const written = (row: Partial<Location>) => ({
  ...row,
  ...(row.address !== undefined ? { address: row.address === null ? null : jsonb(row.address) } : {}),
});

/** The name a store's first location is given (the merchant renames it in settings). */
export const FIRST_LOCATION_NAME = "Main location";

export function createLocationRepo(db: Executor) {
  return {
    async find(storeId: string, id: string, tx: Executor = db) {
      return tx
        .selectFrom("locations")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .executeTakeFirst();
    },
    async findForUpdate(storeId: string, id: string, tx: Executor) {
      return tx
        .selectFrom("locations")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .forUpdate()
        .executeTakeFirst();
    },
    /** Every location of the store, oldest first (at most MAX_LOCATIONS). */
    async list(storeId: string, tx: Executor = db) {
      return tx
        .selectFrom("locations")
        .selectAll()
        .where("store_id", "=", storeId)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
    },
    async insert(row: Location, tx: Executor) {
      return tx
        .insertInto("locations")
        .values(written(row) as Location & { address: string | null })
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst();
    },
    async first(storeId: string, now: Date, tx: Executor) {
      return tx
        .insertInto("locations")
        .values({
          store_id: storeId,
          id: newId("location"),
          name: FIRST_LOCATION_NAME,
          address: null,
          is_active: true,
          fulfils_online_orders: true,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    async update(storeId: string, id: string, changes: Partial<Location>, tx: Executor) {
      return tx
        .updateTable("locations")
        .set(written(changes) as { address?: string | null })
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    async delete(storeId: string, id: string, tx: Executor) {
      return tx
        .deleteFrom("locations")
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    /** What the location holds: stock on hand and stock committed to orders, over every variant. */
    async holdings(storeId: string, id: string, tx: Executor) {
      const row = await tx
        .selectFrom("inventory_levels")
        .select([
          sql<string>`coalesce(sum(on_hand), 0)`.as("onHand"),
          sql<string>`coalesce(sum(committed), 0)`.as("committed"),
        ])
        .where("store_id", "=", storeId)
        .where("location_id", "=", id)
        .executeTakeFirstOrThrow();
      return { onHand: Number(row.onHand), committed: Number(row.committed) };
    },
    /**
     * The active locations that fulfil online orders, oldest first: where an order placed without
     * a location commits its stock (the first that holds every line).
     */
    async forOrders(storeId: string, tx: Executor) {
      return tx
        .selectFrom("locations")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("is_active", "=", true)
        .where("fulfils_online_orders", "=", true)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
    },
  };
}
export type LocationRepo = ReturnType<typeof createLocationRepo>;
