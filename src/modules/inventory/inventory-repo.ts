import { sql } from "kysely";
import type { InventoryQuantityName } from "../../contracts/index.ts";
import type { Executor } from "../../db/client.ts";
import type { InventoryChange, InventoryLevel } from "../../db/schema.ts";
import { newId } from "../../lib/ids.ts";
import { type ExportWindow, exportWhere } from "../../lib/pagination.ts";

/** A change to one named quantity of one level. */
export interface QuantityDelta {
  quantity: InventoryQuantityName;
  delta: number;
}

/**
 * Stock levels and their history. Every statement that changes a level is one conditional
 * UPDATE: the quantities after must stay at or above zero, which the row lock of that UPDATE
 * checks against the committed value (READ COMMITTED re-reads the row it waited for), so a burst
 * of concurrent writers can never take a unit twice; the CHECK constraints are the last guard.
 */
export function createInventoryRepo(db: Executor) {
  return {
    /** The level, made empty first when the variant has none at the location. */
    async ensureLevel(
      storeId: string,
      productId: string,
      variantId: string,
      locationId: string,
      now: Date,
      tx: Executor,
    ) {
      await tx
        .insertInto("inventory_levels")
        .values({
          store_id: storeId,
          id: newId("inventoryLevel"),
          product_id: productId,
          variant_id: variantId,
          location_id: locationId,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.columns(["store_id", "variant_id", "location_id"]).doNothing())
        .execute();
    },
    /**
     * Applies deltas to one level when every quantity stays at or above zero; undefined (nothing
     * written) when one would not.
     */
    async shift(
      storeId: string,
      variantId: string,
      locationId: string,
      deltas: Record<InventoryQuantityName, number>,
      now: Date,
      tx: Executor,
    ): Promise<InventoryLevel | undefined> {
      const { available: a, committed: c, unavailable: u } = deltas;
      return tx
        .updateTable("inventory_levels")
        .set({
          available: sql`available + ${a}::integer`,
          committed: sql`committed + ${c}::integer`,
          unavailable: sql`unavailable + ${u}::integer`,
          updated_at: now,
        })
        .where("store_id", "=", storeId)
        .where("variant_id", "=", variantId)
        .where("location_id", "=", locationId)
        .where(sql<boolean>`available + ${a}::integer >= 0`)
        .where(sql<boolean>`committed + ${c}::integer >= 0`)
        .where(sql<boolean>`unavailable + ${u}::integer >= 0`)
        .returningAll()
        .executeTakeFirst();
    },
    async level(storeId: string, variantId: string, locationId: string, tx: Executor = db) {
      return tx
        .selectFrom("inventory_levels")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("variant_id", "=", variantId)
        .where("location_id", "=", locationId)
        .executeTakeFirst();
    },
    /** The variant's sum of available over its levels, moved by `delta` (under its product's lock). */
    async addAvailable(storeId: string, variantId: string, delta: number, now: Date, tx: Executor) {
      await tx
        .updateTable("product_variants")
        .set({ available: sql`available + ${delta}::integer`, updated_at: now })
        .where("store_id", "=", storeId)
        .where("id", "=", variantId)
        .execute();
    },
    /** A product's sellable stock moved by `delta` (under its lock; a tracked variant's available moved). */
    async addProductStock(storeId: string, productId: string, delta: number, now: Date, tx: Executor) {
      // A stock change is a product change: `updatedSince` syncs find it.
      await tx
        .updateTable("products")
        .set({ stock: sql`stock + ${delta}::integer`, updated_at: now })
        .where("store_id", "=", storeId)
        .where("id", "=", productId)
        .execute();
    },
    async insertLevels(
      rows: Array<Omit<InventoryLevel, "on_hand" | "committed" | "unavailable">>,
      tx: Executor,
    ) {
      if (rows.length === 0) return [];
      return tx.insertInto("inventory_levels").values(rows).returningAll().execute();
    },
    async insertChanges(rows: InventoryChange[], tx: Executor) {
      if (rows.length) await tx.insertInto("inventory_changes").values(rows).execute();
    },
    /** A bulk export's batch of levels (ExportWindow), by id, of one location when the window names one. */
    async exportBatch(storeId: string, window: ExportWindow, tx: Executor = db) {
      let q = tx.selectFrom("inventory_levels").selectAll().where("store_id", "=", storeId);
      if (window.locationId) q = q.where("location_id", "=", window.locationId);
      for (const w of exportWhere(window)) q = q.where(w);
      return q.orderBy("id").limit(window.limit).execute();
    },
    /** Levels by variant, location or product; ordered by variant then location. */
    async levels(
      storeId: string,
      filter: { productId?: string; variantId?: string; locationId?: string },
      after: { variantId: string; locationId: string } | null,
      limit: number,
      tx: Executor = db,
    ) {
      let q = tx.selectFrom("inventory_levels").selectAll().where("store_id", "=", storeId);
      if (filter.productId) q = q.where("product_id", "=", filter.productId);
      if (filter.variantId) q = q.where("variant_id", "=", filter.variantId);
      if (filter.locationId) q = q.where("location_id", "=", filter.locationId);
      if (after)
        q = q.where(sql<boolean>`(variant_id, location_id) > (${after.variantId}, ${after.locationId})`);
      return q.orderBy("variant_id").orderBy("location_id").limit(limit).execute();
    },
    /** A level's (or a variant's) changes, newest first. */
    async changes(
      storeId: string,
      filter: { variantId?: string; locationId?: string },
      before: { createdAt: Date; id: string } | null,
      limit: number,
      tx: Executor = db,
    ) {
      let q = tx.selectFrom("inventory_changes").selectAll().where("store_id", "=", storeId);
      if (filter.variantId) q = q.where("variant_id", "=", filter.variantId);
      if (filter.locationId) q = q.where("location_id", "=", filter.locationId);
      if (before) q = q.where(sql<boolean>`(created_at, id) < (${before.createdAt}, ${before.id})`);
      return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
    },
    /** The levels of `variantIds` at `locationIds`. */
    async levelsAt(storeId: string, variantIds: string[], locationIds: string[], tx: Executor = db) {
      if (variantIds.length === 0 || locationIds.length === 0) return [];
      return tx
        .selectFrom("inventory_levels")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("variant_id", "in", variantIds)
        .where("location_id", "in", locationIds)
        .execute();
    },
    /** Variants with what they belong to, for a write naming them. */
    async variantsByIds(storeId: string, ids: string[], tx: Executor = db) {
      if (ids.length === 0) return [];
      return tx
        .selectFrom("product_variants")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("id", "in", ids)
        .execute();
    },
    /**
     * Locks the products' rows in id order (every stock writer takes a product's lock first) and
     * answers their sellable stock as it is now.
     */
    async lockProducts(storeId: string, productIds: string[], tx: Executor) {
      const ids = [...new Set(productIds)].sort();
      if (ids.length === 0) return [];
      return tx
        .selectFrom("products")
        .select(["id", "stock", "status", "title"])
        .where("store_id", "=", storeId)
        .where("id", "in", ids)
        .orderBy("id")
        .forUpdate()
        .execute();
    },
  };
}
export type InventoryRepo = ReturnType<typeof createInventoryRepo>;
