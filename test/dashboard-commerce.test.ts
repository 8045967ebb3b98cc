import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { flat, flatPatch } from "./catalogue.ts";
import {
  createTestContext,
  detailsOf,
  errorCode,
  fieldErrors,
  merchantWithStore,
  offDocument,
  outbox,
  type RequestBody,
  type TestContext,
} from "./harness.ts";

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
    const taken = await b.client.POST("/api/v1/dashboard/stores", { body: { name: "Copy", slug: a.slug } });
    assert.equal(taken.response.status, 409);
    assert.equal(errorCode(taken), "CONFLICT");
    const list = await b.client.GET("/api/v1/dashboard/stores");
    assert.deepEqual(
      list.data!.data.map((s) => s.slug),
      [b.slug],
    );
    const inA = { params: { path: { slug: a.slug } } };
    for (const [path, read] of [
      [a.base, () => b.client.GET("/api/v1/dashboard/stores/{slug}", inA)],
      [`${a.base}/products`, () => b.client.GET("/api/v1/dashboard/stores/{slug}/products", inA)],
      [`${a.base}/orders`, () => b.client.GET("/api/v1/dashboard/stores/{slug}/orders", inA)],
      [`${a.base}/customers`, () => b.client.GET("/api/v1/dashboard/stores/{slug}/customers", inA)],
    ] as const) {
      const res = await read();
      assert.equal(res.response.status, 404, path);
      assert.equal(errorCode(res), "NOT_FOUND");
    }
    const write = await b.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: a.slug } },
      body: flat({ title: "Intruder", price: "1.00" }),
    });
    assert.equal(write.response.status, 404);
    const bad = await b.client.POST("/api/v1/dashboard/stores", { body: { name: "X", slug: "Not A Slug" } });
    assert.equal(bad.response.status, 400);
    assert.equal(fieldErrors(bad)[0]!.field, "slug");
  });

  it("runs the product life cycle with exact money and writes one event per change", async () => {
    const m = await merchantWithStore(ctx.app);
    const created = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({
        title: "Mug",
        price: "12.5",
        sku: "MUG-1",
        stock: 3,
        description: "Stoneware",
      }),
    });
    assert.equal(created.response.status, 201);
    assert.equal(created.data!.data.variants[0]!.price, "12.50");
    assert.equal(created.data!.data.currency, "USD");
    assert.match(created.data!.data.id, /^prod_/);
    const id = created.data!.data.id;
    assert.equal(
      (
        await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: m.slug } },
          body: flat({ title: "Dup", price: "1", sku: "MUG-1" }),
        })
      ).response.status,
      409,
    );
    assert.equal(
      (
        await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: m.slug } },
          body: flat({ title: "Bad", price: "1.999" }),
        })
      ).response.status,
      400,
    );
    assert.equal(
      (
        await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: m.slug } },
          // A number where the document has a string.
          body: offDocument({ title: "Bad", price: 12.5 }),
        })
      ).response.status,
      400,
    );
    const patched = await m.client.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { slug: m.slug, id } },
      body: flatPatch({ price: "13.00", status: "draft" }),
    });
    assert.equal(patched.response.status, 200);
    assert.equal(patched.data!.data.variants[0]!.price, "13.00");
    assert.equal(patched.data!.data.status, "draft");
    const noop = await m.client.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { slug: m.slug, id } },
      body: flatPatch({ price: "13" }),
    });
    assert.equal(noop.response.status, 200);
    assert.equal(
      (
        await m.client.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: m.slug, id } },
          body: {},
        })
      ).response.status,
      400,
    );
    assert.equal(
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: m.slug, id } },
        })
      ).data!.data.title,
      "Mug",
    );
    assert.equal(
      (
        await m.client.DELETE("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: m.slug, id } },
        })
      ).response.status,
      200,
    );
    assert.equal(
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: m.slug, id } },
        })
      ).response.status,
      404,
    );
    assert.equal(
      (
        await m.client.DELETE("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: m.slug, id } },
        })
      ).response.status,
      404,
    );
    const events = await outbox(ctx.platform, m.store.id);
    assert.deepEqual(
      events.map((e) => e.topic),
      // The first stock is written at the store's first location as it is created.
      ["product.created", "inventory_level.updated", "product.updated", "product.deleted"],
    );
    assert.equal((events[2]!.payload as { variants: Array<{ price: string }> }).variants[0]!.price, "13.00");
    // Each event is about the product, the stock's about its level.
    assert.ok(events.every((e) => e.resource_id === id || e.topic === "inventory_level.updated"));
  });

  it("pages products with a cursor, newest first, with no duplicates or gaps", async () => {
    const m = await merchantWithStore(ctx.app);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      ids.push(
        (
          await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
            params: { path: { slug: m.slug } },
            body: flat({ title: `P${i}`, price: "1" }),
          })
        ).data!.data.id,
      );
    }
    const seen: string[] = [];
    const page = (cursor: string | undefined) =>
      m.client.GET("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug }, query: { limit: 3, cursor } },
      });
    let cursor: string | null = null;
    do {
      const res = await page(cursor ?? undefined);
      assert.equal(res.response.status, 200);
      assert.ok(res.data!.data.length <= 3);
      seen.push(...res.data!.data.map((p) => p.id));
      cursor = res.data!.meta.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, [...ids].reverse());
    const junk = await m.client.GET("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug }, query: { cursor: "not-a-cursor" } },
    });
    assert.equal(junk.response.status, 400);
    assert.equal(fieldErrors(junk)[0]!.field, "cursor");
    assert.equal(
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: m.slug }, query: { limit: 251 } },
        })
      ).response.status,
      400,
    );
    // updatedSince switches to oldest-change-first, for incremental sync.
    await m.client.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { slug: m.slug, id: ids[0]! } },
      body: { title: "changed" },
    });
    const since = await m.client.GET("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug }, query: { updatedSince: "2000-01-01T00:00:00Z", limit: 250 } },
    });
    assert.equal(since.data!.data.at(-1)!.id, ids[0]);
  });

  it("creates customers with per-store unique e-mails", async () => {
    const m = await merchantWithStore(ctx.app);
    const other = await merchantWithStore(ctx.app);
    const c = await m.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: m.slug } },
      body: { email: "Same@Example.com", firstName: "Sam" },
    });
    assert.equal(c.response.status, 201);
    assert.match(c.data!.data.id, /^cus_/);
    assert.equal(
      (
        await m.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
          params: { path: { slug: m.slug } },
          body: { email: "same@example.com", firstName: "Dup" },
        })
      ).response.status,
      409,
    );
    assert.equal(
      (
        await other.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
          params: { path: { slug: other.slug } },
          body: { email: "same@example.com", firstName: "Ok" },
        })
      ).response.status,
      201,
    );
    assert.equal(
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}", {
          params: { path: { slug: m.slug, id: c.data!.data.id } },
        })
      ).data!.data.firstName,
      "Sam",
    );
    assert.equal(
      (
        await other.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}", {
          params: { path: { slug: other.slug, id: c.data!.data.id } },
        })
      ).response.status,
      404,
    );
    assert.equal(
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/customers", {
          params: { path: { slug: m.slug } },
        })
      ).data!.data.length,
      1,
    );
  });

  it("computes order totals, takes and returns stock, and enforces the status machine", async () => {
    const m = await merchantWithStore(ctx.app);
    const shirt = (
      await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body: flat({ title: "Shirt", price: "19.99", stock: 5 }),
      })
    ).data!.data;
    const mug = (
      await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body: flat({ title: "Mug", price: "7.25", stock: 1 }),
      })
    ).data!.data;
    const draft = (
      await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body: flat({ title: "Draft", price: "1", stock: 9, status: "draft" }),
      })
    ).data!.data;
    const customer = (
      await m.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: m.slug } },
        body: { email: "c@example.com", firstName: "C" },
      })
    ).data!.data;
    const before = (await outbox(ctx.platform, m.store.id)).length;

    const short = await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: m.slug } },
      body: {
        customerId: customer.id,
        lineItems: [{ productId: mug.id, quantity: 2 }],
      },
    });
    assert.equal(short.response.status, 409);
    const inactive = await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: m.slug } },
      body: {
        customerId: customer.id,
        lineItems: [{ productId: draft.id, quantity: 1 }],
      },
    });
    assert.equal(inactive.response.status, 400);
    assert.equal((await outbox(ctx.platform, m.store.id)).length, before, "failed orders write no event");

    const order = await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: m.slug } },
      body: {
        customerId: customer.id,
        lineItems: [
          { productId: shirt.id, quantity: 2 },
          { productId: mug.id, quantity: 1 },
        ],
        note: "gift wrap",
      },
    });
    assert.equal(order.response.status, 201);
    assert.equal(order.data!.data.status, "pending");
    assert.equal(order.data!.data.subtotal, "47.23");
    assert.equal(order.data!.data.total, "47.23");
    assert.equal(order.data!.data.number, 1001);
    assert.deepEqual(
      order.data!.data.lineItems.map((li: { title: string; unitPrice: string; total: string }) => [
        li.title,
        li.unitPrice,
        li.total,
      ]),
      [
        ["Shirt", "19.99", "39.98"],
        ["Mug", "7.25", "7.25"],
      ],
    );
    assert.equal(
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: m.slug, id: shirt.id } },
        })
      ).data!.data.totalAvailable,
      3,
    );
    const id = order.data!.data.id;
    const move = (
      status: RequestBody<"/api/v1/dashboard/stores/{slug}/orders/{id}/status", "post">["status"],
    ) =>
      m.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
        params: { path: { slug: m.slug, id } },
        body: { status },
      });

    const skip = await move("shipped");
    assert.equal(skip.response.status, 409);
    assert.deepEqual(detailsOf(skip).allowed, ["paid", "cancelled"]);
    assert.equal((await move("paid")).data!.data.status, "paid");
    assert.equal((await move("paid")).response.status, 409);
    assert.equal((await move("confirmed")).response.status, 200);
    const cancelled = await move("cancelled");
    assert.equal(cancelled.data!.data.status, "cancelled");
    assert.equal(
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: m.slug, id: shirt.id } },
        })
      ).data!.data.totalAvailable,
      5,
      "stock returned on cancel",
    );
    assert.equal((await move("pending")).response.status, 409);
    assert.equal((await move(offDocument("bogus"))).response.status, 400);

    const second = await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: m.slug } },
      body: {
        customerId: customer.id,
        lineItems: [{ productId: shirt.id, quantity: 1 }],
      },
    });
    assert.equal(second.data!.data.number, 1002);
    for (const status of ["paid", "confirmed", "shipped", "delivered"] as const) {
      const res = await m.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
        params: { path: { slug: m.slug, id: second.data!.data.id } },
        body: { status },
      });
      assert.equal(res.response.status, 200, status);
    }
    assert.equal(
      (
        await m.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
          params: { path: { slug: m.slug, id: second.data!.data.id } },
          body: { status: "cancelled" },
        })
      ).response.status,
      409,
    );

    const topics = (await outbox(ctx.platform, m.store.id)).slice(before).map((e) => e.topic);
    assert.deepEqual(topics, [
      "inventory_level.updated", // shirt: 2 committed
      "inventory_level.updated", // mug: 1 committed
      "product.updated", // shirt stock 5 -> 3
      "product.updated", // mug stock 1 -> 0
      "order.created",
      "order.paid",
      "order.confirmed",
      "inventory_level.updated", // shirt: committed back to available
      "inventory_level.updated", // mug
      "product.updated", // shirt restocked
      "product.updated", // mug restocked
      "order.cancelled",
      "inventory_level.updated",
      "product.updated",
      "order.created",
      "order.paid",
      "order.confirmed",
      "inventory_level.updated", // shipped: what was committed leaves the shelf
      "order.shipped",
      "order.delivered",
    ]);
    const list = await m.client.GET("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: m.slug }, query: { status: "delivered" } },
    });
    assert.deepEqual(
      list.data!.data.map((o: { id: string }) => o.id),
      [second.data!.data.id],
    );
  });

  it("validates order input: other store's customer, duplicate lines, empty lines", async () => {
    const m = await merchantWithStore(ctx.app);
    const other = await merchantWithStore(ctx.app);
    const foreign = (
      await other.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: other.slug } },
        body: { email: "f@example.com", firstName: "F" },
      })
    ).data!.data;
    const p = (
      await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body: flat({ title: "P", price: "1", stock: 10 }),
      })
    ).data!.data;
    const foreignCustomer = await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: m.slug } },
      body: {
        customerId: foreign.id,
        lineItems: [{ productId: p.id, quantity: 1 }],
      },
    });
    assert.equal(foreignCustomer.response.status, 400);
    assert.equal(fieldErrors(foreignCustomer)[0]!.field, "customerId");
    const mine = (
      await m.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: m.slug } },
        body: { email: "m@example.com", firstName: "M" },
      })
    ).data!.data;
    const dup = await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: m.slug } },
      body: {
        customerId: mine.id,
        lineItems: [
          { productId: p.id, quantity: 1 },
          { productId: p.id, quantity: 2 },
        ],
      },
    });
    assert.equal(dup.response.status, 400);
    assert.equal(
      (
        await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
          params: { path: { slug: m.slug } },
          body: { customerId: mine.id, lineItems: [] },
        })
      ).response.status,
      400,
    );
    assert.equal(
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", {
          params: { path: { slug: m.slug, id: "ord_doesnotexist" } },
        })
      ).response.status,
      400,
    );
    assert.equal(
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", {
          params: { path: { slug: m.slug, id: `ord_${"a".repeat(22)}` } },
        })
      ).response.status,
      404,
    );
  });

  it("writes no event for reads or rejected writes, and sells the last unit once under concurrency", async () => {
    const m = await merchantWithStore(ctx.app);
    const p = (
      await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body: flat({ title: "Last one", price: "5", stock: 1 }),
      })
    ).data!.data;
    const c = (
      await m.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: m.slug } },
        body: { email: "x@example.com", firstName: "X" },
      })
    ).data!.data;
    const before = (await outbox(ctx.platform, m.store.id)).length;
    await m.client.GET("/api/v1/dashboard/stores/{slug}/products", { params: { path: { slug: m.slug } } });
    await m.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { slug: m.slug, id: p.id } },
    });
    await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      // No price, an empty title: refused.
      body: offDocument({ title: "" }),
    });
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
          params: { path: { slug: m.slug } },
          body: {
            customerId: c.id,
            lineItems: [{ productId: p.id, quantity: 1 }],
          },
        }),
      ),
    );
    assert.deepEqual(results.map((r) => r.response.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409]);
    const topics = (await outbox(ctx.platform, m.store.id)).slice(before).map((e) => e.topic);
    assert.deepEqual(topics, ["inventory_level.updated", "product.updated", "order.created"]);
  });
});
