import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { flat, flatPatch } from "./catalogue.ts";
import {
  apiClient,
  createTestContext,
  type EventName,
  fieldErrors,
  type Json,
  merchantWithStore,
  offDocument,
  outboxOf,
  type RequestBody,
  type TestContext,
  text,
} from "./harness.ts";
import { openApiChecker } from "./openapi-assert.ts";

/**
 * The commerce core of issue 20, as a merchant uses it in the dashboard: store settings (and the
 * overview's "today" in the store's time zone), customers' addresses, orders with several lines
 * and a shipping address, fulfilment with tracking, notes and tags, and the account's name and
 * e-mail address. Happy, error and security paths; every response is checked against the served
 * document. Runs on PGlite, and on PostgreSQL with TEST_DATABASE_URL.
 */
type Checker = Awaited<ReturnType<typeof openApiChecker>>;
const HOUR = 3600_000;

/** An address as the dashboard sends it (a store's, a customer's, an order's shipping address). */
type AddressInput = NonNullable<RequestBody<"/api/v1/dashboard/stores/{slug}", "patch">["address"]>;

const RIYADH: AddressInput = {
  name: "Layla Haddad",
  line1: "King Fahd Road 12",
  line2: "Floor 3",
  city: "Riyadh",
  postalCode: "12271",
  country: "SA",
  phone: "+966 50 123 4567",
};
const BERLIN: AddressInput = {
  name: "Layla Haddad",
  line1: "Torstraße 1",
  city: "Berlin",
  postalCode: "10119",
  country: "DE",
};
/** An address as the API answers it: every part present, absent ones null. */
const full = (a: AddressInput) => ({
  company: null,
  line2: null,
  region: null,
  postalCode: null,
  phone: null,
  ...a,
});

describe("the commerce core, for the merchant", () => {
  let ctx: TestContext;
  let spec: Checker;
  before(async () => {
    ctx = await createTestContext({ SESSION_TTL_SECONDS: "31536000" }, { frozenClock: true });
    spec = await openApiChecker(ctx.app);
  });
  after(async () => ctx?.close());

  async function shop() {
    const m = await merchantWithStore(ctx.app);
    const client = spec.watch(m.client);
    const product = async (title: string, price: string, stock: number) => {
      const res = await client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body: flat({ title, price, stock }),
      });
      assert.equal(res.response.status, 201, text(res));
      return res.data!.data;
    };
    const events = <E extends EventName>(topic: E) => outboxOf(ctx.platform, topic, m.store.id);
    return { ...m, client, product, events };
  }

  it("store settings: read back by GET, shop.updated once per real change, bounded and checked", async () => {
    const s = await shop();
    const before = await s.client.GET("/api/v1/dashboard/stores/{slug}", {
      params: { path: { slug: s.slug } },
    });
    assert.equal(before.response.status, 200);
    assert.deepEqual(
      [
        before.data!.data.contactEmail,
        before.data!.data.address,
        before.data!.data.timeZone,
        before.data!.data.orderNumberPrefix,
      ],
      [null, null, "UTC", "#"],
    );
    const changed = await s.client.PATCH("/api/v1/dashboard/stores/{slug}", {
      params: { path: { slug: s.slug } },
      body: {
        name: "Haddad Linen",
        contactEmail: "hello@haddad.example",
        address: RIYADH,
        timeZone: "Asia/Riyadh",
        orderNumberPrefix: "HL-",
      },
    });
    assert.equal(changed.response.status, 200, text(changed));
    const read = (
      await s.client.GET("/api/v1/dashboard/stores/{slug}", { params: { path: { slug: s.slug } } })
    ).data!.data;
    assert.deepEqual(
      [read.name, read.contactEmail, read.address, read.timeZone, read.orderNumberPrefix],
      ["Haddad Linen", "hello@haddad.example", full(RIYADH), "Asia/Riyadh", "HL-"],
    );
    assert.equal((await s.client.GET("/api/v1/dashboard/stores")).data!.data[0]!.name, "Haddad Linen");
    const events = await s.events("shop.updated");
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]!.payload, read, "the event carries the store as the API returns it");

    // The same values again: nothing changes, nothing is sent.
    const same = await s.client.PATCH("/api/v1/dashboard/stores/{slug}", {
      params: { path: { slug: s.slug } },
      body: {
        timeZone: "Asia/Riyadh",
        address: RIYADH,
        name: "Haddad Linen",
      },
    });
    assert.equal(same.response.status, 200);
    assert.equal((await s.events("shop.updated")).length, 1, "a change to nothing emits nothing");
    // Clearing is a change.
    assert.equal(
      (
        await s.client.PATCH("/api/v1/dashboard/stores/{slug}", {
          params: { path: { slug: s.slug } },
          body: { contactEmail: null, address: null },
        })
      ).data!.data.address,
      null,
    );
    assert.equal((await s.events("shop.updated")).length, 2);

    // Bodies the document refuses, sent on purpose: untyped.
    const refused = async (body: Json, field: string) => {
      const res = await s.client.PATCH("/api/v1/dashboard/stores/{slug}", {
        params: { path: { slug: s.slug } },
        body,
      });
      assert.equal(res.response.status, 400, `${JSON.stringify(body)}: ${text(res)}`);
      assert.equal(res.error!.error.code, "VALIDATION_FAILED");
      assert.ok(
        fieldErrors(res).some((d) => d.field.startsWith(field)),
        `${field} named: ${JSON.stringify(fieldErrors(res))}`,
      );
    };
    await refused({}, "body");
    await refused({ currency: "XYZ" }, "currency");
    await refused({ currency: "usd" }, "currency");
    await refused({ timeZone: "Mars/Olympus" }, "timeZone");
    await refused({ orderNumberPrefix: "a very long prefix" }, "orderNumberPrefix");
    await refused({ orderNumberPrefix: "<b>" }, "orderNumberPrefix");
    await refused({ address: { ...RIYADH, country: "ZZ" } }, "address.country");
    await refused({ address: { ...RIYADH, line1: "" } }, "address.line1");
    await refused({ address: { ...RIYADH, city: undefined } }, "address.city");
    await refused({ address: { ...RIYADH, line1: " padded" } }, "address.line1");
    await refused({ address: { ...RIYADH, extra: "x" } }, "address.extra");
    await refused({ contactEmail: "not an address" }, "contactEmail");
    await refused({ name: "x".repeat(101) }, "name");
    await refused({ slug: "renamed" }, "slug");
    assert.equal((await s.events("shop.updated")).length, 2, "refusals change nothing");

    // Another merchant's store is not found, for reading and for changing; signed out is 401.
    const other = await merchantWithStore(ctx.app);
    assert.equal(
      (
        await other.client.PATCH("/api/v1/dashboard/stores/{slug}", {
          params: { path: { slug: s.slug } },
          body: { name: "Mine" },
        })
      ).response.status,
      404,
    );
    assert.equal(
      (await other.client.GET("/api/v1/dashboard/stores/{slug}", { params: { path: { slug: s.slug } } }))
        .response.status,
      404,
    );
    assert.equal(
      (
        await apiClient(ctx.app).PATCH("/api/v1/dashboard/stores/{slug}", {
          params: { path: { slug: s.slug } },
          body: { name: "Mine" },
        })
      ).response.status,
      401,
    );
    assert.equal(
      (await s.client.GET("/api/v1/dashboard/stores/{slug}", { params: { path: { slug: s.slug } } })).data!
        .data.name,
      "Haddad Linen",
    );
  });

  it("currency: changes while the store has no orders, prices keeping their amounts; never after the first order", async () => {
    const s = await shop();
    const shirt = await s.product("Shirt", "19.90", 10);
    const mug = await s.product("Mug", "12", 10);
    const toEur = await s.client.PATCH("/api/v1/dashboard/stores/{slug}", {
      params: { path: { slug: s.slug } },
      body: { currency: "EUR" },
    });
    assert.equal(toEur.response.status, 200);
    const eur = (
      await s.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
        params: { path: { slug: s.slug, id: shirt.id } },
      })
    ).data!.data;
    assert.deepEqual([eur.variants[0]!.price, eur.currency], ["19.90", "EUR"]);

    // JPY has no decimals: 19.90 cannot be written in it, so nothing changes.
    const toJpy = await s.client.PATCH("/api/v1/dashboard/stores/{slug}", {
      params: { path: { slug: s.slug } },
      body: { currency: "JPY" },
    });
    assert.equal(toJpy.response.status, 409, text(toJpy));
    assert.equal(fieldErrors(toJpy)[0]!.field, "currency");
    assert.match(toJpy.error!.error.message, /1 product price/);
    assert.equal(
      (await s.client.GET("/api/v1/dashboard/stores/{slug}", { params: { path: { slug: s.slug } } })).data!
        .data.currency,
      "EUR",
    );
    await s.client.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { slug: s.slug, id: shirt.id } },
      body: flatPatch({ price: "20" }),
    });
    assert.equal(
      (
        await s.client.PATCH("/api/v1/dashboard/stores/{slug}", {
          params: { path: { slug: s.slug } },
          body: { currency: "JPY" },
        })
      ).response.status,
      200,
    );
    assert.deepEqual(
      [
        (
          await s.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
            params: { path: { slug: s.slug, id: mug.id } },
          })
        ).data!.data.variants[0]!.price,
        "JPY",
      ],
      ["12", "JPY"],
    );
    // A price now reads in the new currency's decimals: 12.5 is refused in JPY.
    const cents = await s.client.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { slug: s.slug, id: mug.id } },
      body: flatPatch({ price: "12.5" }),
    });
    assert.equal(cents.response.status, 400);
    // And to three decimals.
    assert.equal(
      (
        await s.client.PATCH("/api/v1/dashboard/stores/{slug}", {
          params: { path: { slug: s.slug } },
          body: { currency: "KWD" },
        })
      ).response.status,
      200,
    );
    assert.equal(
      (
        await s.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: s.slug, id: mug.id } },
        })
      ).data!.data.variants[0]!.price,
      "12.000",
    );

    const customer = await s.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: s.slug } },
      body: { email: "c@example.com", firstName: "C" },
    });
    const order = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: s.slug } },
      body: {
        customerId: customer.data!.data.id,
        lineItems: [{ productId: mug.id, quantity: 1 }],
      },
    });
    assert.deepEqual([order.data!.data.currency, order.data!.data.total], ["KWD", "12.000"]);
    const late = await s.client.PATCH("/api/v1/dashboard/stores/{slug}", {
      params: { path: { slug: s.slug } },
      body: { currency: "USD" },
    });
    assert.equal(late.response.status, 409);
    assert.match(late.error!.error.message, /orders/);
    // Other settings still change.
    assert.equal(
      (
        await s.client.PATCH("/api/v1/dashboard/stores/{slug}", {
          params: { path: { slug: s.slug } },
          body: { currency: "KWD", name: "Still fine" },
        })
      ).response.status,
      200,
    );
  });

  it("currency: a change racing the first order either happens before it (the order is in the new currency) or is refused", async () => {
    for (let round = 0; round < 5; round++) {
      const s = await shop();
      const p = await s.product("Tea", "4.50", 10);
      const c = (
        await s.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
          params: { path: { slug: s.slug } },
          body: { email: "r@example.com", firstName: "R" },
        })
      ).data!.data;
      const [change, order] = await Promise.all([
        s.client.PATCH("/api/v1/dashboard/stores/{slug}", {
          params: { path: { slug: s.slug } },
          body: { currency: "EUR" },
        }),
        s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
          params: { path: { slug: s.slug } },
          body: {
            customerId: c.id,
            lineItems: [{ productId: p.id, quantity: 1 }],
          },
        }),
      ]);
      assert.equal(order.response.status, 201, text(order));
      if (change.response.status === 200)
        assert.equal(order.data!.data.currency, "EUR", "placed after the change");
      else {
        assert.equal(change.response.status, 409, text(change));
        assert.equal(order.data!.data.currency, "USD", "placed before the change, which was then refused");
      }
      assert.equal(
        (await s.client.GET("/api/v1/dashboard/stores/{slug}", { params: { path: { slug: s.slug } } })).data!
          .data.currency,
        order.data!.data.currency,
      );
      assert.equal(order.data!.data.total, "4.50");
    }
  });

  it("order number prefix: new orders are named with it, earlier ones keep theirs; search finds either", async () => {
    const s = await shop();
    const p = await s.product("Cap", "5.00", 10);
    const c = (
      await s.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: s.slug } },
        body: { email: "p@example.com", firstName: "P" },
      })
    ).data!.data;
    const order = async () =>
      (
        await s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
          params: { path: { slug: s.slug } },
          body: {
            customerId: c.id,
            lineItems: [{ productId: p.id, quantity: 1 }],
          },
        })
      ).data!.data;
    const first = await order();
    assert.equal(first.name, "#1001");
    await s.client.PATCH("/api/v1/dashboard/stores/{slug}", {
      params: { path: { slug: s.slug } },
      body: { orderNumberPrefix: "SO-" },
    });
    const second = await order();
    assert.deepEqual([second.number, second.name], [1002, "SO-1002"]);
    assert.equal(
      (
        await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", {
          params: { path: { slug: s.slug, id: first.id } },
        })
      ).data!.data.name,
      "#1001",
    );
    for (const q of ["SO-1002", "so-1002", "1002", "#1002"])
      assert.deepEqual(
        (
          await s.client.GET("/api/v1/dashboard/stores/{slug}/orders", {
            params: { path: { slug: s.slug }, query: { q: q } },
          })
        ).data!.data.map((o) => o.id),
        [second.id],
        q,
      );
    await s.client.PATCH("/api/v1/dashboard/stores/{slug}", {
      params: { path: { slug: s.slug } },
      body: { orderNumberPrefix: "" },
    });
    assert.equal((await order()).name, "1003");
  });

  it("the overview's today follows the store's time zone", async () => {
    const s = await shop();
    const p = await s.product("Tea", "10.00", 100);
    const c = (
      await s.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: s.slug } },
        body: { email: "t@example.com", firstName: "T" },
      })
    ).data!.data;
    // Move the clock to 22:30 UTC: already tomorrow in Riyadh (UTC+3), still today in UTC.
    const now = ctx.clock.now();
    const todayAt2230 = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 22, 30);
    const target = todayAt2230 < now.getTime() ? todayAt2230 + 24 * HOUR : todayAt2230;
    ctx.clock.advance(target - now.getTime());
    // Placed at 20:30 UTC (23:30 in Riyadh), the day before in Riyadh terms of the next order.
    ctx.clock.advance(-2 * HOUR);
    await s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: s.slug } },
      body: {
        customerId: c.id,
        lineItems: [{ productId: p.id, quantity: 1 }],
      },
    });
    ctx.clock.advance(2 * HOUR);
    const utc = (
      await s.client.GET("/api/v1/dashboard/stores/{slug}/overview", { params: { path: { slug: s.slug } } })
    ).data!.data;
    assert.equal(utc.timeZone, "UTC");
    assert.equal(utc.sales.today.orders, 1, "20:30 UTC is today in UTC");
    await s.client.PATCH("/api/v1/dashboard/stores/{slug}", {
      params: { path: { slug: s.slug } },
      body: { timeZone: "Asia/Riyadh" },
    });
    const riyadh = (
      await s.client.GET("/api/v1/dashboard/stores/{slug}/overview", { params: { path: { slug: s.slug } } })
    ).data!.data;
    assert.equal(riyadh.timeZone, "Asia/Riyadh");
    assert.equal(riyadh.sales.today.orders, 0, "23:30 in Riyadh was yesterday there (it is 01:30)");
    assert.equal(riyadh.sales.today.since, new Date(target - 1.5 * HOUR).toISOString());
    // A zone asked for explicitly still wins.
    assert.equal(
      (
        await s.client.GET("/api/v1/dashboard/stores/{slug}/overview", {
          params: { path: { slug: s.slug }, query: { timeZone: "UTC" } },
        })
      ).data!.data.sales.today.orders,
      1,
    );
  });

  it("customers have addresses (the first is the default shipping address); changes emit customer.updated, no-ops nothing", async () => {
    const s = await shop();
    const created = await s.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: s.slug } },
      body: {
        email: "layla@example.com",
        firstName: "Layla",
        lastName: "Haddad",
        addresses: [RIYADH, BERLIN],
        note: "Prefers evenings",
        tags: ["vip", "wholesale"],
      },
    });
    assert.equal(created.response.status, 201, text(created));
    assert.deepEqual(created.data!.data.addresses, [full(RIYADH), full(BERLIN)]);
    assert.deepEqual(created.data!.data.defaultAddress, full(RIYADH));
    assert.deepEqual(
      [created.data!.data.note, created.data!.data.tags],
      ["Prefers evenings", ["vip", "wholesale"]],
    );
    assert.equal(created.data!.data.metadata, undefined, "the dashboard sees no app's pairs inline");
    const id = created.data!.data.id;

    const reordered = await s.client.PATCH("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: s.slug, id } },
      body: { addresses: [BERLIN, RIYADH] },
    });
    assert.deepEqual(reordered.data!.data.defaultAddress, full(BERLIN), "the first is the default");
    assert.equal((await s.events("customer.updated")).length, 1);
    const noop = await s.client.PATCH("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: s.slug, id } },
      body: {
        addresses: [BERLIN, RIYADH],
        tags: ["vip", "wholesale"],
        firstName: "Layla",
      },
    });
    assert.equal(noop.response.status, 200);
    assert.equal(
      (await s.events("customer.updated")).length,
      1,
      "an update that changes nothing emits nothing",
    );
    await s.client.PATCH("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: s.slug, id } },
      body: { tags: ["vip"], note: "" },
    });
    const updates = await s.events("customer.updated");
    assert.equal(updates.length, 2);
    assert.deepEqual(updates[1]!.payload.tags, ["vip"]);

    // Bodies the document refuses, sent on purpose: untyped.
    const bad = async (body: Json, field: string) => {
      const res = await s.client.PATCH("/api/v1/dashboard/stores/{slug}/customers/{id}", {
        params: { path: { slug: s.slug, id } },
        body,
      });
      assert.equal(res.response.status, 400, JSON.stringify(body));
      assert.ok(JSON.stringify(fieldErrors(res)).includes(field), JSON.stringify(fieldErrors(res)));
    };
    await bad({ addresses: Array.from({ length: 11 }, () => RIYADH) }, "addresses");
    await bad({ addresses: [{ ...RIYADH, country: "Saudi Arabia" }] }, "addresses.0.country");
    await bad({ tags: ["a,b"] }, "tags.0");
    await bad({ tags: ["same", "same"] }, "tags");
    await bad({ tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, "tags");
    await bad({ note: "n".repeat(2001) }, "note");
    await bad({ metadata: { erpId: "1" } }, "metadata");

    // Anonymising erases the addresses and the note too, and tells apps.
    const p = await s.product("Cap", "5.00", 3);
    await s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: s.slug } },
      body: {
        customerId: id,
        lineItems: [{ productId: p.id, quantity: 1 }],
      },
    });
    await s.client.PATCH("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: s.slug, id } },
      body: { note: "Call first" },
    });
    await s.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: s.slug, id } },
    });
    const erased = (
      await s.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}", {
        params: { path: { slug: s.slug, id } },
      })
    ).data!.data;
    assert.deepEqual([erased.addresses, erased.defaultAddress, erased.note], [[], null, ""]);
    assert.ok((await s.events("customer.updated")).at(-1)!.payload.anonymizedAt);
  });

  it("orders with several lines: stock and totals from the server, a shipping address copied, given or none, note and tags", async () => {
    const s = await shop();
    const shirt = await s.product("Linen shirt", "39.00", 10);
    const mug = await s.product("Mug", "12.50", 5);
    const tote = await s.product("Tote", "18.00", 2);
    const layla = (
      await s.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: s.slug } },
        body: {
          email: "l@example.com",
          firstName: "Layla",
          addresses: [RIYADH],
        },
      })
    ).data!.data;
    const omar = (
      await s.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: s.slug } },
        body: { email: "o@example.com", firstName: "Omar" },
      })
    ).data!.data;

    const placed = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: s.slug } },
      body: {
        customerId: layla.id,
        lineItems: [
          { productId: shirt.id, quantity: 2 },
          { productId: mug.id, quantity: 3 },
          { productId: tote.id, quantity: 1 },
        ],
        note: "Gift wrap",
        tags: ["gift"],
      },
    });
    assert.equal(placed.response.status, 201, text(placed));
    const o = placed.data!.data;
    assert.deepEqual(
      o.lineItems.map((li) => [li.title, li.quantity, li.unitPrice, li.total]),
      [
        ["Linen shirt", 2, "39.00", "78.00"],
        ["Mug", 3, "12.50", "37.50"],
        ["Tote", 1, "18.00", "18.00"],
      ],
    );
    assert.deepEqual([o.subtotal, o.total, o.note, o.tags], ["133.50", "133.50", "Gift wrap", ["gift"]]);
    assert.deepEqual(o.shippingAddress, full(RIYADH), "copied from the customer's default address");
    assert.equal(o.fulfillment, null);
    assert.deepEqual(
      await Promise.all(
        [shirt, mug, tote].map(
          async (p) =>
            (
              await s.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
                params: { path: { slug: s.slug, id: p.id } },
              })
            ).data!.data.totalAvailable,
        ),
      ),
      [8, 2, 1],
    );
    const created = (await s.events("order.created")).at(-1)!.payload;
    assert.deepEqual(created.shippingAddress, full(RIYADH), "order.* payloads carry the shipping address");

    const given = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: s.slug } },
      body: {
        customerId: layla.id,
        lineItems: [{ productId: shirt.id, quantity: 1 }],
        shippingAddress: BERLIN,
      },
    });
    assert.deepEqual(given.data!.data.shippingAddress, full(BERLIN));
    const none = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: s.slug } },
      body: {
        customerId: layla.id,
        lineItems: [{ productId: shirt.id, quantity: 1 }],
        shippingAddress: null,
      },
    });
    assert.equal(none.data!.data.shippingAddress, null);
    const noAddress = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: s.slug } },
      body: {
        customerId: omar.id,
        lineItems: [{ productId: shirt.id, quantity: 1 }],
      },
    });
    assert.equal(noAddress.data!.data.shippingAddress, null, "a customer without addresses gives none");

    // Short stock on one line refuses the whole order and takes nothing.
    const short = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: s.slug } },
      body: {
        customerId: layla.id,
        lineItems: [
          { productId: shirt.id, quantity: 1 },
          { productId: tote.id, quantity: 5 },
        ],
      },
    });
    assert.equal(short.response.status, 409);
    assert.equal(fieldErrors(short)[0]!.field, "lineItems.1.quantity");
    assert.equal(
      (
        await s.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: s.slug, id: shirt.id } },
        })
      ).data!.data.totalAvailable,
      5,
    );
    const twice = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: s.slug } },
      body: {
        customerId: layla.id,
        lineItems: [
          { productId: mug.id, quantity: 1 },
          { productId: mug.id, quantity: 1 },
        ],
      },
    });
    assert.equal(twice.response.status, 400);
    const badAddress = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: s.slug } },
      body: {
        customerId: layla.id,
        lineItems: [{ productId: mug.id, quantity: 1 }],
        // Not a country code: refused.
        shippingAddress: offDocument({ ...BERLIN, country: "XX" }),
      },
    });
    assert.equal(badAddress.response.status, 400);
    // The dashboard names customers by id; an inline customer is the Admin API's.
    const inline = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: s.slug } },
      // The Admin API's body, which the dashboard's document does not have.
      body: offDocument({
        customer: { email: "n@example.com", firstName: "N" },
        lineItems: [{ productId: mug.id, quantity: 1 }],
      }),
    });
    assert.equal(inline.response.status, 400);

    // Note, tags and the address change; order.updated once per real change.
    const edited = await s.client.PATCH("/api/v1/dashboard/stores/{slug}/orders/{id}", {
      params: { path: { slug: s.slug, id: o.id } },
      body: { note: "Gift wrap, blue paper", tags: ["gift", "priority"] },
    });
    assert.equal(edited.response.status, 200, text(edited));
    assert.deepEqual(
      [edited.data!.data.note, edited.data!.data.tags],
      ["Gift wrap, blue paper", ["gift", "priority"]],
    );
    assert.equal(
      (
        await s.client.PATCH("/api/v1/dashboard/stores/{slug}/orders/{id}", {
          params: { path: { slug: s.slug, id: o.id } },
          body: { note: "Gift wrap, blue paper" },
        })
      ).response.status,
      200,
    );
    assert.equal((await s.events("order.updated")).length, 1, "a no-op emits nothing");
    assert.deepEqual(
      (
        await s.client.PATCH("/api/v1/dashboard/stores/{slug}/orders/{id}", {
          params: { path: { slug: s.slug, id: o.id } },
          body: { shippingAddress: BERLIN },
        })
      ).data!.data.shippingAddress,
      full(BERLIN),
    );
    assert.equal((await s.events("order.updated")).length, 2);
    assert.equal(
      (
        await s.client.PATCH("/api/v1/dashboard/stores/{slug}/orders/{id}", {
          params: { path: { slug: s.slug, id: o.id } },
          body: {},
        })
      ).response.status,
      400,
    );
    const other = await merchantWithStore(ctx.app);
    assert.equal(
      (
        await other.client.PATCH("/api/v1/dashboard/stores/{slug}/orders/{id}", {
          params: { path: { slug: other.slug, id: o.id } },
          body: { note: "x" },
        })
      ).response.status,
      404,
    );
  });

  it("fulfilment: shipped takes the carrier, tracking number and URL, shown on the order and carried by order.shipped; the timeline names the merchant", async () => {
    const s = await shop();
    const p = await s.product("Lamp", "45.00", 5);
    const c = (
      await s.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: s.slug } },
        body: {
          email: "f@example.com",
          firstName: "F",
          addresses: [BERLIN],
        },
      })
    ).data!.data;
    const o = (
      await s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: s.slug } },
        body: {
          customerId: c.id,
          lineItems: [{ productId: p.id, quantity: 1 }],
        },
      })
    ).data!.data;
    const move = (body: RequestBody<"/api/v1/dashboard/stores/{slug}/orders/{id}/status", "post">) =>
      s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
        params: { path: { slug: s.slug, id: o.id } },
        body,
      });
    const tracking = {
      carrier: "DHL Express",
      trackingNumber: "1Z999AA10123456784",
      trackingUrl: "https://www.dhl.com/track?id=1Z999AA10123456784",
    };
    const early = await move({ status: "paid", fulfillment: tracking });
    assert.equal(early.response.status, 400, "fulfilment goes with shipped only");
    assert.equal(fieldErrors(early)[0]!.field, "fulfillment");
    assert.equal((await move({ status: "paid" })).response.status, 200);
    assert.equal((await move({ status: "confirmed" })).response.status, 200);
    for (const bad of [
      { ...tracking, trackingUrl: "javascript:alert(1)" },
      { ...tracking, trackingUrl: "ftp://example.com/x" },
      { ...tracking, trackingNumber: "" },
      { ...tracking, carrier: "c".repeat(101) },
      { ...tracking, signedBy: "x" },
    ]) {
      const res = await move({ status: "shipped", fulfillment: bad });
      assert.equal(res.response.status, 400, JSON.stringify(bad));
    }
    const shipped = await move({ status: "shipped", fulfillment: tracking });
    assert.equal(shipped.response.status, 200, text(shipped));
    assert.deepEqual(shipped.data!.data.fulfillment, {
      ...tracking,
      shippedAt: ctx.clock.now().toISOString(),
    });
    assert.deepEqual(
      (
        await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", {
          params: { path: { slug: s.slug, id: o.id } },
        })
      ).data!.data.fulfillment,
      shipped.data!.data.fulfillment,
    );
    const event = (await s.events("order.shipped"))[0]!.payload;
    assert.deepEqual(event.fulfillment, shipped.data!.data.fulfillment);
    const history = (
      await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/history", {
        params: { path: { slug: s.slug, id: o.id } },
      })
    ).data!.data;
    assert.deepEqual(history.at(-1)!.actor, { kind: "account", name: "Test Merchant" });
    // Once shipped, where it ships is settled; the note still changes.
    assert.equal(
      (
        await s.client.PATCH("/api/v1/dashboard/stores/{slug}/orders/{id}", {
          params: { path: { slug: s.slug, id: o.id } },
          body: { shippingAddress: RIYADH },
        })
      ).response.status,
      409,
    );
    assert.equal(
      (
        await s.client.PATCH("/api/v1/dashboard/stores/{slug}/orders/{id}", {
          params: { path: { slug: s.slug, id: o.id } },
          body: { note: "Left at reception" },
        })
      ).response.status,
      200,
    );

    // Shipped without details is still a fulfilment (when), each detail null.
    const bare = (
      await s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: s.slug } },
        body: {
          customerId: c.id,
          lineItems: [{ productId: p.id, quantity: 1 }],
        },
      })
    ).data!.data;
    for (const status of ["paid", "confirmed"] as const)
      await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
        params: { path: { slug: s.slug, id: bare.id } },
        body: { status },
      });
    const plain = await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
      params: { path: { slug: s.slug, id: bare.id } },
      body: { status: "shipped" },
    });
    assert.deepEqual(plain.data!.data.fulfillment, {
      carrier: null,
      trackingNumber: null,
      trackingUrl: null,
      shippedAt: ctx.clock.now().toISOString(),
    });
  });

  it("fulfil: a paid order confirmed and shipped in one action, each step in its history and sent as its event; 409 from any other status", async () => {
    const s = await shop();
    const p = await s.product("Lamp", "45.00", 5);
    const c = (
      await s.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: s.slug } },
        body: { email: "fulfil@example.com", firstName: "F" },
      })
    ).data!.data;
    const place = async () =>
      (
        await s.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
          params: { path: { slug: s.slug } },
          body: { customerId: c.id, lineItems: [{ productId: p.id, quantity: 2 }] },
        })
      ).data!.data;
    const fulfil = (
      id: string,
      body: RequestBody<"/api/v1/dashboard/stores/{slug}/orders/{id}/fulfill", "post">,
    ) =>
      s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/fulfill", {
        params: { path: { slug: s.slug, id } },
        body,
      });
    const o = await place();
    const unpaid = await fulfil(o.id, {});
    assert.equal(unpaid.response.status, 409, "a pending order is paid first");
    await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
      params: { path: { slug: s.slug, id: o.id } },
      body: { status: "paid" },
    });
    const done = await fulfil(o.id, { fulfillment: { carrier: "DHL Express", trackingNumber: "1Z9" } });
    assert.equal(done.response.status, 200, text(done));
    assert.equal(done.data!.data.status, "shipped");
    assert.deepEqual(done.data!.data.fulfillment, {
      carrier: "DHL Express",
      trackingNumber: "1Z9",
      trackingUrl: null,
      shippedAt: ctx.clock.now().toISOString(),
    });
    const history = (
      await s.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/history", {
        params: { path: { slug: s.slug, id: o.id } },
      })
    ).data!.data;
    assert.deepEqual(
      history.map((h) => h.status),
      ["pending", "paid", "confirmed", "shipped"],
    );
    assert.deepEqual(
      [(await s.events("order.confirmed")).length, (await s.events("order.shipped")).length],
      [1, 1],
    );
    // The stock left with it: nothing committed, 3 of 5 available.
    const level = (
      await s.client.GET("/api/v1/dashboard/stores/{slug}/inventory-levels", {
        params: { path: { slug: s.slug }, query: { variantId: p.variants[0]!.id } },
      })
    ).data!.data[0]!;
    assert.deepEqual([level.available, level.committed], [3, 0]);
    assert.equal((await fulfil(o.id, {})).response.status, 409, "shipped already");
    // A confirmed order is shipped by it too (one step).
    const o2 = await place();
    for (const status of ["paid", "confirmed"] as const)
      await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
        params: { path: { slug: s.slug, id: o2.id } },
        body: { status },
      });
    const second = await fulfil(o2.id, {});
    assert.equal(second.data!.data.status, "shipped");
    assert.equal(second.data!.data.fulfillment!.carrier, null);
  });

  it("account: the name changes freely; a new e-mail address needs the password, and must be free", async () => {
    const m = await merchantWithStore(ctx.app);
    const me = spec.watch(m.client);
    const renamed = await me.PATCH("/api/v1/dashboard/account", { body: { name: "Sara Haddad" } });
    assert.equal(renamed.response.status, 200, text(renamed));
    assert.equal((await me.GET("/api/v1/dashboard/me")).data!.data.name, "Sara Haddad");

    const newEmail = `new-${m.email}`;
    const without = await me.PATCH("/api/v1/dashboard/account", { body: { email: newEmail } });
    assert.equal(without.response.status, 400);
    assert.equal(fieldErrors(without)[0]!.field, "currentPassword");
    const wrong = await me.PATCH("/api/v1/dashboard/account", {
      body: {
        email: newEmail,
        currentPassword: "not it at all",
      },
    });
    assert.equal(wrong.response.status, 400);
    assert.equal(fieldErrors(wrong)[0]!.field, "currentPassword");
    const taken = await merchantWithStore(ctx.app);
    const clash = await me.PATCH("/api/v1/dashboard/account", {
      body: {
        email: taken.email.toUpperCase(),
        currentPassword: m.password,
      },
    });
    assert.equal(clash.response.status, 409);
    const moved = await me.PATCH("/api/v1/dashboard/account", {
      body: {
        email: newEmail,
        currentPassword: m.password,
      },
    });
    assert.equal(moved.response.status, 200, text(moved));
    // The address changes once the link e-mailed to it is opened (test/account-mail.test.ts).
    assert.equal(moved.data!.data.email, m.email);
    assert.equal(moved.data!.data.pendingEmail?.email, newEmail);
    const sent = await ctx.platform.db
      .selectFrom("mail_messages")
      .select("text_body")
      .where("to_address", "=", newEmail)
      .executeTakeFirstOrThrow();
    const token = /#token=([A-Za-z0-9_.]+)/.exec(sent.text_body)![1]!;
    const confirmed = await apiClient(ctx.app).POST("/api/v1/dashboard/auth/email-change/confirm", {
      body: { token },
    });
    assert.equal(confirmed.data!.data.email, newEmail, text(confirmed));
    assert.equal((await me.GET("/api/v1/dashboard/me")).response.status, 200, "the session stays");
    const login = (email: string) =>
      apiClient(ctx.app).POST("/api/v1/dashboard/auth/login", { body: { email, password: m.password } });
    assert.equal((await login(newEmail)).response.status, 200);
    assert.equal((await login(m.email)).response.status, 401);
    // The same address again needs no password: nothing changes.
    assert.equal(
      (await me.PATCH("/api/v1/dashboard/account", { body: { email: newEmail } })).response.status,
      200,
    );
    assert.equal((await me.PATCH("/api/v1/dashboard/account", { body: {} })).response.status, 400);
    assert.equal((await me.PATCH("/api/v1/dashboard/account", { body: { name: " " } })).response.status, 400);
    assert.equal(
      (await apiClient(ctx.app).PATCH("/api/v1/dashboard/account", { body: { name: "X" } })).response.status,
      401,
    );
  });
});
