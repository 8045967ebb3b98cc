import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { installedApp } from "./apps-harness.ts";
import { createTestContext, type RequestBody, type TestContext, text } from "./harness.ts";
import { appWithOrder, assertIdentity, type Checker, moneyShop, NY } from "./money-shop.ts";
import { openApiChecker } from "./openapi-assert.ts";

/**
 * Order edits (issue 31, part 5): an order not yet shipped gains and loses lines, units, codes and
 * shipping; it is priced again exactly, its stock committed and released at its location, and a
 * paid order shows the difference as outstanding until it is settled. The preview is what the
 * commit does. Every answer is checked against the served document. Both databases.
 */
type EditBody = RequestBody<"/api/v1/dashboard/stores/{slug}/orders/{id}/edits", "post">;

describe("order edits", () => {
  let ctx: TestContext;
  let spec: Checker;
  before(async () => {
    ctx = await createTestContext(
      // Concurrent edits wait for one order's row and one level's through the test pool of 5.
      { RATE_LIMIT_PER_MINUTE: "1000000", DATABASE_CONNECT_TIMEOUT_MS: "120000" },
      { frozenClock: true },
    );
    spec = await openApiChecker(ctx.app);
  });
  after(async () => ctx?.close());

  async function shop(settings: Parameters<typeof moneyShop>[2] = {}) {
    const s = await moneyShop(ctx, spec, settings);
    const orderPath = (id: string) => ({ path: { ...s.path, id } });
    const get = async (id: string) =>
      (await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", { params: orderPath(id) })).data!
        .data;
    const preview = (id: string, body: Omit<EditBody, "note">) =>
      s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/edits/preview", {
        params: orderPath(id),
        body,
      });
    const edit = (id: string, body: EditBody) =>
      s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/edits", { params: orderPath(id), body });
    const status = async (id: string, to: "paid" | "confirmed" | "shipped" | "cancelled") => {
      const res = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
        params: orderPath(id),
        body: { status: to },
      });
      assert.equal(res.response.status, 200, text(res));
      return res.data!.data;
    };
    const level = async (variantId: string) => {
      const l = (
        await s.client.GET("/api/v1/dashboard/stores/{slug}/inventory-levels", {
          params: { path: s.path, query: { variantId } },
        })
      ).data!.data[0]!;
      return [l.available, l.committed];
    };
    return { ...s, orderPath, get, preview, edit, status, level };
  }

  it("changes a quantity, removes a line and adds a variant: previewed exactly as committed, stock moved at the order's location, order.edited with the lines before and after", async () => {
    const s = await shop({ taxShipping: true });
    const shirt = await s.product("Shirt", "9.99", 10);
    const cap = await s.product("Cap", "5.00", 5);
    const mug = await s.product("Mug", "12.00", 5);
    const c = await s.customer("edit@example.com");
    await s.taxRate({ country: "US", region: "NY", title: "NY", rate: "8.875" });
    await s.discount({ code: "TEN", kind: "percentage", percentage: "10" });
    const o = await s.placed({
      customerId: c.id,
      lineItems: [
        { productId: shirt.id, quantity: 3 },
        { productId: cap.id, quantity: 1 },
      ],
      shippingAddress: NY,
      shippingLines: [{ title: "Standard", price: "4.95" }],
      discountCodes: ["TEN"],
    });
    // 34.97 − 3.50 (10 %: 3.00 on the shirts, 0.50 on the cap) + 4.95 + tax 2.39 + 0.40 + 0.44.
    assert.equal(o.total, "39.65");
    const [shirtLine, capLine] = o.lineItems;
    const body = {
      lineItems: [
        { lineItemId: shirtLine!.id, quantity: 1 },
        { lineItemId: capLine!.id, quantity: 0 },
      ],
      addLineItems: [{ variantId: mug.variants[0]!.id, quantity: 2 }],
    };
    const previewed = await s.preview(o.id, body);
    assert.equal(previewed.response.status, 200, text(previewed));
    const p = previewed.data!.data;
    // 9.99 + 24.00 = 33.99; 10 % = 3.40 spread 1.00 / 2.40; tax 0.80 + 1.92 + 0.44 on shipping.
    assert.deepEqual(
      [p.totalBefore, p.totalAfter, p.difference, p.outstanding],
      ["39.65", "38.70", "-0.95", "0.00"],
    );
    assert.deepEqual(
      p.lineItemsAfter.map((l) => [l.title, l.quantity, l.total]),
      [
        ["Shirt", 1, "9.99"],
        ["Mug", 2, "24.00"],
      ],
    );
    assertIdentity(p.order);
    // Nothing was written: the order, its stock and its code's uses are as they were.
    assert.equal((await s.get(o.id)).total, "39.65");
    assert.deepEqual(await s.level(mug.variants[0]!.id), [5, 0]);
    assert.deepEqual(await s.level(shirt.variants[0]!.id), [7, 3]);
    assert.equal((await s.events("order.edited")).length, 0);

    ctx.clock.advance(1000);
    const committed = await s.edit(o.id, {
      ...body,
      note: "Swapped the cap for two mugs",
      expectedUpdatedAt: o.updatedAt,
    });
    assert.equal(committed.response.status, 201, text(committed));
    const e = committed.data!.data;
    assert.deepEqual([e.totalBefore, e.totalAfter, e.difference], ["39.65", "38.70", "-0.95"]);
    const now = await s.get(o.id);
    const { updatedAt: _u, ...shown } = now;
    const { updatedAt: _p, ...foreseen } = p.order;
    assert.deepEqual(
      { ...shown, lineItems: shown.lineItems.map(({ id: _, ...l }) => l) },
      { ...foreseen, lineItems: foreseen.lineItems.map(({ id: _, ...l }) => l) },
      "the commit is what the preview showed",
    );
    assert.equal(now.lineItems[0]!.id, shirtLine!.id, "a kept line keeps its id");
    assert.deepEqual(
      now.lineItems.map((l) => [l.discount, l.tax]),
      [
        ["1.00", "0.80"],
        ["2.40", "1.92"],
      ],
    );
    assertIdentity(now);
    // Two shirts and the cap released, two mugs committed, all at the order's location.
    assert.deepEqual(await s.level(shirt.variants[0]!.id), [9, 1]);
    assert.deepEqual(await s.level(cap.variants[0]!.id), [5, 0]);
    assert.deepEqual(await s.level(mug.variants[0]!.id), [3, 2]);
    const [edited] = await s.events("order.edited");
    assert.equal(edited!.resource_id, o.id, "an edit's event is about its order");
    assert.deepEqual(
      edited!.payload.lineItemsBefore.map((l) => [l.title, l.quantity]),
      [
        ["Shirt", 3],
        ["Cap", 1],
      ],
    );
    assert.deepEqual(
      edited!.payload.lineItemsAfter.map((l) => [l.title, l.quantity]),
      [
        ["Shirt", 1],
        ["Mug", 2],
      ],
    );
    assert.equal(edited!.payload.note, "Swapped the cap for two mugs");
    const updates = await s.events("order.updated");
    assert.equal(updates.at(-1)!.payload.total, "38.70");

    // Prepared on the order as it was: refused now, nothing written.
    const stale = await s.edit(o.id, {
      lineItems: [{ lineItemId: shirtLine!.id, quantity: 2 }],
      expectedUpdatedAt: o.updatedAt,
    });
    assert.equal(stale.response.status, 409, text(stale));
    // An added variant already on the order, a line of another order, nothing at all: 400.
    for (const bad of [
      { addLineItems: [{ variantId: shirt.variants[0]!.id, quantity: 1 }] },
      { lineItems: [{ lineItemId: "li_nothere", quantity: 1 }] },
      {},
      { lineItems: now.lineItems.map((l) => ({ lineItemId: l.id, quantity: 0 })) },
    ] satisfies EditBody[]) {
      const res = await s.edit(o.id, bad);
      assert.equal(res.response.status, 400, `${JSON.stringify(bad)}: ${text(res)}`);
    }
    // More than the location holds: 409, nothing written.
    const short = await s.edit(o.id, { lineItems: [{ lineItemId: now.lineItems[1]!.id, quantity: 6 }] });
    assert.equal(short.response.status, 409, text(short));
    assert.deepEqual(await s.level(mug.variants[0]!.id), [3, 2]);
    // Edited or placed so, an order's money is the same: the edit prices as checkout does.
    const fresh = await s.placed({
      customerId: c.id,
      lineItems: [
        { productId: shirt.id, quantity: 1 },
        { productId: mug.id, quantity: 2 },
      ],
      shippingAddress: NY,
      shippingLines: [{ title: "Standard", price: "4.95" }],
      discountCodes: ["TEN"],
    });
    const money = (x: typeof fresh) => ({
      totals: [x.subtotal, x.discounts, x.shipping, x.tax, x.total],
      taxLines: x.taxLines,
      shippingLines: x.shippingLines,
      lines: x.lineItems.map((l) => [l.total, l.discount, l.tax, l.discountAllocations, l.taxLines]),
    });
    assert.deepEqual(money(await s.get(o.id)), money(fresh));
    const listed = await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/edits", {
      params: s.orderPath(o.id),
    });
    assert.deepEqual(
      listed.data!.data.map((x) => [x.totalAfter, x.note]),
      [["38.70", "Swapped the cap for two mugs"]],
    );
  });

  it("codes in an edit: a kept code keeps its terms once paused, a new one is checked and reserved, a removed one gives its use back", async () => {
    const s = await shop();
    const p = await s.product("Lamp", "40.00", 50);
    const c = await s.customer("codes@example.com");
    const old = await s.discount({ code: "OLD5", kind: "fixed_amount", value: "5.00", usageLimit: 1 });
    await s.discount({ code: "NEW10", kind: "percentage", percentage: "10", combinable: true });
    const o = await s.placed({
      customerId: c.id,
      lineItems: [{ productId: p.id, quantity: 1 }],
      discountCodes: ["OLD5"],
    });
    assert.equal(o.total, "35.00");
    const pause = await s.client.PATCH("/api/v1/dashboard/stores/{slug}/discounts/{id}", {
      params: { path: { ...s.path, id: old.id } },
      body: { status: "paused" },
    });
    assert.equal(pause.response.status, 200, text(pause));
    // Paused and at its limit, the code the order has stays on it through an edit.
    const more = await s.edit(o.id, { lineItems: [{ lineItemId: o.lineItems[0]!.id, quantity: 2 }] });
    assert.equal(more.response.status, 201, text(more));
    assert.deepEqual([more.data!.data.totalAfter, more.data!.data.discountCodesAfter], ["75.00", ["OLD5"]]);
    // OLD5 does not combine: adding NEW10 beside it is refused, naming why.
    const both = await s.edit(o.id, { discountCodes: ["OLD5", "NEW10"] });
    assert.equal(both.response.status, 400, text(both));
    const refused = both.error as unknown as { error: { code: string; details: Array<{ reason: string }> } };
    assert.equal(refused.error.code, "DISCOUNT_NOT_APPLICABLE");
    assert.ok(refused.error.details.some((d) => d.reason === "not_combinable"));
    const unknown = await s.edit(o.id, { discountCodes: ["NOPE"] });
    assert.equal(unknown.response.status, 400);
    // Swapped: OLD5's use given back, NEW10's reserved.
    const swapped = await s.edit(o.id, { discountCodes: ["NEW10"] });
    assert.equal(swapped.response.status, 201, text(swapped));
    assert.equal(swapped.data!.data.totalAfter, "72.00");
    const discounts = (
      await s.client.GET("/api/v1/dashboard/stores/{slug}/discounts", { params: { path: s.path } })
    ).data!.data;
    assert.deepEqual(discounts.map((d) => [d.code, d.timesUsed]).sort(), [
      ["NEW10", 1],
      ["OLD5", 0],
    ]);
    // The shipping changes too: a line added, then none.
    const shipped = await s.edit(o.id, { shippingLines: [{ title: "Express", price: "9.50" }] });
    assert.equal(shipped.data!.data.totalAfter, "81.50");
    const none = await s.edit(o.id, { shippingLines: [] });
    assert.equal(none.data!.data.totalAfter, "72.00");
    assertIdentity(await s.get(o.id));
  });

  it("a paid order: the difference is outstanding until settled, refunds wait for it; shipped, cancelled or refunded orders are not edited", async () => {
    const s = await shop();
    const p = await s.product("Kettle", "30.00", 20);
    const c = await s.customer("paid@example.com");
    const o = await s.placed({ customerId: c.id, lineItems: [{ productId: p.id, quantity: 2 }] });
    const paid = await s.status(o.id, "paid");
    assert.deepEqual([paid.received, paid.outstanding], ["60.00", "0.00"]);
    const up = await s.edit(o.id, { lineItems: [{ lineItemId: o.lineItems[0]!.id, quantity: 3 }] });
    assert.equal(up.response.status, 201, text(up));
    assert.deepEqual([up.data!.data.difference, up.data!.data.outstanding], ["30.00", "30.00"]);
    const owed = await s.get(o.id);
    assert.deepEqual([owed.total, owed.received, owed.outstanding], ["90.00", "60.00", "30.00"]);
    const early = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
      params: s.orderPath(o.id),
      body: { lineItems: [{ lineItemId: o.lineItems[0]!.id, quantity: 1 }] },
    });
    assert.equal(early.response.status, 409, "settle the difference before refunding");
    // Down below what was paid: owed to the customer.
    const down = await s.edit(o.id, { lineItems: [{ lineItemId: o.lineItems[0]!.id, quantity: 1 }] });
    assert.deepEqual([down.data!.data.difference, down.data!.data.outstanding], ["-60.00", "-30.00"]);
    const settled = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/settle", {
      params: s.orderPath(o.id),
    });
    assert.equal(settled.response.status, 200, text(settled));
    assert.deepEqual(
      [settled.data!.data.received, settled.data!.data.outstanding, settled.data!.data.net],
      ["30.00", "0.00", "30.00"],
    );
    const twice = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/settle", {
      params: s.orderPath(o.id),
    });
    assert.equal(twice.response.status, 409, "nothing owed either way");
    const refund = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
      params: s.orderPath(o.id),
      body: { lineItems: [{ lineItemId: o.lineItems[0]!.id, quantity: 1 }] },
    });
    assert.equal(refund.response.status, 201, text(refund));
    const refundedEdit = await s.edit(o.id, { shippingLines: [{ title: "Post", price: "3.00" }] });
    assert.equal(refundedEdit.response.status, 409, "an order with refunds is not edited");

    const o2 = await s.placed({ customerId: c.id, lineItems: [{ productId: p.id, quantity: 1 }] });
    await s.status(o2.id, "paid");
    await s.status(o2.id, "confirmed");
    await s.status(o2.id, "shipped");
    const late = await s.edit(o2.id, { lineItems: [{ lineItemId: o2.lineItems[0]!.id, quantity: 2 }] });
    assert.equal(late.response.status, 409, "a shipped order is not edited");
    const o3 = await s.placed({ customerId: c.id, lineItems: [{ productId: p.id, quantity: 1 }] });
    await s.status(o3.id, "cancelled");
    const gone = await s.edit(o3.id, { lineItems: [{ lineItemId: o3.lineItems[0]!.id, quantity: 2 }] });
    assert.equal(gone.response.status, 409, "a cancelled order is not edited");
  });

  it("20 concurrent edits reaching for the last unit take it once; an app edits under write_orders and a deleted customer's edit notes are erased", async () => {
    const s = await shop();
    const p = await s.product("Vase", "15.00", 21);
    const c = await s.customer("burst-edit@example.com");
    const orders = [];
    for (let i = 0; i < 20; i++)
      orders.push(await s.placed({ customerId: c.id, lineItems: [{ productId: p.id, quantity: 1 }] }));
    assert.deepEqual(await s.level(p.variants[0]!.id), [1, 20]);
    const burst = await Promise.all(
      orders.map((o) => s.edit(o.id, { lineItems: [{ lineItemId: o.lineItems[0]!.id, quantity: 2 }] })),
    );
    const statuses = burst.map((r) => r.response.status);
    assert.equal(statuses.filter((x) => x === 201).length, 1, JSON.stringify(statuses));
    assert.equal(statuses.filter((x) => x === 409).length, 19);
    assert.deepEqual(await s.level(p.variants[0]!.id), [0, 21]);

    const { app, order } = await appWithOrder(ctx, "app-edit@example.com");
    const m = app.merchant;
    const id = order.id;
    const lineItemId = order.lineItems[0]!.id;
    const preview = await app.api.POST("/api/v1/apps/api/orders/{id}/edits/preview", {
      params: { path: { id } },
      body: { lineItems: [{ lineItemId, quantity: 2 }] },
    });
    assert.equal(preview.data!.data.totalAfter, "24.00");
    const made = await app.api.POST("/api/v1/apps/api/orders/{id}/edits", {
      params: { path: { id } },
      body: { lineItems: [{ lineItemId, quantity: 2 }], note: "Ada wants two" },
      headers: { "idempotency-key": "edit-1" },
    });
    assert.equal(made.response.status, 201, text(made));
    const replay = await app.api.POST("/api/v1/apps/api/orders/{id}/edits", {
      params: { path: { id } },
      body: { lineItems: [{ lineItemId, quantity: 2 }], note: "Ada wants two" },
      headers: { "idempotency-key": "edit-1" },
    });
    assert.equal(replay.data!.data.id, made.data!.data.id, "the same key: the same edit, once");
    const reader = await installedApp(ctx.app, ["read_orders"]);
    const denied = await reader.api.POST("/api/v1/apps/api/orders/{id}/edits/preview", {
      params: { path: { id } },
      body: { lineItems: [{ lineItemId, quantity: 3 }] },
    });
    assert.equal(denied.response.status, 403);

    const customerId = order.customerId;
    const removed = await m.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: m.slug, id: customerId } },
    });
    assert.ok(removed.response.status < 300, text(removed));
    const edits = await m.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/edits", {
      params: { path: { slug: m.slug, id } },
    });
    assert.deepEqual(
      edits.data!.data.map((x) => x.note),
      [""],
    );
  });
});
