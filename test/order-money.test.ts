import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { installedApp } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import { createTestContext, type TestContext, text } from "./harness.ts";
import { appWithOrder, type Checker, type DiscountBody, moneyShop, NY } from "./money-shop.ts";
import { openApiChecker } from "./openapi-assert.ts";

/**
 * The money of an order (issue 31, parts 1 and 2): discount codes with their limits, shipping
 * lines, tax rates per country and region, prices with or without tax, tax-exempt customers;
 * every amount exact to the minor unit and subtotal − discounts + shipping + tax = total on every
 * order. Every answer is checked against the served document. Both databases.
 */
const DAY = 86_400_000;

describe("the money of an order: discounts, shipping and tax", () => {
  let ctx: TestContext;
  let spec: Checker;
  before(async () => {
    ctx = await createTestContext(
      // 100 concurrent orders wait for one discount's row lock through the test pool of 5: the
      // connection wait is an operator's setting, not what this file tests (catalogue.test.ts).
      { RATE_LIMIT_PER_MINUTE: "1000000", DATABASE_CONNECT_TIMEOUT_MS: "120000" },
      { frozenClock: true },
    );
    spec = await openApiChecker(ctx.app);
  });
  after(async () => ctx?.close());

  const shop = (settings: Parameters<typeof moneyShop>[2] = {}) => moneyShop(ctx, spec, settings);

  it("an order with a code, shipping and added tax: each line's share, tax per line and rate, the identity", async () => {
    const s = await shop({ taxShipping: true });
    const shirt = await s.product("Shirt", "9.99");
    const cap = await s.product("Cap", "0.05");
    const c = await s.customer("maya@example.com");
    await s.taxRate({ country: "US", title: "US Federal", rate: "4" });
    await s.taxRate({ country: "US", region: "NY", title: "NY State Tax", rate: "4.875" });
    await s.taxRate({ country: "DE", title: "VAT", rate: "19" });
    const ten = await s.discount({ code: "Welcome10", kind: "percentage", percentage: "10" });
    assert.equal(ten.timesUsed, 0);
    const o = await s.placed({
      customerId: c.id,
      lineItems: [
        { productId: shirt.id, quantity: 3 },
        { productId: cap.id, quantity: 1 },
      ],
      shippingAddress: NY,
      shippingLines: [{ title: "Standard", price: "4.95", code: "std" }],
      discountCodes: ["WELCOME10"],
    });
    // 10 % of 30.02 = 3.00 (rounded half up), spread in proportion: 3.00 on the shirts, 0.00 on the cap.
    assert.deepEqual([o.subtotal, o.discounts, o.shipping], ["30.02", "3.00", "4.95"]);
    assert.deepEqual(
      o.lineItems.map((l) => [l.total, l.discount, l.tax]),
      [
        ["29.97", "3.00", "2.39"], // 26.97 × 4 % = 1.0788 -> 1.08; × 4.875 % = 1.3148 -> 1.31
        ["0.05", "0.00", "0.00"],
      ],
    );
    assert.deepEqual(o.lineItems[0]!.discountAllocations, [{ application: 0, amount: "3.00" }]);
    assert.deepEqual(o.lineItems[0]!.taxLines, [
      { title: "US Federal", rate: "4", amount: "1.08" },
      { title: "NY State Tax", rate: "4.875", amount: "1.31" },
    ]);
    // Shipping taxed: 4.95 × 4 % = 0.198 -> 0.20; × 4.875 % = 0.2413 -> 0.24.
    assert.deepEqual(o.shippingLines, [
      {
        title: "Standard",
        code: "std",
        price: "4.95",
        discount: "0.00",
        discountAllocations: [],
        tax: "0.44",
        taxLines: [
          { title: "US Federal", rate: "4", amount: "0.20" },
          { title: "NY State Tax", rate: "4.875", amount: "0.24" },
        ],
      },
    ]);
    assert.deepEqual(o.taxLines, [
      { title: "US Federal", rate: "4", amount: "1.28" },
      { title: "NY State Tax", rate: "4.875", amount: "1.55" },
    ]);
    assert.deepEqual([o.tax, o.taxIncluded, o.total, o.taxesIncluded], ["2.83", "0.00", "34.80", false]);
    assert.deepEqual(o.discountApplications, [
      {
        discountId: ten.id,
        code: "Welcome10",
        kind: "percentage",
        percentage: "10",
        value: null,
        allocation: "across",
        amount: "3.00",
      },
    ]);
    // The order reads back the same, its event carries it, and the code counts the use.
    const read = await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", {
      params: { path: { ...s.path, id: o.id } },
    });
    assert.deepEqual(read.data!.data, o);
    assert.deepEqual((await s.events("order.created")).at(-1)!.payload, o);
    const used = await s.client.GET("/api/v1/dashboard/stores/{slug}/discounts/{id}", {
      params: { path: { ...s.path, id: ten.id } },
    });
    assert.equal(used.data!.data.timesUsed, 1);
  });

  it("prices that include tax: the tax found inside them is `taxIncluded`, outside the identity's `tax`", async () => {
    const s = await shop({ currency: "EUR", taxesIncluded: true, taxShipping: true });
    const lamp = await s.product("Lamp", "119.00");
    await s.taxRate({ country: "DE", title: "MwSt", rate: "19" });
    const c = await s.customer("jonas@example.com");
    const exempt = await s.customer("charity@example.org", { taxExempt: true });
    const berlin = { name: "Jonas", line1: "Torstraße 1", city: "Berlin", country: "DE" } as const;
    const o = await s.placed({
      customerId: c.id,
      lineItems: [{ productId: lamp.id, quantity: 1 }],
      shippingAddress: berlin,
      shippingLines: [{ title: "DHL", price: "5.95" }],
    });
    // 119.00 / 1.19 = 100.00 -> 19.00 inside; 5.95 × 0.19 / 1.19 = 0.95.
    assert.deepEqual(
      [o.subtotal, o.shipping, o.tax, o.taxIncluded, o.total, o.taxesIncluded],
      ["119.00", "5.95", "0.00", "19.95", "124.95", true],
    );
    const none = await s.placed({
      customerId: exempt.id,
      lineItems: [{ productId: lamp.id, quantity: 1 }],
      shippingAddress: berlin,
    });
    assert.deepEqual([none.taxIncluded, none.taxLines, none.total], ["0.00", [], "119.00"]);
    // Ships nowhere: the store's own place decides (the store has no address: no tax).
    const collected = await s.placed({
      customerId: c.id,
      lineItems: [{ productId: lamp.id, quantity: 1 }],
      shippingAddress: null,
    });
    assert.deepEqual(collected.taxLines, []);
  });

  it("fixed amounts across or off each item, products and collections, free shipping, combined codes", async () => {
    const s = await shop();
    const a = await s.product("A", "10.00");
    const b = await s.product("B", "5.00");
    const coll = await s.client.POST("/api/v1/dashboard/stores/{slug}/collections", {
      params: { path: s.path },
      body: { title: "Sale", kind: "manual", productIds: [b.id] },
    });
    assert.equal(coll.response.status, 201, text(coll));
    const c = await s.customer("sam@example.com");
    await s.discount({ code: "FIVEOFF", kind: "fixed_amount", value: "5.00", combinable: true });
    await s.discount({
      code: "SALE1",
      kind: "fixed_amount",
      value: "1.00",
      allocation: "each",
      collectionIds: [coll.data!.data.id],
      combinable: true,
    });
    await s.discount({ code: "SHIP", kind: "free_shipping", combinable: true });
    const o = await s.placed({
      customerId: c.id,
      lineItems: [
        { productId: a.id, quantity: 2 },
        { productId: b.id, quantity: 3 },
      ],
      shippingLines: [{ title: "Express", price: "12.00" }],
      discountCodes: ["SALE1", "fiveoff", "ship"],
    });
    // SALE1: 1.00 off each of the 3 B's = 3.00; FIVEOFF: 5.00 over what is left (20.00 : 12.00).
    assert.deepEqual(
      o.lineItems.map((l) => l.discount),
      ["3.13", "4.87"],
    );
    assert.deepEqual(
      o.discountApplications.map((d) => [d.code, d.amount]),
      [
        ["SALE1", "3.00"],
        ["FIVEOFF", "5.00"],
        ["SHIP", "12.00"],
      ],
    );
    assert.deepEqual([o.subtotal, o.discounts, o.shipping, o.total], ["35.00", "20.00", "12.00", "27.00"]);
    assert.deepEqual(o.shippingLines[0]!.discountAllocations, [{ application: 2, amount: "12.00" }]);
  });

  it("refuses a code that is unknown, paused, early, expired, under its minimum, for nothing here or not combinable: 400 naming why, nothing used", async () => {
    const s = await shop();
    const p = await s.product("P", "20.00");
    const other = await s.product("Other", "1.00");
    const c = await s.customer("kim@example.com");
    const now = ctx.clock.now().getTime();
    const paused = await s.discount({
      code: "PAUSED",
      kind: "percentage",
      percentage: "5",
      status: "paused",
    });
    await s.discount({
      code: "LATER",
      kind: "percentage",
      percentage: "5",
      startsAt: new Date(now + DAY).toISOString(),
    });
    await s.discount({
      code: "GONE",
      kind: "percentage",
      percentage: "5",
      startsAt: new Date(now - 2 * DAY).toISOString(),
      endsAt: new Date(now - DAY).toISOString(),
    });
    await s.discount({ code: "BIG", kind: "percentage", percentage: "5", minimumSubtotal: "50.00" });
    await s.discount({ code: "ONLY", kind: "percentage", percentage: "5", productIds: [other.id] });
    await s.discount({ code: "SHIPFREE", kind: "free_shipping" });
    await s.discount({ code: "SOLO", kind: "percentage", percentage: "5" });
    await s.discount({ code: "MIX", kind: "percentage", percentage: "5", combinable: true });
    const refusal = async (codes: string[], shipping = false) => {
      const res = await s.order({
        customerId: c.id,
        lineItems: [{ productId: p.id, quantity: 1 }],
        discountCodes: codes,
        ...(shipping ? { shippingLines: [{ title: "S", price: "1.00" }] } : {}),
      });
      assert.equal(res.response.status, 400, text(res));
      assert.equal(res.error!.error.code, "DISCOUNT_NOT_APPLICABLE");
      return (res.error!.error.details as Array<{ field: string; reason: string }>).map((d) => [
        d.field,
        d.reason,
      ]);
    };
    assert.deepEqual(await refusal(["NOPE"]), [["discountCodes.0", "unknown"]]);
    assert.deepEqual(await refusal(["paused"]), [["discountCodes.0", "paused"]]);
    assert.deepEqual(await refusal(["LATER"]), [["discountCodes.0", "not_yet_active"]]);
    assert.deepEqual(await refusal(["GONE"]), [["discountCodes.0", "expired"]]);
    assert.deepEqual(await refusal(["BIG"]), [["discountCodes.0", "minimum_not_met"]]);
    assert.deepEqual(await refusal(["ONLY"]), [["discountCodes.0", "not_applicable"]]);
    assert.deepEqual(await refusal(["SHIPFREE"]), [["discountCodes.0", "not_applicable"]]);
    assert.deepEqual(await refusal(["MIX", "SOLO"]), [["discountCodes.1", "not_combinable"]]);
    assert.deepEqual(await refusal(["MIX", "mix"]), [["discountCodes.1", "not_combinable"]]);
    // Time moves on: LATER applies from tomorrow.
    ctx.clock.advance(DAY + 1000);
    await s.placed({
      customerId: c.id,
      lineItems: [{ productId: p.id, quantity: 1 }],
      discountCodes: ["LATER"],
    });
    // Resumed, the paused code applies; none of the refused orders used anything.
    const resumed = await s.client.PATCH("/api/v1/dashboard/stores/{slug}/discounts/{id}", {
      params: { path: { ...s.path, id: paused.id } },
      body: { status: "active" },
    });
    assert.equal(resumed.data!.data.timesUsed, 0);
    assert.equal((await s.events("discount.updated")).length, 1);
  });

  it("manages codes: unique without regard to case, terms checked, a limit never below the uses, deleted codes stay on their orders", async () => {
    const s = await shop();
    const d = await s.discount({ code: "SPRING", kind: "fixed_amount", value: "2.50", usageLimit: 3 });
    assert.deepEqual([d.value, d.percentage, d.allocation, d.usageLimit], ["2.50", null, "across", 3]);
    const dup = await s.client.POST("/api/v1/dashboard/stores/{slug}/discounts", {
      params: { path: s.path },
      body: { code: "spring", kind: "percentage", percentage: "1" },
    });
    assert.equal(dup.response.status, 409, text(dup));
    for (const [body, field] of [
      [{ code: "X1", kind: "percentage" }, "percentage"],
      [{ code: "X2", kind: "percentage", percentage: "0" }, "percentage"],
      [{ code: "X3", kind: "percentage", percentage: "5", value: "1.00" }, "value"],
      [{ code: "X4", kind: "fixed_amount", value: "1.001" }, "value"],
      [{ code: "X5", kind: "free_shipping", allocation: "each" }, "allocation"],
      [{ code: "X6", kind: "free_shipping", productIds: ["prod_7Hc2Qm9XwLp4Rt8VbN3kZs"] }, "productIds.0"],
      [
        {
          code: "X7",
          kind: "free_shipping",
          startsAt: "2026-01-02T00:00:00Z",
          endsAt: "2026-01-01T00:00:00Z",
        },
        "endsAt",
      ],
    ] as Array<[DiscountBody, string]>) {
      const res = await s.client.POST("/api/v1/dashboard/stores/{slug}/discounts", {
        params: { path: s.path },
        body,
      });
      assert.equal(res.response.status, 400, `${JSON.stringify(body)}: ${text(res)}`);
      assert.ok(
        (res.error!.error.details as Array<{ field: string }>).some((x) => x.field === field),
        `${JSON.stringify(body)}: ${text(res)}`,
      );
    }
    const p = await s.product("P", "10.00");
    const c = await s.customer("lee@example.com");
    const o = await s.placed({
      customerId: c.id,
      lineItems: [{ productId: p.id, quantity: 1 }],
      discountCodes: ["spring"],
    });
    assert.equal(o.total, "7.50");
    const below = await s.client.PATCH("/api/v1/dashboard/stores/{slug}/discounts/{id}", {
      params: { path: { ...s.path, id: d.id } },
      body: { usageLimit: 1 },
    });
    assert.equal(below.response.status, 200, text(below));
    const under = await s.client.PATCH("/api/v1/dashboard/stores/{slug}/discounts/{id}", {
      params: { path: { ...s.path, id: d.id } },
      body: { usageLimit: null, code: "SPRING2" },
    });
    assert.equal(under.data!.data.code, "SPRING2");
    const gone = await s.client.DELETE("/api/v1/dashboard/stores/{slug}/discounts/{id}", {
      params: { path: { ...s.path, id: d.id } },
    });
    assert.equal(gone.response.status, 200);
    const after = await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", {
      params: { path: { ...s.path, id: o.id } },
    });
    assert.equal(after.data!.data.discountApplications[0]!.code, "SPRING");
    assert.equal(after.data!.data.total, "7.50");
    assert.deepEqual(
      [
        (await s.events("discount.created")).length,
        (await s.events("discount.updated")).length,
        (await s.events("discount.deleted")).length,
      ],
      [1, 2, 1],
    );
  });

  it("a usage limit of 10 holds against 100 concurrent orders; once per customer holds against one customer's burst", async () => {
    const s = await shop();
    const p = await s.product("P", "10.00", 100_000);
    const customers = await Promise.all(Array.from({ length: 4 }, (_, i) => s.customer(`c${i}@example.com`)));
    const d = await s.discount({ code: "TEN", kind: "percentage", percentage: "10", usageLimit: 10 });
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        s.order({
          customerId: customers[i % customers.length]!.id,
          lineItems: [{ productId: p.id, quantity: 1 }],
          discountCodes: ["TEN"],
        }),
      ),
    );
    const statuses = results.map((r) => r.response.status);
    assert.equal(statuses.filter((x) => x === 201).length, 10, JSON.stringify(statuses));
    assert.equal(statuses.filter((x) => x === 400).length, 90);
    for (const r of results.filter((r) => r.response.status === 400))
      assert.equal((r.error!.error.details as Array<{ reason: string }>)[0]!.reason, "usage_limit_reached");
    const read = await s.client.GET("/api/v1/dashboard/stores/{slug}/discounts/{id}", {
      params: { path: { ...s.path, id: d.id } },
    });
    assert.equal(read.data!.data.timesUsed, 10);

    await s.discount({ code: "ONCE", kind: "fixed_amount", value: "1.00", oncePerCustomer: true });
    const burst = await Promise.all(
      Array.from({ length: 20 }, () =>
        s.order({
          customerId: customers[0]!.id,
          lineItems: [{ productId: p.id, quantity: 1 }],
          discountCodes: ["ONCE"],
        }),
      ),
    );
    const once = burst.map((r) => r.response.status);
    assert.equal(once.filter((x) => x === 201).length, 1, JSON.stringify(once));
    for (const r of burst.filter((r) => r.response.status === 400))
      assert.equal((r.error!.error.details as Array<{ reason: string }>)[0]!.reason, "already_used");
    // Another customer still may.
    await s.placed({
      customerId: customers[1]!.id,
      lineItems: [{ productId: p.id, quantity: 1 }],
      discountCodes: ["once"],
    });
  });

  it("Admin API: discounts under read_discounts / write_discounts, and an app's order with a code and shipping", async () => {
    const reader = await installedApp(ctx.app, ["read_orders"]);
    const denied = await reader.api.GET("/api/v1/apps/api/discounts");
    assert.equal(denied.response.status, 403);
    const app = await installedApp(ctx.app, [
      "read_discounts",
      "write_discounts",
      "write_orders",
      "read_orders",
      "read_products",
    ]);
    const created = await app.api.POST("/api/v1/apps/api/discounts", {
      body: { code: "APP5", kind: "fixed_amount", value: "5.00" },
    });
    assert.equal(created.response.status, 201, text(created));
    const listed = await app.api.GET("/api/v1/apps/api/discounts");
    assert.deepEqual(
      listed.data!.data.map((d) => d.code),
      ["APP5"],
    );
    // The merchant's product, bought through the app with the code and shipping.
    const m = app.merchant;
    const product = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({ title: "Mug", price: "12.00", stock: 5 }),
    });
    const order = await app.api.POST("/api/v1/apps/api/orders", {
      body: {
        customer: { email: "app-buyer@example.com", firstName: "Ada" },
        lineItems: [{ productId: product.data!.data.id, quantity: 1 }],
        shippingLines: [{ title: "Post", price: "3.00" }],
        discountCodes: ["app5"],
      },
    });
    assert.equal(order.response.status, 201, text(order));
    assert.deepEqual(
      [
        order.data!.data.subtotal,
        order.data!.data.discounts,
        order.data!.data.shipping,
        order.data!.data.total,
      ],
      ["12.00", "5.00", "3.00", "10.00"],
    );
    // Another store's code is unknown here.
    const other = await shop();
    await other.discount({ code: "THEIRS", kind: "percentage", percentage: "50" });
    const theirs = await app.api.POST("/api/v1/apps/api/orders", {
      body: {
        customer: { email: "app-buyer@example.com", firstName: "Ada" },
        lineItems: [{ productId: product.data!.data.id, quantity: 1 }],
        discountCodes: ["THEIRS"],
      },
    });
    assert.equal(theirs.response.status, 400);
    assert.equal((theirs.error!.error.details as Array<{ reason: string }>)[0]!.reason, "unknown");
  });

  it("tax rates: one per place, changed and deleted for later orders only", async () => {
    const s = await shop();
    const r = await s.taxRate({ country: "CA", title: "GST", rate: "5" });
    await s.taxRate({ country: "CA", region: "ON", title: "HST top-up", rate: "8" });
    const dup = await s.client.POST("/api/v1/dashboard/stores/{slug}/tax-rates", {
      params: { path: s.path },
      body: { country: "CA", region: "on", title: "Again", rate: "1" },
    });
    assert.equal(dup.response.status, 409, text(dup));
    const p = await s.product("P", "100.00");
    const c = await s.customer("to@example.com");
    const toronto = {
      name: "T",
      line1: "Queen St W 1",
      city: "Toronto",
      region: "ON",
      country: "CA",
    } as const;
    const first = await s.placed({
      customerId: c.id,
      lineItems: [{ productId: p.id, quantity: 1 }],
      shippingAddress: toronto,
    });
    assert.equal(first.tax, "13.00");
    const changed = await s.client.PATCH("/api/v1/dashboard/stores/{slug}/tax-rates/{id}", {
      params: { path: { ...s.path, id: r.id } },
      body: { rate: "6" },
    });
    assert.equal(changed.data!.data.rate, "6");
    const second = await s.placed({
      customerId: c.id,
      lineItems: [{ productId: p.id, quantity: 1 }],
      shippingAddress: toronto,
    });
    assert.equal(second.tax, "14.00");
    const listed = await s.client.GET("/api/v1/dashboard/stores/{slug}/tax-rates", {
      params: { path: s.path },
    });
    assert.deepEqual(
      listed.data!.data.map((x) => [x.country, x.region, x.rate]),
      [
        ["CA", null, "6"],
        ["CA", "ON", "8"],
      ],
    );
    const again = await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", {
      params: { path: { ...s.path, id: first.id } },
    });
    assert.equal(again.data!.data.tax, "13.00", "an order keeps the tax it was placed with");
  });
  it("refunds: calculated then recorded, each line's share of discounts and tax, restocked, the financial status following", async () => {
    const s = await shop({ taxShipping: true });
    const shirt = await s.product("Shirt", "9.99", 10);
    const c = await s.customer("ref@example.com");
    await s.taxRate({ country: "US", region: "NY", title: "NY", rate: "8.875" });
    await s.discount({ code: "TEN", kind: "percentage", percentage: "10" });
    const o = await s.placed({
      customerId: c.id,
      lineItems: [{ productId: shirt.id, quantity: 3 }],
      shippingAddress: NY,
      shippingLines: [{ title: "Standard", price: "4.95" }],
      discountCodes: ["TEN"],
    });
    // 29.97 − 3.00 = 26.97; tax 2.39; shipping 4.95 + 0.44 tax: 34.75.
    assert.deepEqual([o.total, o.financialStatus, o.refunded, o.net], ["34.75", "pending", "0.00", "34.75"]);
    const orderPath = { path: { ...s.path, id: o.id } };
    const unpaid = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
      ...{ params: orderPath },
      body: { lineItems: [{ lineItemId: o.lineItems[0]!.id, quantity: 1 }] },
    });
    assert.equal(unpaid.response.status, 409, "an unpaid order has nothing to refund");
    const paid = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
      params: orderPath,
      body: { status: "paid" },
    });
    assert.equal(paid.data!.data.financialStatus, "paid");
    const line = o.lineItems[0]!.id;
    const calc = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds/calculate", {
      params: orderPath,
      body: { lineItems: [{ lineItemId: line, quantity: 1 }], restock: true },
    });
    assert.equal(calc.response.status, 200, text(calc));
    // One of three: 9.99 − 1.00 discount + 0.80 tax (2.39 × 1/3 = 0.797 -> 0.80).
    assert.deepEqual(
      [
        calc.data!.data.lineItems[0]!.subtotal,
        calc.data!.data.lineItems[0]!.discount,
        calc.data!.data.lineItems[0]!.tax,
      ],
      ["9.99", "1.00", "0.80"],
    );
    assert.deepEqual([calc.data!.data.amount, calc.data!.data.refundable], ["9.79", "34.75"]);
    const level = async () =>
      (
        await s.client.GET("/api/v1/dashboard/stores/{slug}/inventory-levels", {
          params: { path: s.path, query: { variantId: shirt.variants[0]!.id } },
        })
      ).data!.data[0]!;
    assert.deepEqual([(await level()).available, (await level()).committed], [7, 3]);
    const first = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
      params: orderPath,
      body: { lineItems: [{ lineItemId: line, quantity: 1 }], restock: true, note: "Torn seam" },
      headers: { "idempotency-key": "refund-1" },
    });
    assert.equal(first.response.status, 201, text(first));
    assert.equal(first.data!.data.amount, "9.79");
    const replay = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
      params: orderPath,
      body: { lineItems: [{ lineItemId: line, quantity: 1 }], restock: true, note: "Torn seam" },
      headers: { "idempotency-key": "refund-1" },
    });
    assert.equal(replay.data!.data.id, first.data!.data.id, "the same key: the same refund, once");
    // Released from the unshipped order: available again, no longer committed.
    assert.deepEqual([(await level()).available, (await level()).committed], [8, 2]);
    const mid = (await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", { params: orderPath }))
      .data!.data;
    assert.deepEqual(
      [mid.financialStatus, mid.refunded, mid.net, mid.lineItems[0]!.refundedQuantity],
      ["partially_refunded", "9.79", "24.96", 1],
    );
    // The rest and the shipping: the order's total exactly, net 0.
    ctx.clock.advance(60_000);
    const rest = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
      params: orderPath,
      body: { lineItems: [{ lineItemId: line, quantity: 2 }], shipping: true },
    });
    assert.equal(rest.response.status, 201, text(rest));
    assert.deepEqual([rest.data!.data.amount, rest.data!.data.shipping], ["24.96", "5.39"]);
    const done = (await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", { params: orderPath }))
      .data!.data;
    assert.deepEqual([done.financialStatus, done.refunded, done.net], ["refunded", "34.75", "0.00"]);
    const again = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
      params: orderPath,
      body: { lineItems: [{ lineItemId: line, quantity: 1 }] },
    });
    assert.equal(again.response.status, 409);
    // Shipping the order now takes only the 2 units still committed... none: both were refunded
    // without restock, so they ship (the merchant chose to let them go); the released one does not.
    const shipped = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
      params: orderPath,
      body: { status: "confirmed" },
    });
    assert.equal(shipped.response.status, 200);
    await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
      params: orderPath,
      body: { status: "shipped" },
    });
    assert.deepEqual([(await level()).available, (await level()).committed], [8, 0]);
    const listed = await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
      params: orderPath,
    });
    assert.deepEqual(
      listed.data!.data.map((r) => [r.amount, r.note, r.locationId !== null]),
      [
        ["9.79", "Torn seam", true],
        ["24.96", "", false],
      ],
    );
    const events = await s.events("refund.created");
    assert.deepEqual(
      events.map((e) => e.payload.amount),
      ["9.79", "24.96"],
    );
    assert.equal(events[0]!.resource_id, o.id, "a refund's event is about its order");
    // The overview's sales are net of refunds.
    const overview = await s.client.GET("/api/v1/dashboard/stores/{slug}/overview", {
      params: { path: s.path },
    });
    assert.equal(overview.data!.data.sales.today.total, "0.00");
  });

  it("a customer's orders in figures: ordersCount and amountSpent (paid less refunded) in every read; the list's ids filter", async () => {
    const s = await shop();
    const mug = await s.product("Mug", "12.50", 100);
    const maya = await s.customer("figures@example.com");
    const omar = await s.customer("omar.figures@example.com");
    const idle = await s.customer("idle.figures@example.com");
    const order = (customerId: string, quantity: number) =>
      s.placed({ customerId, lineItems: [{ productId: mug.id, quantity }] });
    const paid = async (id: string) => {
      const res = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
        params: { path: { ...s.path, id } },
        body: { status: "paid" },
      });
      assert.equal(res.response.status, 200, text(res));
    };
    const first = await order(maya.id, 2); // 25.00, paid, then 12.50 refunded
    const second = await order(maya.id, 1); // 12.50, paid
    await order(maya.id, 4); // 50.00, never paid: not spent
    const omars = await order(omar.id, 1);
    await paid(first.id);
    await paid(second.id);
    await paid(omars.id);
    const refund = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
      params: { path: { ...s.path, id: first.id } },
      body: { lineItems: [{ lineItemId: first.lineItems[0]!.id, quantity: 1 }] },
    });
    assert.equal(refund.response.status, 201, text(refund));

    const figures = (c: { ordersCount: number; amountSpent: string }) => [c.ordersCount, c.amountSpent];
    const got = await s.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { ...s.path, id: maya.id } },
    });
    assert.deepEqual(figures(got.data!.data), [3, "25.00"]);
    assert.deepEqual(figures(maya), [0, "0.00"], "a new customer has no orders");
    // The list reads them for a page at once; `ids` keeps only the customers named.
    const listed = await s.client.GET("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: s.path, query: { ids: [maya.id, omar.id, idle.id].join(","), sort: "email" } },
    });
    assert.deepEqual(
      listed.data!.data.map((c) => [c.email, ...figures(c)]),
      [
        ["figures@example.com", 3, "25.00"],
        ["idle.figures@example.com", 0, "0.00"],
        ["omar.figures@example.com", 1, "12.50"],
      ],
    );
    const two = await s.client.GET("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: s.path, query: { ids: `${omar.id},${idle.id}` } },
    });
    assert.deepEqual(two.data!.data.map((c) => c.id).sort(), [omar.id, idle.id].sort());
    // Another store's customer is not listed by its id.
    const other = await shop();
    const theirs = await other.client.GET("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: other.path, query: { ids: maya.id } },
    });
    assert.deepEqual(theirs.data!.data, []);
    const bad = await s.client.GET("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: s.path, query: { ids: `${maya.id},nope` } },
    });
    assert.equal(bad.response.status, 400, text(bad));
    // The stats of the customer's page say the same.
    const stats = await s.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}/stats", {
      params: { path: { ...s.path, id: maya.id } },
    });
    assert.deepEqual([stats.data!.data.ordersCount, stats.data!.data.totalSpent], [3, "25.00"]);
    // An update's answer and its event carry them too.
    const updated = await s.client.PATCH("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { ...s.path, id: maya.id } },
      body: { note: "Regular" },
    });
    assert.deepEqual(figures(updated.data!.data), [3, "25.00"]);
    const events = await s.events("customer.updated");
    assert.deepEqual(figures(events.at(-1)!.payload as never), [3, "25.00"]);
  });

  it("50 concurrent full refunds of one order record exactly one; an app refunds under write_orders", async () => {
    const s = await shop();
    const p = await s.product("P", "20.00", 10);
    const c = await s.customer("burst@example.com");
    const o = await s.placed({ customerId: c.id, lineItems: [{ productId: p.id, quantity: 2 }] });
    const orderPath = { path: { ...s.path, id: o.id } };
    await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
      params: orderPath,
      body: { status: "paid" },
    });
    const burst = await Promise.all(
      Array.from({ length: 50 }, () =>
        s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
          params: orderPath,
          body: { lineItems: [{ lineItemId: o.lineItems[0]!.id, quantity: 2 }] },
        }),
      ),
    );
    const statuses = burst.map((r) => r.response.status);
    assert.equal(statuses.filter((x) => x === 201).length, 1, JSON.stringify(statuses));
    assert.equal(statuses.filter((x) => x === 409).length, 49);
    const after = (await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", { params: orderPath }))
      .data!.data;
    assert.deepEqual([after.refunded, after.net, after.financialStatus], ["40.00", "0.00", "refunded"]);

    const { app, order: placed } = await appWithOrder(ctx, "app-refund@example.com");
    const id = placed.id;
    await app.api.POST("/api/v1/apps/api/orders/{id}/status", {
      params: { path: { id } },
      body: { status: "paid" },
    });
    const calc = await app.api.POST("/api/v1/apps/api/orders/{id}/refunds/calculate", {
      params: { path: { id } },
      body: { lineItems: [{ lineItemId: placed.lineItems[0]!.id, quantity: 1 }] },
    });
    assert.equal(calc.data!.data.amount, "12.00");
    const made = await app.api.POST("/api/v1/apps/api/orders/{id}/refunds", {
      params: { path: { id } },
      body: { lineItems: [{ lineItemId: placed.lineItems[0]!.id, quantity: 1 }] },
    });
    assert.equal(made.response.status, 201, text(made));
    const reader = await installedApp(ctx.app, ["read_orders"]);
    const denied = await reader.api.POST("/api/v1/apps/api/orders/{id}/refunds/calculate", {
      params: { path: { id } },
      body: {},
    });
    assert.equal(denied.response.status, 403);
  });
  it("a deleted customer's refunds and returns lose their notes, in the rows and in the events", async () => {
    const s = await shop();
    const p = await s.product("P", "5.00", 10);
    const c = await s.customer("gone@example.com");
    const o = await s.placed({ customerId: c.id, lineItems: [{ productId: p.id, quantity: 2 }] });
    const orderPath = { path: { ...s.path, id: o.id } };
    for (const status of ["paid", "confirmed", "shipped"] as const)
      await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
        params: orderPath,
        body: { status },
      });
    const returned = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/returns", {
      params: orderPath,
      body: {
        lineItems: [{ lineItemId: o.lineItems[0]!.id, quantity: 1, reason: "unwanted" }],
        note: "Mrs Gone left it with her neighbour at 3 Main St",
      },
    });
    assert.equal(returned.response.status, 201, text(returned));
    const refund = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
      params: orderPath,
      body: {
        lineItems: [{ lineItemId: o.lineItems[0]!.id, quantity: 1 }],
        note: "Given back to Mrs Gone at 1 Main St",
      },
    });
    assert.equal(refund.response.status, 201, text(refund));
    const removed = await s.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { ...s.path, id: c.id } },
    });
    assert.equal(removed.response.status, 200, text(removed));
    const listed = await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
      params: orderPath,
    });
    assert.deepEqual(
      listed.data!.data.map((r) => [r.note, r.amount]),
      [["", "5.00"]],
    );
    const events = await s.events("refund.created");
    assert.deepEqual(
      events.map((e) => [e.payload.note, e.payload.amount]),
      [["", "5.00"]],
    );
    const ret = await s.client.GET("/api/v1/dashboard/stores/{slug}/returns/{id}", {
      params: { path: { ...s.path, id: returned.data!.data.id } },
    });
    assert.equal(ret.data!.data.note, "", "the return's row, not only its events");
    assert.deepEqual(
      (await s.events("return.requested")).map((e) => e.payload.note),
      [""],
    );
  });
  it("returns: requested for a shipped order, approved, received into stock, closed with the refund linked; every step its event", async () => {
    const s = await shop();
    const p = await s.product("Boots", "80.00", 10);
    const c = await s.customer("ret@example.com");
    const o = await s.placed({
      customerId: c.id,
      lineItems: [{ productId: p.id, quantity: 2 }],
      shippingLines: [{ title: "Standard", price: "5.00" }],
    });
    const orderPath = { path: { ...s.path, id: o.id } };
    const line = o.lineItems[0]!.id;
    const early = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/returns", {
      params: orderPath,
      body: { lineItems: [{ lineItemId: line, quantity: 1, reason: "size_too_small" }] },
    });
    assert.equal(early.response.status, 409, "nothing has shipped yet");
    for (const status of ["paid", "confirmed", "shipped"] as const)
      await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
        params: orderPath,
        body: { status },
      });
    const made = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/returns", {
      params: orderPath,
      body: { lineItems: [{ lineItemId: line, quantity: 1, reason: "size_too_small" }], note: "Too tight" },
    });
    assert.equal(made.response.status, 201, text(made));
    const id = made.data!.data.id;
    const too = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/returns", {
      params: orderPath,
      body: { lineItems: [{ lineItemId: line, quantity: 2, reason: "unwanted" }] },
    });
    assert.equal(too.response.status, 409, "one of the two is in a return already");
    const badReason = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/returns", {
      params: orderPath,
      // @ts-expect-error a reason the documented list does not have
      body: { lineItems: [{ lineItemId: line, quantity: 1, reason: "changed_my_mind" }] },
    });
    assert.equal(badReason.response.status, 400);
    const retPath = { path: { ...s.path, id } };
    const early2 = await s.client.POST("/api/v1/dashboard/stores/{slug}/returns/{id}/receive", {
      params: retPath,
      body: {},
    });
    assert.equal(early2.response.status, 409, "a requested return is approved first");
    const approved = await s.client.POST("/api/v1/dashboard/stores/{slug}/returns/{id}/approve", {
      params: retPath,
    });
    assert.equal(approved.data!.data.status, "approved");
    const available = async () =>
      (
        await s.client.GET("/api/v1/dashboard/stores/{slug}/inventory-levels", {
          params: { path: s.path, query: { variantId: p.variants[0]!.id } },
        })
      ).data!.data[0]!.available;
    assert.equal(await available(), 8);
    const received = await s.client.POST("/api/v1/dashboard/stores/{slug}/returns/{id}/receive", {
      params: retPath,
      body: {},
    });
    assert.equal(received.response.status, 200, text(received));
    assert.equal(await available(), 9, "the boot is back in stock");
    const closed = await s.client.POST("/api/v1/dashboard/stores/{slug}/returns/{id}/close", {
      params: retPath,
      body: {},
    });
    assert.equal(closed.response.status, 200, text(closed));
    assert.equal(closed.data!.data.status, "closed");
    assert.ok(closed.data!.data.refundId);
    const order = (await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", { params: orderPath }))
      .data!.data;
    assert.deepEqual(
      [order.refunded, order.net, order.financialStatus],
      ["80.00", "85.00", "partially_refunded"],
    );
    const listed = await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/returns", {
      params: orderPath,
    });
    const r = listed.data!.data[0]!;
    assert.deepEqual(
      [r.status, r.note, r.lineItems, Boolean(r.approvedAt && r.receivedAt && r.closedAt), r.declinedAt],
      ["closed", "Too tight", [{ lineItemId: line, quantity: 1, reason: "size_too_small" }], true, null],
    );
    assert.deepEqual(
      (await s.events("return.requested")).length +
        (await s.events("return.approved")).length +
        (await s.events("return.received")).length +
        (await s.events("return.closed")).length,
      4,
    );
    // A declined return frees its units for another.
    const second = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/returns", {
      params: orderPath,
      body: { lineItems: [{ lineItemId: line, quantity: 1, reason: "unwanted" }] },
    });
    const secondPath = { path: { ...s.path, id: second.data!.data.id } };
    assert.equal(
      (await s.client.POST("/api/v1/dashboard/stores/{slug}/returns/{id}/decline", { params: secondPath }))
        .data!.data.status,
      "declined",
    );
    const third = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/returns", {
      params: orderPath,
      body: { lineItems: [{ lineItemId: line, quantity: 1, reason: "defective" }] },
    });
    assert.equal(third.response.status, 201, text(third));

    // A returns app: read_returns / write_returns.
    const app = await installedApp(ctx.app, ["read_returns", "write_returns", "read_orders"]);
    const denied = await (await installedApp(ctx.app, ["read_orders"])).api.GET(
      "/api/v1/apps/api/returns/{id}",
      {
        params: { path: { id } },
      },
    );
    assert.equal(denied.response.status, 403);
    assert.equal(
      (await app.api.GET("/api/v1/apps/api/returns/{id}", { params: { path: { id } } })).response.status,
      404,
      "another store's return",
    );
  });
});
