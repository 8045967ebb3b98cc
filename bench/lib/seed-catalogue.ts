/**
 * A bulk seed of one-variant products in one statement (issue 30: a product's price, SKU and stock
 * are its variant's, its stock at the store's first location). `select` yields the columns
 * store_id, id, title, description, price_minor, sku, stock, status, created_at, updated_at; the
 * products, their variants and their levels are made from it as the migration made them for the
 * products that existed before variants (ids derived from the product's).
 */
export function seedProductsSql(select: string): string {
  return `WITH seed AS MATERIALIZED (${select}),
  p AS (
    INSERT INTO products (store_id, id, title, description, price_minor, price_max_minor, stock, status, created_at, updated_at)
    SELECT store_id, id, title, description, price_minor, price_minor, stock, status, created_at, updated_at FROM seed
    RETURNING id
  ),
  v AS (
    INSERT INTO product_variants (store_id, id, product_id, position, title, sku, price_minor, tracked, available, created_at, updated_at)
    SELECT store_id, 'var_' || left(md5(id || ':variant'), 22), id, 0, 'Default', sku, price_minor, true, stock, created_at, updated_at
      FROM seed
  )
  INSERT INTO inventory_levels (store_id, id, variant_id, location_id, product_id, available, created_at, updated_at)
  SELECT s.store_id, 'ilvl_' || left(md5(s.id || ':level'), 22), 'var_' || left(md5(s.id || ':variant'), 22),
         (SELECT l.id FROM locations l WHERE l.store_id = s.store_id ORDER BY l.created_at, l.id LIMIT 1),
         s.id, s.stock, s.created_at, s.updated_at
    FROM seed s`;
}
