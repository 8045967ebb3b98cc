import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { listMigrations, migrate } from "../src/db/migrate.ts";
import { flat } from "./catalogue.ts";
import { apiClient, createTestContext, merchantWithStore, type TestContext, text } from "./harness.ts";

const MIGRATION = listMigrations().find((name) => name.endsWith("_count_products_per_store.sql"));

/**
 * The per-store product counts behind the developer API's `meta.total` (migration
 * 20261123_0040): kept by triggers on every write path, exact under concurrent creates, filled in
 * for rows that existed before the migration. Runs on PGlite and, with TEST_DATABASE_URL, on
 * PostgreSQL.
 */
describe("per-store product counts", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ RATE_LIMIT_PER_MINUTE: "10000" });
  });
  after(() => ctx.close());

  async function storeWithKey() {
    const m = await merchantWithStore(ctx.app);
    const created = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
      params: { path: { slug: m.slug } },
      body: {
        name: "Counts",
        scopes: ["read_products", "write_products"],
      },
    });
    assert.equal(created.response.status, 201);
    const api = apiClient(ctx.app, {
      headers: { "x-api-key": created.data!.data.keyId, "x-api-secret": created.data!.data.secret },
    });
    return { ...m, api };
  }

  /** What the developer API answers as the total, checked against a count(*) of the rows. */
  async function totals(store: Awaited<ReturnType<typeof storeWithKey>>) {
    const res = await store.api.GET("/api/v1/developer/products", { params: { query: { perPage: 1 } } });
    assert.equal(res.response.status, 200, text(res));
    return { answered: res.data!.meta.total as number, rows: await rowCount(ctx, store.store.id) };
  }

  it("counts creates and deletes through the API, one store apart from another", async () => {
    const a = await storeWithKey();
    const b = await storeWithKey();
    assert.deepEqual(await totals(a), { answered: 0, rows: 0 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await a.api.POST("/api/v1/developer/products", {
        body: flat({ title: `A${i}`, price: "1.00" }),
      });
      assert.equal(res.response.status, 201);
      ids.push(res.data!.data.id);
    }
    await b.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: b.slug } },
      body: flat({ title: "B", price: "1.00" }),
    });
    assert.deepEqual(await totals(a), { answered: 5, rows: 5 });
    assert.deepEqual(await totals(b), { answered: 1, rows: 1 });

    assert.equal(
      (await a.api.DELETE("/api/v1/developer/products/{id}", { params: { path: { id: ids[0]! } } })).response
        .status,
      200,
    );
    assert.equal(
      (
        await a.client.DELETE("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: a.slug, id: ids[1]! } },
        })
      ).response.status,
      200,
    );
    // Another store's product: 404, and neither count moves.
    assert.equal(
      (await b.api.DELETE("/api/v1/developer/products/{id}", { params: { path: { id: ids[2]! } } })).response
        .status,
      404,
    );
    assert.deepEqual(await totals(a), { answered: 3, rows: 3 });
    assert.deepEqual(await totals(b), { answered: 1, rows: 1 });

    // A create that fails (duplicate SKU) rolls its count back with it.
    assert.equal(
      (await a.api.POST("/api/v1/developer/products", { body: flat({ title: "S", price: "1", sku: "X" }) }))
        .response.status,
      201,
    );
    assert.equal(
      (await a.api.POST("/api/v1/developer/products", { body: flat({ title: "S", price: "1", sku: "X" }) }))
        .response.status,
      409,
    );
    assert.deepEqual(await totals(a), { answered: 4, rows: 4 });
  });

  it("stays exact under twenty concurrent creates in one store", async () => {
    const a = await storeWithKey();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        a.api.POST("/api/v1/developer/products", { body: flat({ title: `C${i}`, price: "3.00" }) }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.response.status),
      Array(20).fill(201),
    );
    assert.deepEqual(await totals(a), { answered: 20, rows: 20 });
    const deletes = await Promise.all(
      results
        .slice(0, 10)
        .map((r) =>
          a.api.DELETE("/api/v1/developer/products/{id}", { params: { path: { id: r.data!.data.id } } }),
        ),
    );
    assert.deepEqual(
      deletes.map((r) => r.response.status),
      Array(10).fill(200),
    );
    assert.deepEqual(await totals(a), { answered: 10, rows: 10 });
  });

  it("holds on every SQL write path: bulk insert, bulk delete, re-keying, the CHECK, store deletion", async () => {
    const a = await storeWithKey();
    const b = await storeWithKey();
    const db = ctx.platform.db;
    await bulkInsert(ctx, a.store.id, "bulk", 1000);
    await bulkInsert(ctx, b.store.id, "bulk", 7);
    assert.deepEqual(await totals(a), { answered: 1000, rows: 1000 });
    const slots = await db
      .selectFrom("store_row_counts")
      .select(["slot", "n"])
      .where("store_id", "=", a.store.id)
      .execute();
    assert.equal(slots.length, 16, "a thousand ids spread over every slot");

    await sql`DELETE FROM products WHERE store_id = ${a.store.id} AND title LIKE 'bulk-1%'`.execute(db);
    const left = await totals(a);
    assert.equal(left.answered, left.rows);
    assert.ok(left.rows < 1000);

    // A product moved to another store (nothing in the application does this) moves its count.
    await sql`UPDATE products SET store_id = ${b.store.id} WHERE store_id = ${a.store.id} AND id = 'bulk-900'`.execute(
      db,
    );
    await sql`UPDATE products SET id = 'renamed' WHERE store_id = ${b.store.id} AND id = 'bulk-3'`.execute(
      db,
    );
    assert.deepEqual(await totals(a), { answered: left.rows - 1, rows: left.rows - 1 });
    assert.deepEqual(await totals(b), { answered: 8, rows: 8 });

    // A slot never goes negative: the CHECK refuses it rather than let a total be wrong.
    await assert.rejects(
      sql`UPDATE store_row_counts SET n = -1 WHERE store_id = ${b.store.id}`.execute(db),
      /check constraint/,
    );

    // Deleting a store deletes its products and its counts in one statement, without tripping over
    // the counts that the cascade removes.
    await sql`DELETE FROM stores WHERE id = ${b.store.id}`.execute(db);
    assert.equal(await rowCount(ctx, b.store.id), 0);
    const gone = await db
      .selectFrom("store_row_counts")
      .select("slot")
      .where("store_id", "=", b.store.id)
      .execute();
    assert.deepEqual(gone, []);
    assert.deepEqual(await totals(a), { answered: left.rows - 1, rows: left.rows - 1 });
  });

  it("fills in the counts of rows that existed before the migration", async () => {
    assert.ok(MIGRATION, "the migration is listed");
    const own = await createTestContext({ RATE_LIMIT_PER_MINUTE: "10000" });
    try {
      const db = own.platform.db;
      const stores = [
        (await merchantWithStore(own.app)).store.id,
        (await merchantWithStore(own.app)).store.id,
      ];
      // Back to the schema before the migration, with rows written while it was not there.
      await sql`DROP TABLE store_row_counts`.execute(db);
      await sql`DROP TRIGGER products_count_insert ON products`.execute(db);
      await sql`DROP TRIGGER products_count_delete ON products`.execute(db);
      await sql`DROP TRIGGER products_count_rekey ON products`.execute(db);
      await sql`DROP TRIGGER products_count_truncate ON products`.execute(db);
      for (const fn of ["inserted", "deleted", "rekeyed", "truncated"])
        await sql`DROP FUNCTION ${sql.raw(`count_products_${fn}`)}()`.execute(db);
      await sql`DROP FUNCTION row_count_slot(text)`.execute(db);
      await sql`DELETE FROM schema_migrations WHERE name = ${MIGRATION}`.execute(db);
      await bulkInsert(own, stores[0]!, "old", 300);
      await bulkInsert(own, stores[1]!, "old", 42);
      await sql`DELETE FROM products WHERE store_id = ${stores[0]!} AND id IN ('old-1', 'old-2')`.execute(db);

      assert.deepEqual(await migrate(own.platform.database), [MIGRATION]);
      assert.deepEqual(await storeCounts(own, stores), [298, 42]);
      // And the triggers count from there on.
      await bulkInsert(own, stores[1]!, "new", 8);
      await sql`DELETE FROM products WHERE store_id = ${stores[0]!} AND id = 'old-3'`.execute(db);
      assert.deepEqual(await storeCounts(own, stores), [297, 50]);
      for (const id of stores) assert.equal(await rowCount(own, id), (await storeCounts(own, [id]))[0]);

      // TRUNCATE fires no delete trigger; its own trigger clears the counts.
      await sql`TRUNCATE products CASCADE`.execute(db);
      assert.deepEqual(await storeCounts(own, stores), [0, 0]);
    } finally {
      await own.close();
    }
  });
});

async function rowCount(ctx: TestContext, storeId: string) {
  const row = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM products WHERE store_id = ${storeId}`.execute(ctx.platform.db);
  return row.rows[0]!.n;
}

/** Each store's total as the counts hold it (the sum of its slots). */
async function storeCounts(ctx: TestContext, storeIds: string[]) {
  const out: number[] = [];
  for (const id of storeIds) {
    const row = await sql<{ n: number }>`
      SELECT coalesce(sum(n), 0)::int AS n FROM store_row_counts WHERE store_id = ${id} AND resource = 'products'`.execute(
      ctx.platform.db,
    );
    out.push(row.rows[0]!.n);
  }
  return out;
}

/** One INSERT … SELECT of n products with ids `<prefix>-1` … `<prefix>-n`. */
async function bulkInsert(ctx: TestContext, storeId: string, prefix: string, n: number) {
  await sql`
    INSERT INTO products (store_id, id, title, price_minor, price_max_minor, status)
    SELECT ${storeId}, ${prefix} || '-' || i, ${prefix} || '-' || i, 100, 100, 'active'
    FROM generate_series(1, ${n}::int) AS i`.execute(ctx.platform.db);
}
