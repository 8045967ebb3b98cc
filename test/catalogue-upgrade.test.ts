import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Kysely, sql } from "kysely";
import { createTestContext, merchantWithStore, type TestContext, text } from "./harness.ts";

/**
 * Issue 30's migration on a database an earlier release left: a store with products (one price,
 * SKU and stock each) and orders on them, open and closed. After the upgrade every product is one
 * variant at the store's first location with its price, SKU and stock; what open orders hold is
 * committed there, and their lines name the variant; an app pinned to 2026-11-28 reads the product
 * as before. On PGlite, and on PostgreSQL with TEST_DATABASE_URL.
 */
const CATALOGUE = "20261129_0010_catalogue_variants_locations_inventory.sql";

async function seedOldStore(db: Kysely<unknown>) {
  // One statement at a time: a prepared statement holds one command.
  for (const statement of [
    `INSERT INTO accounts (id, email, name, password_hash) VALUES ('acc_old', 'old@example.com', 'Old', 'x')`,
    `INSERT INTO stores (id, slug, name, currency, owner_account_id) VALUES ('sto_old', 'old-shop', 'Old shop', 'USD', 'acc_old')`,
    `INSERT INTO products (store_id, id, title, price_minor, sku, stock, status) VALUES
        ('sto_old', 'prod_OldMugOldMugOldMug0001', 'Mug', 1250, 'MUG-1', 7, 'active'),
        ('sto_old', 'prod_OldCardOldCardOldCard1', 'Card', 500, NULL, 0, 'draft')`,
    `INSERT INTO customers (store_id, id, email, first_name) VALUES ('sto_old', 'cus_OldCustomerOldCustomer', 'ann@example.com', 'Ann')`,
    `INSERT INTO orders (store_id, id, number, customer_id, status, currency, subtotal_minor, total_minor) VALUES
        ('sto_old', 'ord_OldOpenOldOpenOldOpen0', 1001, 'cus_OldCustomerOldCustomer', 'paid', 'USD', 2500, 2500),
        ('sto_old', 'ord_OldShippedOldShipped00', 1002, 'cus_OldCustomerOldCustomer', 'shipped', 'USD', 1250, 1250),
        ('sto_old', 'ord_OldCancelledOldCancel0', 1003, 'cus_OldCustomerOldCustomer', 'cancelled', 'USD', 500, 500)`,
    `INSERT INTO order_line_items (store_id, id, order_id, position, product_id, title, unit_price_minor, quantity, total_minor) VALUES
        ('sto_old', 'oli_1', 'ord_OldOpenOldOpenOldOpen0', 0, 'prod_OldMugOldMugOldMug0001', 'Mug', 1250, 2, 2500),
        ('sto_old', 'oli_2', 'ord_OldShippedOldShipped00', 0, 'prod_OldMugOldMugOldMug0001', 'Mug', 1250, 1, 1250),
        ('sto_old', 'oli_3', 'ord_OldCancelledOldCancel0', 0, 'prod_OldCardOldCardOldCard1', 'Card', 500, 1, 500)`,
  ])
    await sql.raw(statement).execute(db);
}

describe("catalogue migration on a database that already holds products and orders", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({}, { upgradeFrom: { before: CATALOGUE, seed: seedOldStore } });
  });
  after(async () => ctx?.close());

  it("makes each product one variant at the first location, commits what open orders hold, and keeps the old version's shape", async () => {
    // A merchant who can sign in takes over the old store (its account's password is not known).
    const m = await merchantWithStore(ctx.app);
    await sql`UPDATE stores SET owner_account_id = (SELECT id FROM accounts WHERE email = ${m.email}) WHERE id = 'sto_old'`.execute(
      ctx.platform.db,
    );
    const path = { slug: "old-shop" };
    const [main, ...others] = (
      await m.client.GET("/api/v1/dashboard/stores/{slug}/locations", { params: { path } })
    ).data!.data;
    assert.equal(main!.name, "Main location");
    assert.deepEqual(others, []);
    const mug = await m.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { ...path, id: "prod_OldMugOldMugOldMug0001" } },
    });
    assert.equal(mug.response.status, 200, text(mug));
    const product = mug.data!.data;
    assert.equal(product.variants.length, 1);
    const [variant] = product.variants;
    assert.equal(variant!.sku, "MUG-1");
    assert.equal(variant!.price, "12.50");
    assert.equal(variant!.tracked, true);
    assert.deepEqual(product.priceRange, { min: "12.50", max: "12.50" });
    assert.equal(product.totalAvailable, 7);
    const levels = await m.client.GET("/api/v1/dashboard/stores/{slug}/inventory-levels", {
      params: { path, query: { variantId: variant!.id } },
    });
    assert.deepEqual(
      levels.data!.data.map((l) => [l.locationId, l.available, l.committed, l.onHand]),
      [[main!.id, 7, 2, 9]],
      "the open order's 2 are committed; the shipped and cancelled orders hold nothing",
    );
    // The SKU search reaches the backfilled variant.
    const found = await m.client.GET("/api/v1/dashboard/stores/{slug}/products", {
      params: { path, query: { q: "UG-1" } },
    });
    assert.deepEqual(
      found.data!.data.map((p) => p.id),
      ["prod_OldMugOldMugOldMug0001"],
    );
    // The open order's line names the variant; cancelling it puts its stock back where it was held.
    const order = (
      await m.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", {
        params: { path: { ...path, id: "ord_OldOpenOldOpenOldOpen0" } },
      })
    ).data!.data;
    assert.equal(order.lineItems[0]!.variantId, variant!.id);
    assert.equal(order.lineItems[0]!.variantTitle, "Default");
    const cancelled = await m.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
      params: { path: { ...path, id: "ord_OldOpenOldOpenOldOpen0" } },
      body: { status: "cancelled" },
    });
    assert.equal(cancelled.response.status, 200, text(cancelled));
    const after = await m.client.GET("/api/v1/dashboard/stores/{slug}/inventory-levels", {
      params: { path, query: { variantId: variant!.id } },
    });
    assert.deepEqual(
      after.data!.data.map((l) => [l.available, l.committed, l.onHand]),
      [[9, 0, 9]],
    );
    // A key pair read at 2026-11-28: the flat fields, as the product was before the upgrade.
    const key = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
      params: { path },
      body: { name: "Old integration", scopes: ["read_products"] },
    });
    assert.equal(key.response.status, 201, text(key));
    const old = await ctx.app.inject({
      method: "GET",
      url: "/api/v1/developer/products/prod_OldCardOldCardOldCard1",
      headers: {
        "x-api-key": key.data!.data.keyId,
        "x-api-secret": key.data!.data.secret,
        "api-version": "2026-11-28",
      },
    });
    assert.equal(old.statusCode, 200, old.body);
    const card = (old.json() as { data: Record<string, unknown> }).data;
    assert.deepEqual([card.price, card.sku, card.stock, card.status], ["5.00", null, 0, "draft"]);
    assert.equal("variants" in card, false);
  });
});
