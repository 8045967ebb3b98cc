/**
 * The catalogue migration of issue 30 (20261129_0010) on a database that already holds a large
 * store: every migration before it, then `--million-rows` products (one price, SKU and stock each)
 * with orders on them, some unfulfilled (their stock becomes `committed`), then the migration
 * timed as the service applies it (one transaction). Each run on a database of its own; after it,
 * the figures are checked: one variant and one level per product, stock kept, each order line on
 * its variant.
 */
import pg from "pg";
import { openDatabase } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import type { BenchOptions } from "./lib/options.ts";
import { BENCH_DATABASE_URL } from "./lib/pg.ts";
import { addFigure, part, printRuns } from "./lib/report.ts";
import { fmt, load, median } from "./lib/stats.ts";

const CATALOGUE = "20261129_0010_catalogue_variants_locations_inventory.sql";
const ORDERS = 20_000;

function databaseUrl(name: string): string {
  const url = new URL(BENCH_DATABASE_URL);
  url.pathname = `/${name}`;
  url.search = "";
  return url.toString();
}

/** The store as it stood before variants: products, customers, orders of two lines each. */
export async function seedBefore(client: pg.Client, products: number): Promise<void> {
  await client.query(`
    INSERT INTO accounts (id, email, name, password_hash) VALUES ('acc_bench', 'bench@example.com', 'Bench', 'x');
    INSERT INTO stores (id, slug, name, currency, owner_account_id) VALUES ('sto_bench', 'bench', 'Bench', 'USD', 'acc_bench');
  `);
  await client.query(
    `INSERT INTO products (store_id, id, title, description, price_minor, sku, stock, status, created_at, updated_at)
     SELECT 'sto_bench', 'prod_' || substr(md5(i::text), 1, 22), 'Organic cotton T-shirt ' || i,
            'A soft, breathable T-shirt made of 100% organic cotton.', 1000 + i % 9000, 'SKU-' || i, i % 200,
            'active', now() - make_interval(secs => $1::int - i), now() - make_interval(secs => $1::int - i)
       FROM generate_series(1, $1::int) AS i`,
    [products],
  );
  await client.query(
    `INSERT INTO customers (store_id, id, email, first_name)
     SELECT 'sto_bench', 'cus_' || substr(md5('c' || i), 1, 22), 'c' || i || '@example.com', 'C' || i
       FROM generate_series(1, 1000) AS i`,
  );
  // A fifth of the orders unfulfilled (pending, paid, confirmed): their lines hold stock.
  await client.query(
    `INSERT INTO orders (store_id, id, number, customer_id, status, currency, subtotal_minor, total_minor)
     SELECT 'sto_bench', 'ord_' || substr(md5('o' || i), 1, 22), 1000 + i, 'cus_' || substr(md5('c' || (1 + i % 1000)), 1, 22),
            (ARRAY['pending', 'paid', 'confirmed', 'shipped', 'delivered', 'shipped', 'delivered', 'delivered', 'cancelled', 'delivered',
                   'delivered', 'delivered', 'shipped', 'delivered', 'delivered'])[1 + i % 15],
            'USD', 2000, 2000
       FROM generate_series(1, $1::int) AS i`,
    [ORDERS],
  );
  await client.query(
    `INSERT INTO order_line_items (store_id, id, order_id, position, product_id, title, unit_price_minor, quantity, total_minor)
     SELECT 'sto_bench', 'oli_' || substr(md5('l' || i || '-' || k), 1, 22), 'ord_' || substr(md5('o' || i), 1, 22), k,
            'prod_' || substr(md5((1 + (i * 7 + k) % $2::int)::text), 1, 22), 'T-shirt', 1000, 1, 1000
       FROM generate_series(1, $1::int) AS i CROSS JOIN generate_series(0, 1) AS k`,
    [ORDERS, products],
  );
  await client.query("ANALYZE");
}

export async function benchCatalogueMigration(o: BenchOptions): Promise<void> {
  const products = o.millionRows;
  const end = part(`catalogue migration on ${fmt(products)} products (bench/catalogue-migration.ts)`, [
    `${o.runs} runs, each on a fresh database: the migrations before ${CATALOGUE}, ${fmt(products)} products, ${fmt(ORDERS)} orders of 2 lines (a fifth unfulfilled), then the migration in one transaction`,
  ]);
  const seconds: number[] = [];
  const admin = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  await admin.connect();
  try {
    for (let r = 1; r <= o.runs; r++) {
      const name = `bench_catmig_${process.pid}_${r}`;
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin.query(`CREATE DATABASE "${name}"`);
      const client = new pg.Client({ connectionString: databaseUrl(name) });
      await client.connect();
      const database = await openDatabase({ url: databaseUrl(name), poolSize: 1 });
      try {
        // As the service applies them (src/db/migrate.ts): every one before the catalogue's here…
        await migrate(database, { before: CATALOGUE });
        const seeding = performance.now();
        await seedBefore(client, products);
        const seeded = (performance.now() - seeding) / 1000;
        const { rows: held } = await client.query<{ stock: string; held: string }>(
          `SELECT (SELECT sum(stock) FROM products)::text AS stock,
                  (SELECT sum(li.quantity) FROM order_line_items li JOIN orders o ON o.store_id = li.store_id AND o.id = li.order_id
                    WHERE o.status IN ('pending', 'paid', 'confirmed'))::text AS held`,
        );
        const loadAtStart = load();
        const started = performance.now();
        // …and the catalogue's alone here (the names after it sort after this one).
        await migrate(database, { before: `${CATALOGUE}\u0000` });
        const took = (performance.now() - started) / 1000;
        seconds.push(took);
        const { rows } = await client.query<Record<string, string>>(
          `SELECT (SELECT count(*) FROM product_variants)::text AS variants,
                  (SELECT count(*) FROM inventory_levels)::text AS levels,
                  (SELECT sum(available)::text FROM inventory_levels) AS available,
                  (SELECT sum(committed)::text FROM inventory_levels) AS committed,
                  (SELECT count(*) FROM order_line_items WHERE variant_id IS NULL)::text AS unlinked`,
        );
        const after = rows[0]!;
        const problems = [
          after.variants !== String(products) && `variants ${after.variants}`,
          after.levels !== String(products) && `levels ${after.levels}`,
          after.available !== held[0]!.stock && `available ${after.available} ≠ stock ${held[0]!.stock}`,
          after.committed !== held[0]!.held && `committed ${after.committed} ≠ held ${held[0]!.held}`,
          after.unlinked !== "0" && `${after.unlinked} lines without a variant`,
        ].filter(Boolean);
        if (problems.length)
          throw new Error(`run ${r}: the migration lost something: ${problems.join("; ")}`);
        console.log(
          `  run ${r}: seeded in ${fmt(seeded, 1)} s; migration ${fmt(took, 1)} s (${fmt(products / took)} products/s), load ${loadAtStart} → ${load()}; ${after.variants} variants, ${after.levels} levels, available ${after.available}, committed ${after.committed}`,
        );
      } finally {
        await database.close();
        await client.end();
        // FORCE: the pool's connection may still be closing.
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }
    }
    const m = printRuns("migration seconds", seconds, "s", 1);
    addFigure({
      figure: `Catalogue migration on ${fmt(products)} products with ${fmt(ORDERS)} orders (one transaction)`,
      value: `${fmt(m, 1)} s`,
      floor: "—",
      ratio: "—",
      target: "reported",
      met: null,
    });
    console.log(`  products per second (median run): ${fmt(products / median(seconds))}`);
  } finally {
    await admin.end();
    end();
  }
}
