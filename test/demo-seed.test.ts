import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ORDER_STATUS_NAMES, OrderStatus } from "../src/contracts/index.ts";
import {
  DEMO_CUSTOMERS,
  DEMO_EMAIL,
  DEMO_HISTORY_DAYS,
  DEMO_ORDERS,
  DEMO_STORE_SLUG,
  seedDemo,
  seededRandom,
} from "../src/modules/demo/demo-seed.ts";
import { type Api, apiClient, createTestContext, type TestContext, text } from "./harness.ts";

/**
 * The demo store (issue 23): 90 days of history made through the services, on the injected
 * clock, so the overview's today, 7 and 30 days differ and its daily sales have a shape; the
 * lists have pages to turn and SKUs to search.
 */
describe("demo store", () => {
  let ctx: TestContext;
  let client: Api;

  before(async () => {
    // The store seedDemo made (once per version of the code: test/db-template.ts), on a clock
    // that starts when it was made.
    ctx = await createTestContext({}, { demo: true });
    client = apiClient(ctx.app);
    const login = await client.POST("/api/v1/dashboard/auth/login", { body: ctx.demo! });
    assert.equal(login.response.status, 200, text(login));
  });
  after(async () => ctx?.close());

  /** Every item of a list, a page of 100 at a time: `page` reads the page after `cursor`. */
  async function all<T>(
    page: (cursor: string | undefined) => Promise<{
      data?: { data: T[]; meta: { nextCursor: string | null } };
      response: Response;
    }>,
  ): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | null = null;
    do {
      const res = await page(cursor ?? undefined);
      assert.equal(res.response.status, 200, text(res));
      out.push(...res.data!.data);
      cursor = res.data!.meta.nextCursor;
    } while (cursor);
    return out;
  }
  const path = { slug: DEMO_STORE_SLUG };

  it("has about 50 products, 150 customers and 600 orders over 90 days, in every status", async () => {
    assert.equal(ctx.demo!.email, DEMO_EMAIL);
    const products = await all((cursor) =>
      client.GET("/api/v1/dashboard/stores/{slug}/products", {
        params: { path, query: { limit: 100, cursor } },
      }),
    );
    assert.ok(products.length >= 45 && products.length <= 55, `${products.length} products`);
    const customers = await all((cursor) =>
      client.GET("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path, query: { limit: 100, cursor } },
      }),
    );
    assert.equal(customers.length, DEMO_CUSTOMERS);
    const orders = await all((cursor) =>
      client.GET("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path, query: { limit: 100, cursor } },
      }),
    );
    assert.equal(orders.length, DEMO_ORDERS);
    const counts = Object.fromEntries(ORDER_STATUS_NAMES.map((s) => [s, 0]));
    for (const o of orders) counts[o.status]!++;
    for (const s of ORDER_STATUS_NAMES) assert.ok(counts[s]! > 0, `no ${s} order: ${JSON.stringify(counts)}`);
    const now = ctx.clock.now().getTime();
    const placed = orders.map((o) => Date.parse(o.createdAt));
    const days = (now - Math.min(...placed)) / 86_400_000;
    assert.ok(days > DEMO_HISTORY_DAYS - 3 && days <= DEMO_HISTORY_DAYS, `oldest order ${days} days ago`);
    assert.ok(Math.max(...placed) <= now);
    // Numbers follow the time they were placed in.
    const byNumber = [...orders].sort((a, b) => a.number - b.number).map((o) => Date.parse(o.createdAt));
    assert.deepEqual(
      byNumber,
      [...byNumber].sort((a, b) => a - b),
    );
    const shipped = orders.filter(
      (o) => o.status === OrderStatus.shipped || o.status === OrderStatus.delivered,
    );
    assert.ok(
      shipped.every((o) => o.fulfillment?.trackingNumber && o.fulfillment?.carrier),
      "every fulfilled order has its tracking",
    ); // The catalogue of issue 30: apparel in colours and sizes, two locations, two collections.
    const locations = (await client.GET("/api/v1/dashboard/stores/{slug}/locations", { params: { path } }))
      .data!.data;
    assert.equal(locations.length, 2);
    const collections = (
      await client.GET("/api/v1/dashboard/stores/{slug}/collections", { params: { path } })
    ).data!.data;
    assert.deepEqual(collections.map((c) => c.kind).sort(), ["automatic", "manual"]);
    const apparel = collections.find((c) => c.kind === "automatic")!;
    const members = (
      await client.GET("/api/v1/dashboard/stores/{slug}/collections/{id}/products", {
        params: { path: { ...path, id: apparel.id } },
      })
    ).data!.data;
    assert.ok(members.length > 0, "the apparel rule matches the apparel");
    assert.ok(
      members.every((p) => p.tags.includes("apparel") && p.options.length === 2 && p.variants.length > 1),
      "every member is apparel in colours and sizes",
    );
  });

  it("shows different figures for today, 7 and 30 days, and daily sales over 30 days", async () => {
    const res = await client.GET("/api/v1/dashboard/stores/{slug}/overview", {
      params: { path: { slug: DEMO_STORE_SLUG } },
    });
    assert.equal(res.response.status, 200);
    const { sales, dailySales, lowStock } = res.data!.data;
    assert.ok(sales.today.orders > 0, "orders today");
    assert.ok(sales.today.orders < sales.last7Days.orders, JSON.stringify(sales));
    assert.ok(sales.last7Days.orders < sales.last30Days.orders, JSON.stringify(sales));
    assert.equal(dailySales.length, 30);
    assert.equal(dailySales.at(-1)!.orders, sales.today.orders, "today is the last day");
    assert.equal(
      dailySales.reduce((n, d) => n + d.orders, 0),
      sales.last30Days.orders,
      "the days add up to the 30 days",
    );
    assert.ok(new Set(dailySales.map((d) => d.total)).size > 10, "the days differ");
    assert.ok(lowStock.length > 0, "some products run low");
  });

  it("has the money of a real quarter: shipping, tax, codes, edits, partial and full refunds, returns at every step", async () => {
    const orders = await all((cursor) =>
      client.GET("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path, query: { limit: 100, cursor } },
      }),
    );
    const m = (x: string) => Math.round(Number(x) * 100);
    for (const o of orders)
      assert.equal(m(o.subtotal) - m(o.discounts) + m(o.shipping) + m(o.tax), m(o.total), o.name);
    assert.ok(orders.every((o) => o.shippingLines.length === 1));
    assert.ok(orders.filter((o) => Number(o.tax) > 0).length > 50, "orders shipping to taxed states pay tax");
    const codes = new Set(orders.flatMap((o) => o.discountApplications.map((d) => d.code)));
    assert.deepEqual([...codes].sort(), ["SHIPFREE", "SPRING5", "WELCOME10"]);
    const financial = new Set(orders.map((o) => o.financialStatus));
    for (const s of ["pending", "paid", "partially_refunded", "refunded"] as const)
      assert.ok(financial.has(s), `no ${s} order: ${[...financial].join(", ")}`);
    const edits = await ctx.platform.db.selectFrom("order_edits").select("note").execute();
    assert.ok(edits.length >= 10, `${edits.length} edited orders`);
    assert.ok(
      orders.every((o) => o.outstanding === "0.00"),
      "every edit was before payment",
    );
    const returns = await ctx.platform.db.selectFrom("returns").select("status").distinct().execute();
    assert.deepEqual(returns.map((r) => r.status).sort(), [
      "approved",
      "closed",
      "declined",
      "received",
      "requested",
    ]);
  });

  it("finds a product by a part of its SKU", async () => {
    const found = await all((cursor) =>
      client.GET("/api/v1/dashboard/stores/{slug}/products", {
        params: { path, query: { q: "lth", limit: 100, cursor } },
      }),
    );
    assert.ok(found.some((p) => p.variants.some((v) => v.sku === "WAL-LTH")));
  });

  it("is the same on every run (seeded), and does nothing the second time", async () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const xs = Array.from({ length: 5 }, () => a.next());
    assert.deepEqual(
      xs,
      Array.from({ length: 5 }, () => b.next()),
    );
    assert.ok(xs.every((x) => x >= 0 && x < 1));
    assert.equal((await seedDemo(ctx.platform)).created, false);
  });
});
