import { type Kysely, sql } from "kysely";
import type { DB } from "../src/db/schema.ts";
import type { components } from "./generated/api.ts";

type Product = components["schemas"]["Product"];
type CreateBody = {
  title: string;
  description?: string;
  status?: "active" | "draft" | "archived";
  metadata?: Record<string, string | null>;
  variants: Array<{ price: string; sku?: string | null; inventoryQuantity?: number }>;
};

/**
 * A product with one variant, written as the tests wrote products before variants (issue 30):
 * its price, SKU and stock become its only variant's, the stock available at the store's first
 * location. Most tests are about something else than the catalogue's shape.
 */
export function flat<
  T extends {
    title: string;
    price: string;
    sku?: string | null;
    stock?: number;
    description?: string;
    status?: "active" | "draft" | "archived";
    metadata?: Record<string, string | null>;
  },
>(p: T): CreateBody {
  const { price, sku, stock, ...rest } = p;
  return {
    ...rest,
    variants: [
      {
        price,
        ...(sku !== undefined ? { sku } : {}),
        ...(stock !== undefined ? { inventoryQuantity: stock } : {}),
      },
    ],
  };
}

/** A PATCH of a one-variant product's price, SKU or stock, as its only variant's. */
export function flatPatch<
  T extends {
    price?: string;
    sku?: string | null;
    stock?: number;
    title?: string;
    description?: string;
    status?: "active" | "draft" | "archived";
    metadata?: Record<string, string | null>;
  },
>(p: T) {
  const { price, sku, stock, ...rest } = p;
  const variant = {
    ...(price !== undefined ? { price } : {}),
    ...(sku !== undefined ? { sku } : {}),
    ...(stock !== undefined ? { inventoryQuantity: stock } : {}),
  };
  return Object.keys(variant).length ? { ...rest, variants: [variant] } : rest;
}

/** A one-variant product's price, SKU and stock, as tests read them before variants. */
export const priceOf = (p: Pick<Product, "variants">) => p.variants[0]!.price;
export const skuOf = (p: Pick<Product, "variants">) => p.variants[0]!.sku;
export const stockOf = (p: Pick<Product, "totalAvailable">) => p.totalAvailable;

/** Who writes stock when a test calls the services directly: the platform. */
export const SYSTEM_ACTOR = { kind: "system", id: null } as const;

/**
 * One variant for each product made by a bulk INSERT into `products` (the tests' and benchmarks'
 * seeds, which skip the services): its SKU, price and stock available at the store's first
 * location, and the product's figures to match, in three statements whatever the count. What the
 * migration of issue 30 does for the products that existed before variants.
 */
export async function addVariants(
  db: Kysely<DB>,
  storeId: string,
  rows: ReadonlyArray<{ productId: string; sku?: string | null; stock?: number; priceMinor?: number }>,
): Promise<void> {
  if (rows.length === 0) return;
  const ids = rows.map((r) => r.productId);
  const skus = rows.map((r) => r.sku ?? null);
  const stocks = rows.map((r) => r.stock ?? 0);
  const prices = rows.map((r) => r.priceMinor ?? null);
  await sql`
    WITH given AS (
      SELECT * FROM unnest(${ids}::text[], ${skus}::text[], ${stocks}::int[], ${prices}::bigint[])
        AS g(product_id, sku, stock, price_minor)
    )
    INSERT INTO product_variants (store_id, id, product_id, position, title, sku, price_minor, tracked, available, created_at, updated_at)
    SELECT p.store_id, 'var_' || left(md5(p.id || ':variant'), 22), p.id, 0, 'Default', g.sku,
           coalesce(g.price_minor, p.price_minor), true, g.stock, p.created_at, p.updated_at
      FROM given g JOIN products p ON p.store_id = ${storeId} AND p.id = g.product_id`.execute(db);
  await sql`
    INSERT INTO inventory_levels (store_id, id, variant_id, location_id, product_id, available, updated_at)
    SELECT v.store_id, 'ilvl_' || left(md5(v.id || ':level'), 22), v.id,
           (SELECT id FROM locations l WHERE l.store_id = v.store_id ORDER BY created_at, id LIMIT 1),
           v.product_id, v.available, v.updated_at
      FROM product_variants v WHERE v.store_id = ${storeId} AND v.product_id = ANY(${ids}::text[])`.execute(
    db,
  );
  await sql`
    UPDATE products p SET price_minor = v.price_minor, price_max_minor = v.price_minor, stock = v.available
      FROM product_variants v
     WHERE p.store_id = ${storeId} AND p.id = ANY(${ids}::text[]) AND v.store_id = p.store_id AND v.product_id = p.id`.execute(
    db,
  );
}
