import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { SKU_MATCHES_AS_IDS } from "../src/modules/products/products-repo.ts";
import { installedApp } from "./apps-harness.ts";
import { addVariants, flat, flatPatch } from "./catalogue.ts";
import {
  type Api,
  createTestContext,
  type ErrorBody,
  fieldErrors,
  merchantWithStore,
  offDocument,
  type QueryOf,
  type RequestBody,
  type TestContext,
  text,
} from "./harness.ts";
import { openApiChecker } from "./openapi-assert.ts";

/**
 * Search (`q`) and sort (`sort`) of the product, customer and order lists, on the dashboard and the
 * Admin API, walked page by page with cursors: every matching row exactly once, in the asked order,
 * nothing from another store; a cursor of another sort or search, a short text or an unknown sort
 * key is a 400.
 */
type Checker = Awaited<ReturnType<typeof openApiChecker>>;

/** A list operation called with a query: one of the document's cursor lists. */
type List<Q, T> = (query: Q) => Promise<{
  data?: { data: T[]; meta: { nextCursor: string | null } };
  error?: ErrorBody;
  response: Response;
}>;

/** Every item of a list with `query`, `limit` a page, page by page by its cursor. */
async function all<Q extends { limit?: number; cursor?: string }, T>(
  list: List<Q, T>,
  query: Q,
  limit = 2,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const res = await list({ ...query, limit, ...(cursor ? { cursor } : {}) });
    assert.equal(res.response.status, 200, text(res));
    out.push(...res.data!.data);
    cursor = res.data!.meta.nextCursor;
    if (!cursor) return out;
  }
  throw new Error("too many pages");
}

describe("lists: search and sort", () => {
  let ctx: TestContext;
  let spec: Checker;
  let merchant: Awaited<ReturnType<typeof merchantWithStore>>;
  let admin: Api;
  let developer: { client: Api; clientId: string };
  // The lists, by their place in the document.
  const dashboardProducts = (query: QueryOf<"/api/v1/dashboard/stores/{slug}/products">) =>
    merchant.client.GET("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: merchant.slug }, query },
    });
  const dashboardCustomers = (query: QueryOf<"/api/v1/dashboard/stores/{slug}/customers">) =>
    merchant.client.GET("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: merchant.slug }, query },
    });
  const dashboardOrders = (query: QueryOf<"/api/v1/dashboard/stores/{slug}/orders">) =>
    merchant.client.GET("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: merchant.slug }, query },
    });
  const adminProducts = (query: QueryOf<"/api/v1/apps/api/products">) =>
    admin.GET("/api/v1/apps/api/products", { params: { query } });
  const adminCustomers = (query: QueryOf<"/api/v1/apps/api/customers">) =>
    admin.GET("/api/v1/apps/api/customers", { params: { query } });
  const adminOrders = (query: QueryOf<"/api/v1/apps/api/orders">) =>
    admin.GET("/api/v1/apps/api/orders", { params: { query } });
  const PRODUCTS = [
    { title: "Linen shirt", sku: "SHIRT-LIN-M", price: "39.00", stock: 5 },
    { title: "Linen trousers", sku: "TRS-LIN-32", price: "59.00", stock: 2 },
    { title: "Cotton shirt", sku: "SHIRT-COT-L", price: "25.00", stock: 12 },
    { title: "Wool scarf", sku: "SCARF-W", price: "19.50", stock: 0 },
    { title: "Silk tie 100%_pure", sku: null, price: "45.00", stock: 7 },
  ];

  before(async () => {
    ctx = await createTestContext();
    spec = await openApiChecker(ctx.app);
    const inst = await installedApp(ctx.app, [
      "read_products",
      "read_orders",
      "read_customers",
      "manage_webhooks",
    ]);
    merchant = { ...inst.merchant, client: spec.watch(inst.merchant.client) } as typeof merchant;
    admin = spec.watch(inst.api);
    developer = { client: spec.watch(inst.dev.client), clientId: inst.clientId };
    for (const p of PRODUCTS) {
      ctx.clock.advance(1000);
      const res = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: merchant.slug } },
        body: flat({ ...p, sku: p.sku ?? undefined }),
      });
      assert.equal(res.response.status, 201, text(res));
    }
    for (const [first, last, email] of [
      ["Layla", "Haddad", "layla@example.com"],
      ["Omar", "Haddad", "omar.h@example.org"],
      ["Sara", "Ali", "sara@shop.example"],
    ] as const) {
      ctx.clock.advance(1000);
      assert.equal(
        (
          await merchant.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
            params: { path: { slug: merchant.slug } },
            body: {
              firstName: first,
              lastName: last,
              email,
            },
          })
        ).response.status,
        201,
      );
    }
    // Another store with look-alike data: never in these lists.
    const other = await merchantWithStore(ctx.app);
    await other.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: other.slug } },
      body: flat({
        title: "Linen shirt",
        sku: "SHIRT-LIN-M",
        price: "1.00",
      }),
    });
    await other.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: other.slug } },
      body: {
        firstName: "Layla",
        lastName: "Haddad",
        email: "layla@example.com",
      },
    });
  });
  after(async () => ctx?.close());

  it("products: q matches text anywhere in the title or the SKU, case-insensitively, LIKE wildcards taken literally", async () => {
    for (const list of [dashboardProducts, adminProducts]) {
      const titles = async (q: string) => (await all(list, { q })).map((p) => p.title).sort();
      assert.deepEqual(await titles("linen"), ["Linen shirt", "Linen trousers"]);
      assert.deepEqual(await titles("SHIRT"), ["Cotton shirt", "Linen shirt"]);
      assert.deepEqual(await titles("trs-lin"), ["Linen trousers"], "the start of an SKU");
      assert.deepEqual(await titles("LIN-32"), ["Linen trousers"], "the middle of an SKU");
      assert.deepEqual(await titles("n-3"), ["Linen trousers"], "any part of an SKU, any case");
      assert.deepEqual(await titles("carf-w"), ["Wool scarf"], "the end of an SKU");
      assert.deepEqual(await titles("0%_p"), ["Silk tie 100%_pure"]);
      assert.deepEqual(await titles("0%_"), ["Silk tie 100%_pure"], "% and _ are not wildcards");
      assert.deepEqual(await titles("n_s"), [], "_ is not any character");
      assert.deepEqual(await titles("velvet"), []);
    }
  });

  it("products: every sort, both directions, page by page (2 a page): each row once, in order", async () => {
    const expect = (key: "title" | "price" | "stock", desc: boolean) => {
      const value = (p: (typeof PRODUCTS)[number]) => (key === "price" ? Number(p.price) : p[key]);
      return [...PRODUCTS]
        .sort((a, b) => {
          const x = value(a);
          const y = value(b);
          return (x < y ? -1 : x > y ? 1 : 0) * (desc ? -1 : 1);
        })
        .map((p) => p.title);
    };
    for (const [base, list] of [
      [`${merchant.base}/products`, dashboardProducts],
      ["/api/v1/apps/api/products", adminProducts],
    ] as const) {
      for (const key of ["title", "price", "stock"] as const) {
        for (const desc of [false, true]) {
          const rows = await all(list, { sort: desc ? (`-${key}` as const) : key });
          assert.deepEqual(
            rows.map((p) => p.title),
            expect(key, desc),
            `${base} sort=${desc ? "-" : ""}${key}`,
          );
        }
      }
      const newest = await all(list, {});
      assert.deepEqual(
        newest.map((p) => p.title),
        [...PRODUCTS].reverse().map((p) => p.title),
        "newest first by default",
      );
      assert.deepEqual(
        (await all(list, { sort: "createdAt" })).map((p) => p.title),
        PRODUCTS.map((p) => p.title),
      );
      const shirts = await all(list, { q: "shirt", sort: "-price" }, 1);
      assert.deepEqual(
        shirts.map((p) => p.title),
        ["Linen shirt", "Cotton shirt"],
        "search and sort together",
      );
    }
  });

  it("customers: q by e-mail or full name; sort by last name", async () => {
    const emails = async (q: string) => (await all(dashboardCustomers, { q })).map((c) => c.email);
    assert.deepEqual((await emails("haddad")).sort(), ["layla@example.com", "omar.h@example.org"]);
    assert.deepEqual(await emails("layla hadd"), ["layla@example.com"]);
    assert.deepEqual(await emails("shop.example"), ["sara@shop.example"]);
    const byLastName = await all(dashboardCustomers, { sort: "lastName" });
    assert.deepEqual(
      byLastName.map((c) => c.lastName),
      ["Ali", "Haddad", "Haddad"],
    );
    assert.equal(new Set(byLastName.map((c) => c.id)).size, 3, "each once (the id breaks the tie)");
    assert.deepEqual(
      (await all(adminCustomers, { q: "haddad", sort: "-email" })).map((c) => c.email),
      ["omar.h@example.org", "layla@example.com"],
    );
  });

  it("orders: q by number (with or without #) or by the customer; sort by total", async () => {
    const customers = await all(dashboardCustomers, { sort: "email" });
    const products = await all(dashboardProducts, { sort: "title" });
    const order = async (customer: { id: string }, product: { id: string }, quantity: number) => {
      ctx.clock.advance(1000);
      const res = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: merchant.slug } },
        body: {
          customerId: customer.id,
          lineItems: [{ productId: product.id, quantity }],
        },
      });
      assert.equal(res.response.status, 201, text(res));
      return res.data!.data;
    };
    const cotton = products.find((p) => p.title === "Cotton shirt")!;
    const a = await order(customers[0]!, cotton, 1); // layla, 25.00
    const b = await order(customers[1]!, cotton, 3); // omar, 75.00
    const c = await order(customers[2]!, cotton, 2); // sara, 50.00
    const numbers = async (query: QueryOf<"/api/v1/dashboard/stores/{slug}/orders">) =>
      (await all(dashboardOrders, query)).map((o) => o.number);
    assert.deepEqual(await numbers({ q: String(a.number) }), [a.number]);
    assert.deepEqual(await numbers({ q: `#${c.number}` }), [c.number]);
    assert.deepEqual(await numbers({ q: "omar" }), [b.number]);
    assert.deepEqual(await numbers({ q: "99999" }), [], "a number searches order numbers only");
    assert.deepEqual(await numbers({ q: "haddad", sort: "total" }), [a.number, b.number]);
    assert.deepEqual(await numbers({ sort: "-total" }), [b.number, c.number, a.number]);
    assert.deepEqual(
      (await all(adminOrders, { sort: "number" })).map((o) => o.number),
      [a.number, b.number, c.number],
    );
  });

  it("refuses a cursor of another sort or search, a short text and an unknown sort with 400 VALIDATION_FAILED", async () => {
    const base = `${merchant.base}/products`;
    const first = await merchant.client.GET("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: merchant.slug }, query: { sort: "title", limit: 1 } },
    });
    const cursor = first.data!.meta.nextCursor!;
    // Each labelled with the URL it reads; the sorts no list has are sent offDocument.
    for (const [url, read] of [
      [`${base}?sort=-title&cursor=${cursor}`, () => dashboardProducts({ sort: "-title", cursor })],
      [
        `${base}?sort=title&q=shirt&cursor=${cursor}`,
        () => dashboardProducts({ sort: "title", q: "shirt", cursor }),
      ],
      [`${base}?cursor=${cursor}`, () => dashboardProducts({ cursor })],
      [`${base}?q=ab`, () => dashboardProducts({ q: "ab" })],
      [`${base}?q=${encodeURIComponent("   ")}`, () => dashboardProducts({ q: "   " })],
      [`${base}?sort=color`, () => dashboardProducts({ sort: offDocument("color") })],
      [
        `${base}?sort=title&updatedSince=2026-01-01T00:00:00Z`,
        () => dashboardProducts({ sort: "title", updatedSince: "2026-01-01T00:00:00Z" }),
      ],
      [`${merchant.base}/orders?q=ab`, () => dashboardOrders({ q: "ab" })],
      [`${merchant.base}/customers?sort=price`, () => dashboardCustomers({ sort: offDocument("price") })],
    ] as const) {
      const res = await read();
      assert.equal(res.response.status, 400, `${url}: ${text(res)}`);
      assert.equal(res.error!.error.code, "VALIDATION_FAILED");
      assert.doesNotMatch(text(res), /\^|\\\\S|pattern/, "explained in words");
    }
    assert.equal(
      (
        await merchant.client.GET("/api/v1/dashboard/stores/{slug}/orders", {
          params: { path: { slug: merchant.slug }, query: { q: "7" } },
        })
      ).response.status,
      200,
      "a short order number is fine",
    );
  });

  it("refuses dates outside the years 1-9999 in UTC, in updatedSince and in forged cursors, with 400 on every list", async () => {
    // Before: 500 on the embedded database (it cannot take year 0 or 10000 from JavaScript).
    type DateQuery = { updatedSince?: string; cursor?: string; sort?: "updatedAt" };
    const lists: Array<[string, List<DateQuery, unknown>]> = [
      [`${merchant.base}/products`, dashboardProducts],
      [`${merchant.base}/customers`, dashboardCustomers],
      [`${merchant.base}/orders`, dashboardOrders],
      ["/api/v1/apps/api/products", adminProducts],
      ["/api/v1/apps/api/customers", adminCustomers],
      ["/api/v1/apps/api/orders", adminOrders],
    ];
    const cursorAt = (sort: string, ms: number) =>
      Buffer.from(JSON.stringify([sort, ms, "x", ""])).toString("base64url");
    const dates = [
      "0000-12-31T23:59:59.999Z",
      "0001-01-01T00:00:00+00:01",
      "9999-12-31T23:59:59-23:59",
      "2016-12-31T23:59:60Z",
    ];
    // One millisecond before year 1 and after year 9999, in cursors of each time sort.
    const instants = [Date.parse("0001-01-01T00:00:00Z") - 1, Date.parse("9999-12-31T23:59:59.999Z") + 1];
    for (const [url, list] of lists) {
      for (const date of dates) {
        const res = await list({ updatedSince: date });
        assert.equal(res.response.status, 400, `${url} ${date}: ${text(res)}`);
        assert.equal(res.error!.error.code, "VALIDATION_FAILED");
        assert.deepEqual(
          fieldErrors(res).map((d) => d.field),
          ["updatedSince"],
        );
      }
      for (const ms of instants)
        for (const [sort, query] of [
          ["-createdAt", {}],
          ["updatedAt", { sort: "updatedAt" }],
          ["updatedAt", { updatedSince: "2026-01-01T00:00:00Z" }],
        ] as const) {
          const res = await list({ cursor: cursorAt(sort, ms), ...query });
          assert.equal(res.response.status, 400, `${url} ${sort} ${ms}: ${text(res)}`);
          assert.equal(res.error!.error.code, "VALIDATION_FAILED");
          assert.deepEqual(
            fieldErrors(res).map((d) => d.field),
            ["cursor"],
          );
        }
      // The edges themselves are fine.
      for (const date of ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "0001-01-01T01:00:00+01:00"])
        assert.equal((await list({ updatedSince: date })).response.status, 200, date);
    }
    // The delivery logs (the app owner's and the installation's) page by cursor too.
    for (const [url, list] of [
      [
        `/api/v1/dashboard/apps/${developer.clientId}/deliveries`,
        (cursor: string) =>
          developer.client.GET("/api/v1/dashboard/apps/{clientId}/deliveries", {
            params: { path: { clientId: developer.clientId }, query: { cursor } },
          }),
      ],
      [
        "/api/v1/apps/api/webhooks/deliveries",
        (cursor: string) =>
          admin.GET("/api/v1/apps/api/webhooks/deliveries", { params: { query: { cursor } } }),
      ],
    ] as const)
      for (const ms of instants) {
        const res = await list(cursorAt("-createdAt", ms));
        assert.equal(res.response.status, 400, `${url} ${ms}: ${text(res)}`);
        assert.equal(res.error!.error.code, "VALIDATION_FAILED");
      }
  });
});

/**
 * A SKU is found by any part of it (issue 23) through the table of its suffixes (migration
 * 20261126_0120), which follows every write: the API's creates, changes and deletes, and bulk
 * statements outside the repository (the seeds' INSERT ... SELECT).
 */
describe("products: search by any part of a SKU", () => {
  let ctx: TestContext;
  let merchant: Awaited<ReturnType<typeof merchantWithStore>>;
  let other: Awaited<ReturnType<typeof merchantWithStore>>;
  const ids: Record<string, string> = {};

  const create = async (m: typeof merchant, title: string, sku: string | undefined, price: string) => {
    ctx.clock.advance(1000);
    const res = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({ title, sku, price }),
    });
    assert.equal(res.response.status, 201, text(res));
    return res.data!.data.id;
  };
  const products = (query: QueryOf<"/api/v1/dashboard/stores/{slug}/products">) =>
    merchant.client.GET("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: merchant.slug }, query },
    });
  const search = async (
    q: string,
    sort?: QueryOf<"/api/v1/dashboard/stores/{slug}/products">["sort"],
    limit = 1,
  ) =>
    (await all(products, { q, ...(sort ? { sort } : {}) }, limit)).map((p) => p.variants[0]!.sku ?? p.title);
  /** The table holds exactly every suffix of every SKU, upper-cased: nothing missing, nothing left over. */
  const assertSuffixesInStep = async () => {
    const { rows } = await sql<{ missing: number; extra: number }>`
      WITH expected AS (
        SELECT v.store_id, s.suffix, v.id AS variant_id, v.product_id
        FROM product_variants v CROSS JOIN LATERAL (
          SELECT upper(substr(v.sku, i)) AS suffix FROM generate_series(1, length(v.sku)) AS i) s
        WHERE v.sku IS NOT NULL)
      SELECT (SELECT count(*) FROM (SELECT * FROM expected EXCEPT SELECT * FROM variant_sku_suffixes) m)::int AS missing,
             (SELECT count(*) FROM (SELECT * FROM variant_sku_suffixes EXCEPT SELECT * FROM expected) x)::int AS extra`.execute(
      ctx.platform.db,
    );
    assert.deepEqual(rows[0], { missing: 0, extra: 0 });
  };

  before(async () => {
    ctx = await createTestContext();
    merchant = await merchantWithStore(ctx.app);
    other = await merchantWithStore(ctx.app);
    ids.wallet = await create(merchant, "Leather wallet", "WAL-LTH", "54.90");
    ids.chain = await create(merchant, "Wallet chain", "CHAIN-WAL", "12.00");
    ids.wild = await create(merchant, "Percent sticker", "AB%_X-1", "1.00");
    ids.plain = await create(merchant, "Plain sticker", "ABCDX-1", "2.00");
    ids.repeat = await create(merchant, "Striped sock", "ZZ-AAAA-9", "3.00");
    ids.none = await create(merchant, "Gift card", undefined, "10.00");
    // Another store with the same SKUs and titles: never in this store's lists.
    await create(other, "Leather wallet", "WAL-LTH", "1.00");
    await create(other, "Percent sticker", "AB%_X-1", "1.00");
  });
  after(async () => ctx?.close());

  it("finds the start, the middle and the end of a SKU, in any case; % and _ are literal", async () => {
    assert.deepEqual(await search("WAL-LTH"), ["WAL-LTH"], "the whole SKU");
    assert.deepEqual(await search("wal-l"), ["WAL-LTH"], "the start");
    assert.deepEqual(await search("l-l"), ["WAL-LTH"], "the middle");
    assert.deepEqual(await search("lth"), ["WAL-LTH"], "the end (the demo's wallet)");
    assert.deepEqual(await search("n-wAl"), ["CHAIN-WAL"], "the end, mixed case");
    assert.deepEqual(await search("%_x"), ["AB%_X-1"], "% and _ are the characters themselves");
    assert.deepEqual(await search("_X-1"), ["AB%_X-1"], "_ is not any character (DX-1 is not found)");
    assert.deepEqual(await search("B%_"), ["AB%_X-1"]);
    assert.deepEqual(await search("X-1", "price"), ["AB%_X-1", "ABCDX-1"]);
    assert.deepEqual(await search("WAL-LTH-2"), [], "longer than the SKU");
    assert.deepEqual(await search("LTH-W"), [], "across the end of one SKU into nothing");
  });

  it("a product matched by several suffixes, or by title and SKU, is one row; pages and sorts stay exact", async () => {
    assert.deepEqual(await search("AAA"), ["ZZ-AAAA-9"], "AAAA-9 and AAA-9 both begin with AAA");
    for (const limit of [1, 2, 50]) {
      // "wal": the wallet by title and SKU, the chain by title and SKU.
      assert.deepEqual(await search("wal", "price", limit), ["CHAIN-WAL", "WAL-LTH"], `limit ${limit}`);
      assert.deepEqual(await search("wal", "-price", limit), ["WAL-LTH", "CHAIN-WAL"]);
      assert.deepEqual(await search("wal", "title", limit), ["WAL-LTH", "CHAIN-WAL"]);
      assert.deepEqual(await search("wal", undefined, limit), ["CHAIN-WAL", "WAL-LTH"], "newest first");
    }
    // Title matches and SKU matches of different products, one page of each kind.
    assert.deepEqual(await search("sticker", "price"), ["AB%_X-1", "ABCDX-1"]);
    assert.deepEqual(await search("card"), ["Gift card"], "a product without a SKU, by title");
  });

  it("follows a changed SKU, a removed SKU and a deleted product; never shows another store's", async () => {
    const patch = async (
      id: string,
      body: RequestBody<"/api/v1/dashboard/stores/{slug}/products/{id}", "patch">,
    ) => {
      ctx.clock.advance(1000);
      const res = await merchant.client.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}", {
        params: { path: { slug: merchant.slug, id } },
        body,
      });
      assert.equal(res.response.status, 200, text(res));
    };
    await patch(ids.wallet!, flatPatch({ sku: "PURSE-XL" }));
    assert.deepEqual(await search("lth"), [], "the old SKU is gone");
    assert.deepEqual(await search("rse-x"), ["PURSE-XL"], "the new SKU is found");
    await patch(ids.wallet!, flatPatch({ title: "Leather purse", stock: 3 }));
    assert.deepEqual(await search("rse-x"), ["PURSE-XL"], "a change of other fields keeps the SKU");
    await patch(ids.wallet!, flatPatch({ sku: null }));
    assert.deepEqual(await search("PURSE-XL"), [], "a SKU removed");
    await patch(ids.none!, flatPatch({ sku: "GIFT-100" }));
    assert.deepEqual(await search("t-10"), ["GIFT-100"], "a SKU given later");
    assert.equal(
      (
        await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: merchant.slug, id: ids.plain! } },
        })
      ).response.status,
      200,
    );
    assert.deepEqual(await search("CDX"), [], "a deleted product");
    assert.deepEqual(await search("X-1"), ["AB%_X-1"]);
    await assertSuffixesInStep();

    const theirs = await all(
      (query: QueryOf<"/api/v1/dashboard/stores/{slug}/products">) =>
        other.client.GET("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: other.slug }, query },
        }),
      { q: "lth" },
    );
    assert.equal(theirs.length, 1, "the other store finds its own wallet");
    const found = await search("X-1");
    assert.equal(found.length, 1, "and this store never sees the other store's AB%_X-1");
  });

  it("stays in step with bulk statements outside the repository", async () => {
    const storeId = merchant.store.id;
    const db = ctx.platform.db;
    await sql`
      INSERT INTO products (store_id, id, title, price_minor, price_max_minor, status)
      SELECT ${storeId}, 'prod_bulk' || i, 'Bulk ' || i, 100, 100, 'active'
      FROM generate_series(1, 300) AS i`.execute(db);
    await addVariants(
      db,
      storeId,
      Array.from({ length: 300 }, (_, i) => ({
        productId: `prod_bulk${i + 1}`,
        sku: `BLK-${String(i + 1).padStart(4, "0")}`,
      })),
    );
    await assertSuffixesInStep();
    assert.deepEqual(await search("LK-0123", undefined, 50), ["BLK-0123"]);
    assert.equal((await search("blk-01", undefined, 50)).length, 100, "BLK-0100 to BLK-0199");
    await sql`UPDATE product_variants SET sku = 'BULK-' || substr(sku, 5) WHERE store_id = ${storeId} AND sku LIKE 'BLK-%'`.execute(
      db,
    );
    await assertSuffixesInStep();
    assert.deepEqual(await search("LK-0123", undefined, 50), ["BULK-0123"]);
    await sql`DELETE FROM products WHERE store_id = ${storeId} AND id LIKE 'prod\_bulk%'`.execute(db);
    await assertSuffixesInStep();
    assert.deepEqual(await search("LK-0123", undefined, 50), []);
  });

  it("a text that begins more suffixes than are looked up by id is checked row by row, with the same answer", async () => {
    const storeId = merchant.store.id;
    // 200 SKUs of 60 A's and a number: 57 suffixes each begin with "AAAA".
    await sql`
      INSERT INTO products (store_id, id, title, price_minor, price_max_minor, status, created_at)
      SELECT ${storeId}, 'prod_many' || i, 'Many ' || i, i, i, 'active', now() + make_interval(secs => i)
      FROM generate_series(1, 200) AS i`.execute(ctx.platform.db);
    await addVariants(
      ctx.platform.db,
      storeId,
      Array.from({ length: 200 }, (_, i) => ({
        productId: `prod_many${i + 1}`,
        sku: `${"A".repeat(60)}${String(i + 1).padStart(4, "0")}`,
      })),
    );
    assert.ok(200 * 57 > SKU_MATCHES_AS_IDS, "the test must cross the bound");
    const many = Array.from({ length: 200 }, (_, i) => `${"A".repeat(60)}${String(i + 1).padStart(4, "0")}`);
    // ZZ-AAAA-9 (3.00) matches too, after the 200 (0.01 to 2.00).
    const expected = [...many, "ZZ-AAAA-9"];
    assert.deepEqual(await search("aaaa", "price", 100), expected, "many: each once, in order");
    assert.deepEqual(await search("aaaa", "-price", 7), [...expected].reverse());
    assert.deepEqual(await search("a012", "price", 3), many.slice(119, 129), "few: by id");
    assert.deepEqual(await search("_AA", undefined, 100), [], "_ is literal on the row-by-row path too");
  });
});
