import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestContext, outbox, type TestContext } from "./harness.ts";
import { errorCode, merchantWithStore } from "./legacy-client.ts";

describe("dashboard: stores, products, customers, orders and their events", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  it("creates stores with unique slugs and shows a merchant only their own (another's is 404)", async () => {
    const a = await merchantWithStore(ctx.app);
    const b = await merchantWithStore(ctx.app);
    assert.match(a.store.id, /^store_/);
    assert.equal(a.store.currency, "USD");
    const taken = await b.client.post("/api/v1/dashboard/stores", { name: "Copy", slug: a.slug });
    assert.equal(taken.status, 409);
    assert.equal(errorCode(taken), "CONFLICT");
    const list = await b.client.get("/api/v1/dashboard/stores");
    assert.deepEqual(
      list.data.map((s: { slug: string }) => s.slug),
      [b.slug],
    );
    for (const path of [a.base, `${a.base}/products`, `${a.base}/orders`, `${a.base}/customers`]) {
      const res = await b.client.get(path);
      assert.equal(res.status, 404, path);
      assert.equal(errorCode(res), "NOT_FOUND");
    }
    const write = await b.client.post(`${a.base}/products`, { title: "Intruder", price: "1.00" });
    assert.equal(write.status, 404);
    const bad = await b.client.post("/api/v1/dashboard/stores", { name: "X", slug: "Not A Slug" });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.details[0].field, "slug");
  });

  it("runs the product life cycle with exact money and writes one event per change", async () => {
    const m = await merchantWithStore(ctx.app);
    const created = await m.client.post(`${m.base}/products`, {
      title: "Mug",
      price: "12.5",
      sku: "MUG-1",
      stock: 3,
      description: "Stoneware",
    });
    assert.equal(created.status, 201);
    assert.equal(created.data.price, "12.50");
    assert.equal(created.data.currency, "USD");
    assert.match(created.data.id, /^prod_/);
    const id = created.data.id;
    assert.equal(
      (await m.client.post(`${m.base}/products`, { title: "Dup", price: "1", sku: "MUG-1" })).status,
      409,
    );
    assert.equal((await m.client.post(`${m.base}/products`, { title: "Bad", price: "1.999" })).status, 400);
    assert.equal((await m.client.post(`${m.base}/products`, { title: "Bad", price: 12.5 })).status, 400);
    const patched = await m.client.patch(`${m.base}/products/${id}`, { price: "13.00", status: "draft" });
    assert.equal(patched.status, 200);
    assert.equal(patched.data.price, "13.00");
    assert.equal(patched.data.status, "draft");
    const noop = await m.client.patch(`${m.base}/products/${id}`, { price: "13" });
    assert.equal(noop.status, 200);
    assert.equal((await m.client.patch(`${m.base}/products/${id}`, {})).status, 400);
    assert.equal((await m.client.get(`${m.base}/products/${id}`)).data.title, "Mug");
    assert.equal((await m.client.delete(`${m.base}/products/${id}`)).status, 200);
    assert.equal((await m.client.get(`${m.base}/products/${id}`)).status, 404);
    assert.equal((await m.client.delete(`${m.base}/products/${id}`)).status, 404);
    const events = await outbox(ctx.platform, m.store.id);
    assert.deepEqual(
      events.map((e) => e.topic),
      ["product.created", "product.updated", "product.deleted"],
    );
    assert.equal((events[1]!.payload as { price: string }).price, "13.00");
    assert.ok(events.every((e) => e.resource_id === id));
  });

  it("pages products with a cursor, newest first, with no duplicates or gaps", async () => {
    const m = await merchantWithStore(ctx.app);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      ids.push((await m.client.post(`${m.base}/products`, { title: `P${i}`, price: "1" })).data.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await m.client.get(`${m.base}/products?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      assert.equal(res.status, 200);
      assert.ok(res.data.length <= 3);
      seen.push(...res.data.map((p: { id: string }) => p.id));
      cursor = res.body.meta.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, [...ids].reverse());
    const junk = await m.client.get(`${m.base}/products?cursor=not-a-cursor`);
    assert.equal(junk.status, 400);
    assert.equal(junk.body.error.details[0].field, "cursor");
    assert.equal((await m.client.get(`${m.base}/products?limit=251`)).status, 400);
    // updatedSince switches to oldest-change-first, for incremental sync.
    await m.client.patch(`${m.base}/products/${ids[0]}`, { title: "changed" });
    const since = await m.client.get(`${m.base}/products?updatedSince=2000-01-01T00:00:00Z&limit=250`);
    assert.equal(since.data.at(-1).id, ids[0]);
  });

  it("creates customers with per-store unique e-mails", async () => {
    const m = await merchantWithStore(ctx.app);
    const other = await merchantWithStore(ctx.app);
    const c = await m.client.post(`${m.base}/customers`, { email: "Same@Example.com", firstName: "Sam" });
    assert.equal(c.status, 201);
    assert.match(c.data.id, /^cus_/);
    assert.equal(
      (await m.client.post(`${m.base}/customers`, { email: "same@example.com", firstName: "Dup" })).status,
      409,
    );
    assert.equal(
      (await other.client.post(`${other.base}/customers`, { email: "same@example.com", firstName: "Ok" }))
        .status,
      201,
    );
    assert.equal((await m.client.get(`${m.base}/customers/${c.data.id}`)).data.firstName, "Sam");
    assert.equal((await other.client.get(`${other.base}/customers/${c.data.id}`)).status, 404);
    assert.equal((await m.client.get(`${m.base}/customers`)).data.length, 1);
  });

  it("computes order totals, takes and returns stock, and enforces the status machine", async () => {
    const m = await merchantWithStore(ctx.app);
    const shirt = (await m.client.post(`${m.base}/products`, { title: "Shirt", price: "19.99", stock: 5 }))
      .data;
    const mug = (await m.client.post(`${m.base}/products`, { title: "Mug", price: "7.25", stock: 1 })).data;
    const draft = (
      await m.client.post(`${m.base}/products`, { title: "Draft", price: "1", stock: 9, status: "draft" })
    ).data;
    const customer = (await m.client.post(`${m.base}/customers`, { email: "c@example.com", firstName: "C" }))
      .data;
    const before = (await outbox(ctx.platform, m.store.id)).length;

    const short = await m.client.post(`${m.base}/orders`, {
      customerId: customer.id,
      lineItems: [{ productId: mug.id, quantity: 2 }],
    });
    assert.equal(short.status, 409);
    const inactive = await m.client.post(`${m.base}/orders`, {
      customerId: customer.id,
      lineItems: [{ productId: draft.id, quantity: 1 }],
    });
    assert.equal(inactive.status, 400);
    assert.equal((await outbox(ctx.platform, m.store.id)).length, before, "failed orders write no event");

    const order = await m.client.post(`${m.base}/orders`, {
      customerId: customer.id,
      lineItems: [
        { productId: shirt.id, quantity: 2 },
        { productId: mug.id, quantity: 1 },
      ],
      note: "gift wrap",
    });
    assert.equal(order.status, 201);
    assert.equal(order.data.status, "pending");
    assert.equal(order.data.subtotal, "47.23");
    assert.equal(order.data.total, "47.23");
    assert.equal(order.data.number, 1001);
    assert.deepEqual(
      order.data.lineItems.map((li: { title: string; unitPrice: string; total: string }) => [
        li.title,
        li.unitPrice,
        li.total,
      ]),
      [
        ["Shirt", "19.99", "39.98"],
        ["Mug", "7.25", "7.25"],
      ],
    );
    assert.equal((await m.client.get(`${m.base}/products/${shirt.id}`)).data.stock, 3);
    const id = order.data.id;
    const move = (status: string) => m.client.post(`${m.base}/orders/${id}/status`, { status });

    const skip = await move("shipped");
    assert.equal(skip.status, 409);
    assert.deepEqual(skip.body.error.details.allowed, ["paid", "cancelled"]);
    assert.equal((await move("paid")).data.status, "paid");
    assert.equal((await move("paid")).status, 409);
    assert.equal((await move("confirmed")).status, 200);
    const cancelled = await move("cancelled");
    assert.equal(cancelled.data.status, "cancelled");
    assert.equal(
      (await m.client.get(`${m.base}/products/${shirt.id}`)).data.stock,
      5,
      "stock returned on cancel",
    );
    assert.equal((await move("pending")).status, 409);
    assert.equal((await move("bogus")).status, 400);

    const second = await m.client.post(`${m.base}/orders`, {
      customerId: customer.id,
      lineItems: [{ productId: shirt.id, quantity: 1 }],
    });
    assert.equal(second.data.number, 1002);
    for (const status of ["paid", "confirmed", "shipped", "delivered"]) {
      const res = await m.client.post(`${m.base}/orders/${second.data.id}/status`, { status });
      assert.equal(res.status, 200, status);
    }
    assert.equal(
      (await m.client.post(`${m.base}/orders/${second.data.id}/status`, { status: "cancelled" })).status,
      409,
    );

    const topics = (await outbox(ctx.platform, m.store.id)).slice(before).map((e) => e.topic);
    assert.deepEqual(topics, [
      "product.updated", // shirt stock 5 -> 3
      "product.updated", // mug stock 1 -> 0
      "order.created",
      "order.paid",
      "order.confirmed",
      "product.updated", // shirt restocked
      "product.updated", // mug restocked
      "order.cancelled",
      "product.updated",
      "order.created",
      "order.paid",
      "order.confirmed",
      "order.shipped",
      "order.delivered",
    ]);
    const list = await m.client.get(`${m.base}/orders?status=delivered`);
    assert.deepEqual(
      list.data.map((o: { id: string }) => o.id),
      [second.data.id],
    );
  });

  it("validates order input: other store's customer, duplicate lines, empty lines", async () => {
    const m = await merchantWithStore(ctx.app);
    const other = await merchantWithStore(ctx.app);
    const foreign = (
      await other.client.post(`${other.base}/customers`, { email: "f@example.com", firstName: "F" })
    ).data;
    const p = (await m.client.post(`${m.base}/products`, { title: "P", price: "1", stock: 10 })).data;
    const foreignCustomer = await m.client.post(`${m.base}/orders`, {
      customerId: foreign.id,
      lineItems: [{ productId: p.id, quantity: 1 }],
    });
    assert.equal(foreignCustomer.status, 400);
    assert.equal(foreignCustomer.body.error.details[0].field, "customerId");
    const mine = (await m.client.post(`${m.base}/customers`, { email: "m@example.com", firstName: "M" }))
      .data;
    const dup = await m.client.post(`${m.base}/orders`, {
      customerId: mine.id,
      lineItems: [
        { productId: p.id, quantity: 1 },
        { productId: p.id, quantity: 2 },
      ],
    });
    assert.equal(dup.status, 400);
    assert.equal(
      (await m.client.post(`${m.base}/orders`, { customerId: mine.id, lineItems: [] })).status,
      400,
    );
    assert.equal((await m.client.get(`${m.base}/orders/ord_doesnotexist`)).status, 400);
    assert.equal((await m.client.get(`${m.base}/orders/ord_${"a".repeat(22)}`)).status, 404);
  });

  it("writes no event for reads or rejected writes, and sells the last unit once under concurrency", async () => {
    const m = await merchantWithStore(ctx.app);
    const p = (await m.client.post(`${m.base}/products`, { title: "Last one", price: "5", stock: 1 })).data;
    const c = (await m.client.post(`${m.base}/customers`, { email: "x@example.com", firstName: "X" })).data;
    const before = (await outbox(ctx.platform, m.store.id)).length;
    await m.client.get(`${m.base}/products`);
    await m.client.get(`${m.base}/products/${p.id}`);
    await m.client.post(`${m.base}/products`, { title: "" });
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        m.client.post(`${m.base}/orders`, {
          customerId: c.id,
          lineItems: [{ productId: p.id, quantity: 1 }],
        }),
      ),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409]);
    const topics = (await outbox(ctx.platform, m.store.id)).slice(before).map((e) => e.topic);
    assert.deepEqual(topics, ["product.updated", "order.created"]);
  });
});
