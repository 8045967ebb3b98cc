import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestContext, outbox, type TestContext } from "./harness.ts";
import { Client, type Json, merchantWithStore } from "./legacy-client.ts";
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

const RIYADH = {
  name: "Layla Haddad",
  line1: "King Fahd Road 12",
  line2: "Floor 3",
  city: "Riyadh",
  postalCode: "12271",
  country: "SA",
  phone: "+966 50 123 4567",
};
const BERLIN = {
  name: "Layla Haddad",
  line1: "Torstraße 1",
  city: "Berlin",
  postalCode: "10119",
  country: "DE",
};
/** An address as the API answers it: every part present, absent ones null. */
const full = (a: Json) => ({
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
      const res = await client.post(`${m.base}/products`, { title, price, stock });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.data as Json;
    };
    const events = async (topic?: string) =>
      (await outbox(ctx.platform, m.store.id)).filter((e) => !topic || e.topic === topic);
    return { ...m, client, product, events };
  }

  it("store settings: read back by GET, shop.updated once per real change, bounded and checked", async () => {
    const s = await shop();
    const before = await s.client.get(s.base);
    assert.equal(before.status, 200);
    assert.deepEqual(
      [before.data.contactEmail, before.data.address, before.data.timeZone, before.data.orderNumberPrefix],
      [null, null, "UTC", "#"],
    );
    const changed = await s.client.patch(s.base, {
      name: "Haddad Linen",
      contactEmail: "hello@haddad.example",
      address: RIYADH,
      timeZone: "Asia/Riyadh",
      orderNumberPrefix: "HL-",
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const read = (await s.client.get(s.base)).data as Json;
    assert.deepEqual(
      [read.name, read.contactEmail, read.address, read.timeZone, read.orderNumberPrefix],
      ["Haddad Linen", "hello@haddad.example", full(RIYADH), "Asia/Riyadh", "HL-"],
    );
    assert.equal((await s.client.get("/api/v1/dashboard/stores")).data[0].name, "Haddad Linen");
    const events = await s.events("shop.updated");
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]!.payload, read, "the event carries the store as the API returns it");

    // The same values again: nothing changes, nothing is sent.
    const same = await s.client.patch(s.base, {
      timeZone: "Asia/Riyadh",
      address: RIYADH,
      name: "Haddad Linen",
    });
    assert.equal(same.status, 200);
    assert.equal((await s.events("shop.updated")).length, 1, "a change to nothing emits nothing");
    // Clearing is a change.
    assert.equal((await s.client.patch(s.base, { contactEmail: null, address: null })).data.address, null);
    assert.equal((await s.events("shop.updated")).length, 2);

    const refused = async (body: Json, field: string) => {
      const res = await s.client.patch(s.base, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, "VALIDATION_FAILED");
      assert.ok(
        (res.body.error.details as Json[]).some((d) => d.field.startsWith(field)),
        `${field} named: ${JSON.stringify(res.body.error.details)}`,
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
    assert.equal((await other.client.patch(s.base, { name: "Mine" })).status, 404);
    assert.equal((await other.client.get(s.base)).status, 404);
    assert.equal((await new Client(ctx.app).patch(s.base, { name: "Mine" })).status, 401);
    assert.equal((await s.client.get(s.base)).data.name, "Haddad Linen");
  });

  it("currency: changes while the store has no orders, prices keeping their amounts; never after the first order", async () => {
    const s = await shop();
    const shirt = await s.product("Shirt", "19.90", 10);
    const mug = await s.product("Mug", "12", 10);
    const toEur = await s.client.patch(s.base, { currency: "EUR" });
    assert.equal(toEur.status, 200);
    const eur = (await s.client.get(`${s.base}/products/${shirt.id}`)).data as Json;
    assert.deepEqual([eur.price, eur.currency], ["19.90", "EUR"]);

    // JPY has no decimals: 19.90 cannot be written in it, so nothing changes.
    const toJpy = await s.client.patch(s.base, { currency: "JPY" });
    assert.equal(toJpy.status, 409, JSON.stringify(toJpy.body));
    assert.equal(toJpy.body.error.details[0].field, "currency");
    assert.match(toJpy.body.error.message, /1 product price/);
    assert.equal((await s.client.get(s.base)).data.currency, "EUR");
    await s.client.patch(`${s.base}/products/${shirt.id}`, { price: "20" });
    assert.equal((await s.client.patch(s.base, { currency: "JPY" })).status, 200);
    assert.deepEqual([(await s.client.get(`${s.base}/products/${mug.id}`)).data.price, "JPY"], ["12", "JPY"]);
    // A price now reads in the new currency's decimals: 12.5 is refused in JPY.
    const cents = await s.client.patch(`${s.base}/products/${mug.id}`, { price: "12.5" });
    assert.equal(cents.status, 400);
    // And to three decimals.
    assert.equal((await s.client.patch(s.base, { currency: "KWD" })).status, 200);
    assert.equal((await s.client.get(`${s.base}/products/${mug.id}`)).data.price, "12.000");

    const customer = await s.client.post(`${s.base}/customers`, { email: "c@example.com", firstName: "C" });
    const order = await s.client.post(`${s.base}/orders`, {
      customerId: customer.data.id,
      lineItems: [{ productId: mug.id, quantity: 1 }],
    });
    assert.deepEqual([order.data.currency, order.data.total], ["KWD", "12.000"]);
    const late = await s.client.patch(s.base, { currency: "USD" });
    assert.equal(late.status, 409);
    assert.match(late.body.error.message, /orders/);
    // Other settings still change.
    assert.equal((await s.client.patch(s.base, { currency: "KWD", name: "Still fine" })).status, 200);
  });

  it("currency: a change racing the first order either happens before it (the order is in the new currency) or is refused", async () => {
    for (let round = 0; round < 5; round++) {
      const s = await shop();
      const p = await s.product("Tea", "4.50", 10);
      const c = (await s.client.post(`${s.base}/customers`, { email: "r@example.com", firstName: "R" })).data;
      const [change, order] = await Promise.all([
        s.client.patch(s.base, { currency: "EUR" }),
        s.client.post(`${s.base}/orders`, {
          customerId: c.id,
          lineItems: [{ productId: p.id, quantity: 1 }],
        }),
      ]);
      assert.equal(order.status, 201, JSON.stringify(order.body));
      if (change.status === 200) assert.equal(order.data.currency, "EUR", "placed after the change");
      else {
        assert.equal(change.status, 409, JSON.stringify(change.body));
        assert.equal(order.data.currency, "USD", "placed before the change, which was then refused");
      }
      assert.equal((await s.client.get(s.base)).data.currency, order.data.currency);
      assert.equal(order.data.total, "4.50");
    }
  });

  it("order number prefix: new orders are named with it, earlier ones keep theirs; search finds either", async () => {
    const s = await shop();
    const p = await s.product("Cap", "5.00", 10);
    const c = (await s.client.post(`${s.base}/customers`, { email: "p@example.com", firstName: "P" })).data;
    const order = async () =>
      (
        await s.client.post(`${s.base}/orders`, {
          customerId: c.id,
          lineItems: [{ productId: p.id, quantity: 1 }],
        })
      ).data as Json;
    const first = await order();
    assert.equal(first.name, "#1001");
    await s.client.patch(s.base, { orderNumberPrefix: "SO-" });
    const second = await order();
    assert.deepEqual([second.number, second.name], [1002, "SO-1002"]);
    assert.equal((await s.client.get(`${s.base}/orders/${first.id}`)).data.name, "#1001");
    for (const q of ["SO-1002", "so-1002", "1002", "#1002"])
      assert.deepEqual(
        (await s.client.get(`${s.base}/orders?q=${encodeURIComponent(q)}`)).data.map((o: Json) => o.id),
        [second.id],
        q,
      );
    await s.client.patch(s.base, { orderNumberPrefix: "" });
    assert.equal((await order()).name, "1003");
  });

  it("the overview's today follows the store's time zone", async () => {
    const s = await shop();
    const p = await s.product("Tea", "10.00", 100);
    const c = (await s.client.post(`${s.base}/customers`, { email: "t@example.com", firstName: "T" })).data;
    // Move the clock to 22:30 UTC: already tomorrow in Riyadh (UTC+3), still today in UTC.
    const now = ctx.clock.now();
    const todayAt2230 = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 22, 30);
    const target = todayAt2230 < now.getTime() ? todayAt2230 + 24 * HOUR : todayAt2230;
    ctx.clock.advance(target - now.getTime());
    // Placed at 20:30 UTC (23:30 in Riyadh), the day before in Riyadh terms of the next order.
    ctx.clock.advance(-2 * HOUR);
    await s.client.post(`${s.base}/orders`, {
      customerId: c.id,
      lineItems: [{ productId: p.id, quantity: 1 }],
    });
    ctx.clock.advance(2 * HOUR);
    const utc = (await s.client.get(`${s.base}/overview`)).data as Json;
    assert.equal(utc.timeZone, "UTC");
    assert.equal(utc.sales.today.orders, 1, "20:30 UTC is today in UTC");
    await s.client.patch(s.base, { timeZone: "Asia/Riyadh" });
    const riyadh = (await s.client.get(`${s.base}/overview`)).data as Json;
    assert.equal(riyadh.timeZone, "Asia/Riyadh");
    assert.equal(riyadh.sales.today.orders, 0, "23:30 in Riyadh was yesterday there (it is 01:30)");
    assert.equal(riyadh.sales.today.since, new Date(target - 1.5 * HOUR).toISOString());
    // A zone asked for explicitly still wins.
    assert.equal((await s.client.get(`${s.base}/overview?timeZone=UTC`)).data.sales.today.orders, 1);
  });

  it("customers have addresses (the first is the default shipping address); changes emit customer.updated, no-ops nothing", async () => {
    const s = await shop();
    const created = await s.client.post(`${s.base}/customers`, {
      email: "layla@example.com",
      firstName: "Layla",
      lastName: "Haddad",
      addresses: [RIYADH, BERLIN],
      note: "Prefers evenings",
      tags: ["vip", "wholesale"],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.data.addresses, [full(RIYADH), full(BERLIN)]);
    assert.deepEqual(created.data.defaultAddress, full(RIYADH));
    assert.deepEqual([created.data.note, created.data.tags], ["Prefers evenings", ["vip", "wholesale"]]);
    assert.equal(created.data.metadata, undefined, "the dashboard sees no app's pairs inline");
    const id = created.data.id;

    const reordered = await s.client.patch(`${s.base}/customers/${id}`, { addresses: [BERLIN, RIYADH] });
    assert.deepEqual(reordered.data.defaultAddress, full(BERLIN), "the first is the default");
    assert.equal((await s.events("customer.updated")).length, 1);
    const noop = await s.client.patch(`${s.base}/customers/${id}`, {
      addresses: [BERLIN, RIYADH],
      tags: ["vip", "wholesale"],
      firstName: "Layla",
    });
    assert.equal(noop.status, 200);
    assert.equal(
      (await s.events("customer.updated")).length,
      1,
      "an update that changes nothing emits nothing",
    );
    await s.client.patch(`${s.base}/customers/${id}`, { tags: ["vip"], note: "" });
    const updates = await s.events("customer.updated");
    assert.equal(updates.length, 2);
    assert.deepEqual((updates[1]!.payload as Json).tags, ["vip"]);

    const bad = async (body: Json, field: string) => {
      const res = await s.client.patch(`${s.base}/customers/${id}`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(
        JSON.stringify(res.body.error.details).includes(field),
        JSON.stringify(res.body.error.details),
      );
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
    await s.client.post(`${s.base}/orders`, {
      customerId: id,
      lineItems: [{ productId: p.id, quantity: 1 }],
    });
    await s.client.patch(`${s.base}/customers/${id}`, { note: "Call first" });
    await s.client.delete(`${s.base}/customers/${id}`);
    const erased = (await s.client.get(`${s.base}/customers/${id}`)).data as Json;
    assert.deepEqual([erased.addresses, erased.defaultAddress, erased.note], [[], null, ""]);
    assert.ok(((await s.events("customer.updated")).at(-1)!.payload as Json).anonymizedAt);
  });

  it("orders with several lines: stock and totals from the server, a shipping address copied, given or none, note and tags", async () => {
    const s = await shop();
    const shirt = await s.product("Linen shirt", "39.00", 10);
    const mug = await s.product("Mug", "12.50", 5);
    const tote = await s.product("Tote", "18.00", 2);
    const layla = (
      await s.client.post(`${s.base}/customers`, {
        email: "l@example.com",
        firstName: "Layla",
        addresses: [RIYADH],
      })
    ).data as Json;
    const omar = (await s.client.post(`${s.base}/customers`, { email: "o@example.com", firstName: "Omar" }))
      .data;

    const placed = await s.client.post(`${s.base}/orders`, {
      customerId: layla.id,
      lineItems: [
        { productId: shirt.id, quantity: 2 },
        { productId: mug.id, quantity: 3 },
        { productId: tote.id, quantity: 1 },
      ],
      note: "Gift wrap",
      tags: ["gift"],
    });
    assert.equal(placed.status, 201, JSON.stringify(placed.body));
    const o = placed.data as Json;
    assert.deepEqual(
      o.lineItems.map((li: Json) => [li.title, li.quantity, li.unitPrice, li.total]),
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
        [shirt, mug, tote].map(async (p) => (await s.client.get(`${s.base}/products/${p.id}`)).data.stock),
      ),
      [8, 2, 1],
    );
    const created = (await s.events("order.created")).at(-1)!.payload as Json;
    assert.deepEqual(created.shippingAddress, full(RIYADH), "order.* payloads carry the shipping address");

    const given = await s.client.post(`${s.base}/orders`, {
      customerId: layla.id,
      lineItems: [{ productId: shirt.id, quantity: 1 }],
      shippingAddress: BERLIN,
    });
    assert.deepEqual(given.data.shippingAddress, full(BERLIN));
    const none = await s.client.post(`${s.base}/orders`, {
      customerId: layla.id,
      lineItems: [{ productId: shirt.id, quantity: 1 }],
      shippingAddress: null,
    });
    assert.equal(none.data.shippingAddress, null);
    const noAddress = await s.client.post(`${s.base}/orders`, {
      customerId: omar.id,
      lineItems: [{ productId: shirt.id, quantity: 1 }],
    });
    assert.equal(noAddress.data.shippingAddress, null, "a customer without addresses gives none");

    // Short stock on one line refuses the whole order and takes nothing.
    const short = await s.client.post(`${s.base}/orders`, {
      customerId: layla.id,
      lineItems: [
        { productId: shirt.id, quantity: 1 },
        { productId: tote.id, quantity: 5 },
      ],
    });
    assert.equal(short.status, 409);
    assert.equal(short.body.error.details[0].field, "lineItems.1.quantity");
    assert.equal((await s.client.get(`${s.base}/products/${shirt.id}`)).data.stock, 5);
    const twice = await s.client.post(`${s.base}/orders`, {
      customerId: layla.id,
      lineItems: [
        { productId: mug.id, quantity: 1 },
        { productId: mug.id, quantity: 1 },
      ],
    });
    assert.equal(twice.status, 400);
    const badAddress = await s.client.post(`${s.base}/orders`, {
      customerId: layla.id,
      lineItems: [{ productId: mug.id, quantity: 1 }],
      shippingAddress: { ...BERLIN, country: "XX" },
    });
    assert.equal(badAddress.status, 400);
    // The dashboard names customers by id; an inline customer is the Admin API's.
    const inline = await s.client.post(`${s.base}/orders`, {
      customer: { email: "n@example.com", firstName: "N" },
      lineItems: [{ productId: mug.id, quantity: 1 }],
    });
    assert.equal(inline.status, 400);

    // Note, tags and the address change; order.updated once per real change.
    const url = `${s.base}/orders/${o.id}`;
    const edited = await s.client.patch(url, { note: "Gift wrap, blue paper", tags: ["gift", "priority"] });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.deepEqual([edited.data.note, edited.data.tags], ["Gift wrap, blue paper", ["gift", "priority"]]);
    assert.equal((await s.client.patch(url, { note: "Gift wrap, blue paper" })).status, 200);
    assert.equal((await s.events("order.updated")).length, 1, "a no-op emits nothing");
    assert.deepEqual(
      (await s.client.patch(url, { shippingAddress: BERLIN })).data.shippingAddress,
      full(BERLIN),
    );
    assert.equal((await s.events("order.updated")).length, 2);
    assert.equal((await s.client.patch(url, {})).status, 400);
    const other = await merchantWithStore(ctx.app);
    assert.equal((await other.client.patch(`${other.base}/orders/${o.id}`, { note: "x" })).status, 404);
  });

  it("fulfilment: shipped takes the carrier, tracking number and URL, shown on the order and carried by order.shipped; the timeline names the merchant", async () => {
    const s = await shop();
    const p = await s.product("Lamp", "45.00", 5);
    const c = (
      await s.client.post(`${s.base}/customers`, {
        email: "f@example.com",
        firstName: "F",
        addresses: [BERLIN],
      })
    ).data;
    const o = (
      await s.client.post(`${s.base}/orders`, {
        customerId: c.id,
        lineItems: [{ productId: p.id, quantity: 1 }],
      })
    ).data as Json;
    const move = (body: Json) => s.client.post(`${s.base}/orders/${o.id}/status`, body);
    const tracking = {
      carrier: "DHL Express",
      trackingNumber: "1Z999AA10123456784",
      trackingUrl: "https://www.dhl.com/track?id=1Z999AA10123456784",
    };
    const early = await move({ status: "paid", fulfillment: tracking });
    assert.equal(early.status, 400, "fulfilment goes with shipped only");
    assert.equal(early.body.error.details[0].field, "fulfillment");
    assert.equal((await move({ status: "paid" })).status, 200);
    assert.equal((await move({ status: "confirmed" })).status, 200);
    for (const bad of [
      { ...tracking, trackingUrl: "javascript:alert(1)" },
      { ...tracking, trackingUrl: "ftp://example.com/x" },
      { ...tracking, trackingNumber: "" },
      { ...tracking, carrier: "c".repeat(101) },
      { ...tracking, signedBy: "x" },
    ]) {
      const res = await move({ status: "shipped", fulfillment: bad });
      assert.equal(res.status, 400, JSON.stringify(bad));
    }
    const shipped = await move({ status: "shipped", fulfillment: tracking });
    assert.equal(shipped.status, 200, JSON.stringify(shipped.body));
    assert.deepEqual(shipped.data.fulfillment, { ...tracking, shippedAt: ctx.clock.now().toISOString() });
    assert.deepEqual(
      (await s.client.get(`${s.base}/orders/${o.id}`)).data.fulfillment,
      shipped.data.fulfillment,
    );
    const event = (await s.events("order.shipped"))[0]!.payload as Json;
    assert.deepEqual(event.fulfillment, shipped.data.fulfillment);
    const history = (await s.client.get(`${s.base}/orders/${o.id}/history`)).data as Json[];
    assert.deepEqual(history.at(-1)!.actor, { kind: "account", name: "Test Merchant" });
    // Once shipped, where it ships is settled; the note still changes.
    assert.equal((await s.client.patch(`${s.base}/orders/${o.id}`, { shippingAddress: RIYADH })).status, 409);
    assert.equal(
      (await s.client.patch(`${s.base}/orders/${o.id}`, { note: "Left at reception" })).status,
      200,
    );

    // Shipped without details is still a fulfilment (when), each detail null.
    const bare = (
      await s.client.post(`${s.base}/orders`, {
        customerId: c.id,
        lineItems: [{ productId: p.id, quantity: 1 }],
      })
    ).data as Json;
    for (const status of ["paid", "confirmed"])
      await s.client.post(`${s.base}/orders/${bare.id}/status`, { status });
    const plain = await s.client.post(`${s.base}/orders/${bare.id}/status`, { status: "shipped" });
    assert.deepEqual(plain.data.fulfillment, {
      carrier: null,
      trackingNumber: null,
      trackingUrl: null,
      shippedAt: ctx.clock.now().toISOString(),
    });
  });

  it("account: the name changes freely; a new e-mail address needs the password, and must be free", async () => {
    const m = await merchantWithStore(ctx.app);
    const me = spec.watch(m.client);
    const renamed = await me.patch("/api/v1/dashboard/account", { name: "Sara Haddad" });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal((await me.get("/api/v1/dashboard/me")).data.name, "Sara Haddad");

    const newEmail = `new-${m.email}`;
    const without = await me.patch("/api/v1/dashboard/account", { email: newEmail });
    assert.equal(without.status, 400);
    assert.equal(without.body.error.details[0].field, "currentPassword");
    const wrong = await me.patch("/api/v1/dashboard/account", {
      email: newEmail,
      currentPassword: "not it at all",
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error.details[0].field, "currentPassword");
    const taken = await merchantWithStore(ctx.app);
    const clash = await me.patch("/api/v1/dashboard/account", {
      email: taken.email.toUpperCase(),
      currentPassword: m.password,
    });
    assert.equal(clash.status, 409);
    const moved = await me.patch("/api/v1/dashboard/account", {
      email: newEmail,
      currentPassword: m.password,
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.data.email, newEmail);
    assert.equal((await me.get("/api/v1/dashboard/me")).status, 200, "the session stays");
    const login = (email: string) =>
      new Client(ctx.app).post("/api/v1/dashboard/auth/login", { email, password: m.password });
    assert.equal((await login(newEmail)).status, 200);
    assert.equal((await login(m.email)).status, 401);
    // The same address again needs no password: nothing changes.
    assert.equal((await me.patch("/api/v1/dashboard/account", { email: newEmail })).status, 200);
    assert.equal((await me.patch("/api/v1/dashboard/account", {})).status, 400);
    assert.equal((await me.patch("/api/v1/dashboard/account", { name: " " })).status, 400);
    assert.equal((await new Client(ctx.app).patch("/api/v1/dashboard/account", { name: "X" })).status, 401);
  });
});
