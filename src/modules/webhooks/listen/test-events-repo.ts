import { sql } from "kysely";
import { ProductStatus } from "../../../contracts/index.ts";
import type { Db } from "../../../db/client.ts";
import type { StoreSample } from "./test-events.ts";

/** Products a test order may take its line items from: the store's newest active ones. */
const SAMPLED_PRODUCTS = 20;

/**
 * What a test event borrows from its store (test-events.ts): reads only, of the store, its newest
 * products and the calling app; never a customer or an order row (only the highest number).
 */
export function createTestEventRepo(db: Db) {
  return {
    async sample(storeId: string, appId: string): Promise<StoreSample> {
      const store = await db
        .selectFrom("stores")
        .select([
          "name",
          "slug",
          "currency",
          // The highest number given: the store's counter, or an order above it if one was ever
          // numbered otherwise (an import). One index probe on orders_number_key.
          sql<string>`greatest(next_order_number - 1,
            coalesce((SELECT max(number) FROM orders WHERE store_id = ${storeId}), 0))`.as("highest"),
        ])
        .where("id", "=", storeId)
        .executeTakeFirstOrThrow();
      // The newest active products' first variants.
      const products = await db
        .selectFrom("products")
        .innerJoin("product_variants as v", (j) =>
          j.onRef("v.store_id", "=", "products.store_id").onRef("v.product_id", "=", "products.id"),
        )
        .select(["products.title", "v.sku", "v.price_minor"])
        .where("products.store_id", "=", storeId)
        .where("products.status", "=", ProductStatus.active)
        .where("v.position", "=", 0)
        .orderBy("products.created_at", "desc")
        .limit(SAMPLED_PRODUCTS)
        .execute();
      const app = await db
        .selectFrom("apps")
        .select(["client_id", "name"])
        .where("id", "=", appId)
        .executeTakeFirstOrThrow();
      return {
        currency: store.currency,
        highestOrderNumber: Number(store.highest),
        products: products.map((p) => ({ title: p.title, sku: p.sku, priceMinor: Number(p.price_minor) })),
        app: { clientId: app.client_id, name: app.name },
        store: { name: store.name, slug: store.slug },
      };
    },
  };
}
export type TestEventRepo = ReturnType<typeof createTestEventRepo>;
