import { randomBytes } from "node:crypto";
import pg from "pg";
import { seedProductsSql } from "./seed-catalogue.ts";

export const BENCH_DATABASE_URL =
  process.env.BENCH_DATABASE_URL || "postgres://postgres:postgres@127.0.0.1:5432/test";
export const BENCH_REDIS_URL = process.env.BENCH_REDIS_URL || "redis://127.0.0.1:6379";

/**
 * A fresh schema of this run on the benchmark's PostgreSQL server (the service creates its tables
 * there at start through DATABASE_SCHEMA); `drop()` removes it with everything in it.
 */
export async function benchSchema(prefix: string) {
  const schema = `${prefix}_${randomBytes(4).toString("hex")}`;
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA "${schema}"`);
  await client.query(`SET search_path TO "${schema}"`);
  return {
    schema,
    client,
    async drop() {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/**
 * Adds `count` products to a store in one statement (seeding through the API would take longer
 * than the benchmark). Newest first is the list order: creation times one second apart, ending now.
 * ANALYZE afterwards, as autovacuum would on a server that has been running.
 */
export async function seedProducts(client: pg.Client, slug: string, count: number): Promise<string> {
  const { rows } = await client.query<{ id: string }>("SELECT id FROM stores WHERE slug = $1", [slug]);
  const storeId = rows[0]?.id;
  if (!storeId) throw new Error(`no store ${slug}`);
  const salt = randomBytes(4).toString("hex");
  await client.query(
    seedProductsSql(`SELECT $1::text AS store_id, 'prod_' || substr(md5($2 || i::text), 1, 22) AS id,
            'Organic cotton T-shirt ' || i AS title,
            'A soft, breathable T-shirt made of 100% organic cotton. Machine washable.' AS description,
            1000 + i % 9000 AS price_minor, 'SKU-' || i AS sku, i % 200 AS stock, 'active' AS status,
            now() - make_interval(secs => $3::int - i) AS created_at, now() - make_interval(secs => $3::int - i) AS updated_at
       FROM generate_series(1, $3::int) AS i`),
    [storeId, salt, count],
  );
  await client.query("ANALYZE products");
  return storeId;
}

/** Product ids of a store spread over the whole catalogue (for GET /products/{id} paths). */
export async function sampleProductIds(client: pg.Client, storeId: string, n: number): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>(
    `SELECT id FROM products WHERE store_id = $1 ORDER BY md5(id) LIMIT $2`,
    [storeId, n],
  );
  return rows.map((r) => r.id);
}
