import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type ListenMessage, listen } from "@merchant-platform/sdk";
import { sql } from "kysely";
import { REDIRECT } from "./apps-harness.ts";
import { outbox } from "./harness.ts";
import { Client, consent, exchange, type Json, merchantWithStore, registerApp } from "./legacy-client.ts";
import { openApiChecker } from "./openapi-assert.ts";
import { startReceiver } from "./receiver.ts";
import { createWebhookContext, waitUntil } from "./webhooks-harness.ts";

/**
 * The commerce core opened to apps and key pairs (issue 20): order and customer writes on the
 * Admin API under write_orders / write_customers, order.updated and customer.updated, app metadata
 * (each app sees and changes only its own pairs, on reads, in webhook bodies and listen streams;
 * the merchant sees them all), and the developer API's order and customer reads. Happy, error and
 * security paths; every response is checked against the served document.
 */
type Checker = Awaited<ReturnType<typeof openApiChecker>>;
type Merchant = Awaited<ReturnType<typeof merchantWithStore>>;
const API = "/api/v1/apps/api";
const DEV = "/api/v1/developer";
const ADDRESS = { name: "Omar Nasser", line1: "Olaya Street 5", city: "Riyadh", country: "SA" };

describe("the commerce core, opened to apps and keys", () => {
  let ctx: Awaited<ReturnType<typeof createWebhookContext>>;
  let spec: Checker;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let baseUrl: string;
  before(async () => {
    ctx = await createWebhookContext();
    spec = await openApiChecker(ctx.app);
    rx = await startReceiver();
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await rx?.close();
    await ctx?.close();
  });

  /** An app registered by its own developer and installed in `merchant`'s store with `scopes`. */
  async function install(merchant: Merchant, scopes: string[], name = "Test App") {
    const registered = await registerApp(ctx.app, scopes, name);
    const { code } = await consent(merchant, registered.clientId, scopes);
    const tokens = await exchange(ctx.app, {
      slug: merchant.slug,
      code,
      redirectUri: REDIRECT,
      clientId: registered.clientId,
      clientSecret: registered.clientSecret,
    });
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    const accessToken = tokens.data.accessToken as string;
    const api = spec.watch(new Client(ctx.app, { authorization: `Bearer ${accessToken}` }));
    return { ...registered, api, accessToken };
  }

  async function shop() {
    const m = await merchantWithStore(ctx.app);
    const client = spec.watch(m.client);
    const product = (await client.post(`${m.base}/products`, { title: "Mug", price: "12.00", stock: 50 }))
      .data as Json;
    const customer = (
      await client.post(`${m.base}/customers`, {
        email: "layla@example.com",
        firstName: "Layla",
        addresses: [{ name: "Layla Haddad", line1: "King Fahd Road 12", city: "Riyadh", country: "SA" }],
      })
    ).data as Json;
    const events = async (topic?: string) =>
      (await outbox(ctx.platform, m.store.id)).filter((e) => !topic || e.topic === topic);
    return { m: { ...m, client }, product, customer, events };
  }

  it("write_orders and write_customers are scopes an app can ask for, in plain words; a key pair is never offered them", async () => {
    const { m } = await shop();
    const app = await registerApp(ctx.app, ["read_orders", "write_orders", "write_customers"], "Fulfilment");
    const q = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "read_orders write_orders write_customers",
      state: "s",
    });
    const request = await m.client.get(`/api/v1/dashboard/oauth/consent?${q}`);
    assert.equal(request.status, 200, JSON.stringify(request.body));
    assert.deepEqual(request.data.scopes.map((s: Json) => s.label).sort(), [
      "Create and change your customers, their addresses included",
      "Create orders, mark them shipped with tracking, and edit their notes and tags",
      "See your orders, their items, totals, shipping addresses and tracking",
    ]);
    const metadata = await new Client(ctx.app).get("/.well-known/oauth-authorization-server");
    for (const s of ["write_orders", "write_customers"])
      assert.ok(metadata.body.scopes_supported.includes(s), s);
    for (const scopes of [["write_orders"], ["write_customers"], ["manage_webhooks"]]) {
      const key = await m.client.post(`${m.base}/api-keys`, { name: "k", scopes });
      assert.equal(key.status, 400, `${scopes}: a scope no developer route needs`);
    }
    const reader = await m.client.post(`${m.base}/api-keys`, {
      name: "k",
      scopes: ["read_orders", "read_customers"],
    });
    assert.equal(reader.status, 201);
  });

  it("Admin API orders: create (lines, customer by id or inline, shipping address, note, Idempotency-Key), move along with fulfilment, edit note and tags", async () => {
    const { m, product, customer, events } = await shop();
    const app = await install(m, ["read_orders", "write_orders"], "ShipFast");
    const created = await app.api.post(
      `${API}/orders`,
      {
        customerId: customer.id,
        lineItems: [{ productId: product.id, quantity: 2 }],
        note: "From the marketplace",
        tags: ["marketplace"],
        metadata: { marketplaceOrder: "MK-991" },
      },
      { "idempotency-key": "order-mk-991" },
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const o = created.data as Json;
    assert.deepEqual(
      [o.total, o.note, o.tags, o.metadata, o.shippingAddress.city],
      ["24.00", "From the marketplace", ["marketplace"], { marketplaceOrder: "MK-991" }, "Riyadh"],
    );
    // The retry of a create whose answer was lost answers the same order, and places no second.
    const retry = await app.api.post(
      `${API}/orders`,
      {
        customerId: customer.id,
        lineItems: [{ productId: product.id, quantity: 2 }],
        note: "From the marketplace",
        tags: ["marketplace"],
        metadata: { marketplaceOrder: "MK-991" },
      },
      { "idempotency-key": "order-mk-991" },
    );
    assert.equal(retry.status, 201);
    assert.equal(retry.headers["idempotency-replayed"], "true");
    assert.equal(retry.data.id, o.id);
    assert.equal((await events("order.created")).length, 1);
    assert.equal((await m.client.get(`${m.base}/products/${product.id}`)).data.stock, 48);

    // An inline customer: a new one (customer.created), or the store's customer with that address.
    const inline = await app.api.post(`${API}/orders`, {
      customer: { email: "omar@example.com", firstName: "Omar", lastName: "Nasser", addresses: [ADDRESS] },
      lineItems: [{ productId: product.id, quantity: 1 }],
    });
    assert.equal(inline.status, 201, JSON.stringify(inline.body));
    assert.deepEqual(inline.data.shippingAddress, {
      ...ADDRESS,
      company: null,
      line2: null,
      region: null,
      postalCode: null,
      phone: null,
    });
    assert.equal((await events("customer.created")).length, 2);
    const again = await app.api.post(`${API}/orders`, {
      customer: { email: "LAYLA@example.com", firstName: "Someone else" },
      lineItems: [{ productId: product.id, quantity: 1 }],
    });
    assert.equal(again.data.customerId, customer.id, "matched by e-mail address");
    assert.equal(
      (await m.client.get(`${m.base}/customers/${customer.id}`)).data.firstName,
      "Layla",
      "left as it is",
    );
    assert.equal((await events("customer.created")).length, 2);
    for (const body of [
      { lineItems: [{ productId: product.id, quantity: 1 }] },
      {
        customerId: customer.id,
        customer: { email: "x@example.com", firstName: "X" },
        lineItems: [{ productId: product.id, quantity: 1 }],
      },
    ]) {
      const res = await app.api.post(`${API}/orders`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.details[0].field, "customerId");
    }

    // Moving it along: the contract's transitions only, fulfilment with shipped.
    const move = (body: Json) => app.api.post(`${API}/orders/${o.id}/status`, body);
    assert.equal((await move({ status: "shipped" })).status, 409, "one step at a time");
    assert.equal((await move({ status: "paid" })).status, 200);
    assert.equal((await move({ status: "confirmed" })).status, 200);
    const shipped = await move({
      status: "shipped",
      fulfillment: {
        carrier: "Aramex",
        trackingNumber: "AX123456789",
        trackingUrl: "https://aramex.example/t/AX123456789",
      },
    });
    assert.equal(shipped.status, 200, JSON.stringify(shipped.body));
    assert.deepEqual(
      [shipped.data.fulfillment.carrier, shipped.data.fulfillment.trackingNumber, shipped.data.metadata],
      ["Aramex", "AX123456789", { marketplaceOrder: "MK-991" }],
    );
    const history = (await m.client.get(`${m.base}/orders/${o.id}/history`)).data as Json[];
    assert.deepEqual(
      history.map((h) => [h.status, h.actor.kind, h.actor.name]),
      [
        ["pending", "app", "ShipFast"],
        ["paid", "app", "ShipFast"],
        ["confirmed", "app", "ShipFast"],
        ["shipped", "app", "ShipFast"],
      ],
      "the timeline names the app",
    );

    // Note and tags: order.updated once per real change.
    const edit = await app.api.patch(`${API}/orders/${o.id}`, {
      note: "Shipped by ShipFast",
      tags: ["marketplace", "shipped"],
    });
    assert.equal(edit.status, 200, JSON.stringify(edit.body));
    assert.equal(
      (await app.api.patch(`${API}/orders/${o.id}`, { tags: ["marketplace", "shipped"] })).status,
      200,
    );
    assert.equal((await events("order.updated")).length, 1);
    assert.equal((await app.api.patch(`${API}/orders/${o.id}`, { shippingAddress: ADDRESS })).status, 409);

    // Security: a read-only token, another store's order, no token.
    const readOnly = await install(m, ["read_orders"], "Reader");
    const refused = await readOnly.api.post(`${API}/orders/${o.id}/status`, { status: "delivered" });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.details.requiredScope, "write_orders");
    assert.equal((await readOnly.api.patch(`${API}/orders/${o.id}`, { note: "x" })).status, 403);
    assert.equal(
      (
        await readOnly.api.post(`${API}/orders`, {
          customerId: customer.id,
          lineItems: [{ productId: product.id, quantity: 1 }],
        })
      ).status,
      403,
    );
    const elsewhere = await shop();
    const stranger = await install(elsewhere.m, ["read_orders", "write_orders"]);
    assert.equal(
      (await stranger.api.post(`${API}/orders/${o.id}/status`, { status: "delivered" })).status,
      404,
    );
    assert.equal((await stranger.api.patch(`${API}/orders/${o.id}`, { note: "x" })).status, 404);
    const foreignLines = await stranger.api.post(`${API}/orders`, {
      customerId: customer.id,
      lineItems: [{ productId: elsewhere.product.id, quantity: 1 }],
    });
    assert.equal(foreignLines.status, 400, "another store's customer");
    const foreignProduct = await stranger.api.post(`${API}/orders`, {
      customerId: elsewhere.customer.id,
      lineItems: [{ productId: product.id, quantity: 1 }],
    });
    assert.equal(foreignProduct.status, 400, "another store's product");
    assert.equal(
      (await new Client(ctx.app).post(`${API}/orders/${o.id}/status`, { status: "delivered" })).status,
      401,
    );
  });

  it("Admin API customers: create and update with addresses, note and tags; customer.updated; write_customers required", async () => {
    const { m, events } = await shop();
    const app = await install(m, ["read_customers", "write_customers"], "CRM Sync");
    const created = await app.api.post(`${API}/customers`, {
      email: "grace@example.com",
      firstName: "Grace",
      lastName: "Hopper",
      addresses: [ADDRESS],
      tags: ["crm"],
      metadata: { crmId: "C-1" },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual([created.data.defaultAddress.city, created.data.metadata], ["Riyadh", { crmId: "C-1" }]);
    const id = created.data.id;
    const updated = await app.api.patch(`${API}/customers/${id}`, {
      phone: "+966 55 000 1111",
      note: "Met at the fair",
    });
    assert.equal(updated.status, 200);
    assert.equal((await events("customer.updated")).length, 1);
    assert.equal((await app.api.patch(`${API}/customers/${id}`, { phone: "+966 55 000 1111" })).status, 200);
    assert.equal((await events("customer.updated")).length, 1, "a no-op emits nothing");
    assert.equal(
      (await app.api.post(`${API}/customers`, { email: "GRACE@example.com", firstName: "G" })).status,
      409,
    );
    const reader = await install(m, ["read_customers"]);
    assert.equal((await reader.api.patch(`${API}/customers/${id}`, { note: "x" })).status, 403);
    assert.equal(
      (await reader.api.post(`${API}/customers`, { email: "r@example.com", firstName: "R" })).status,
      403,
    );
    const other = await shop();
    const stranger = await install(other.m, ["read_customers", "write_customers"]);
    assert.equal((await stranger.api.patch(`${API}/customers/${id}`, { note: "x" })).status, 404);
    assert.equal((await stranger.api.get(`${API}/customers/${id}`)).status, 404);
  });

  it("app metadata: each app sees and changes only its own pairs, bounded; the merchant sees whose data a record holds", async () => {
    const { m, product, customer } = await shop();
    const erp = await install(
      m,
      ["read_products", "write_products", "read_orders", "write_orders", "read_customers", "write_customers"],
      "ERP Sync",
    );
    const crm = await install(
      m,
      ["read_products", "write_products", "read_orders", "write_orders", "read_customers", "write_customers"],
      "CRM",
    );
    const order = (
      await erp.api.post(`${API}/orders`, {
        customerId: customer.id,
        lineItems: [{ productId: product.id, quantity: 1 }],
        metadata: { erpId: "SO-1" },
      })
    ).data as Json;

    for (const [path, id] of [
      ["products", product.id],
      ["orders", order.id],
      ["customers", customer.id],
    ] as const) {
      const url = `${API}/${path}/${id}`;
      const mine = await erp.api.patch(url, { metadata: { erpId: `E-${path}`, note: "internal" } });
      assert.equal(mine.status, 200, `${path}: ${JSON.stringify(mine.body)}`);
      assert.deepEqual(mine.data.metadata, { erpId: `E-${path}`, note: "internal" });
      const theirs = await crm.api.patch(url, { metadata: { erpId: "CRM-OWN" } });
      assert.deepEqual(
        theirs.data.metadata,
        { erpId: "CRM-OWN" },
        `${path}: the same key is another app's own`,
      );
      assert.deepEqual(
        (await crm.api.get(url)).data.metadata,
        { erpId: "CRM-OWN" },
        `${path}: never the other app's`,
      );
      assert.deepEqual((await erp.api.get(url)).data.metadata, { erpId: `E-${path}`, note: "internal" });
      // null removes; the other app's pairs stay.
      assert.deepEqual((await erp.api.patch(url, { metadata: { note: null } })).data.metadata, {
        erpId: `E-${path}`,
      });
      assert.deepEqual((await crm.api.get(url)).data.metadata, { erpId: "CRM-OWN" });
      const list = (await crm.api.get(`${API}/${path}`)).data as Json[];
      assert.deepEqual(list.find((r) => r.id === id)!.metadata, { erpId: "CRM-OWN" }, `${path}: lists too`);
      // Never in the dashboard's or a key pair's answers.
      assert.equal((await m.client.get(`${m.base}/${path}/${id}`)).data.metadata, undefined);
      const appData = await m.client.get(`${m.base}/${path}/${id}/app-data`);
      assert.equal(appData.status, 200);
      assert.deepEqual(
        (appData.data as Json[]).map((a) => [a.app.name, a.app.installed, a.metadata]),
        [
          ["CRM", true, { erpId: "CRM-OWN" }],
          ["ERP Sync", true, { erpId: `E-${path}` }],
        ],
      );
      const stranger = await merchantWithStore(ctx.app);
      assert.equal((await stranger.client.get(`${stranger.base}/${path}/${id}/app-data`)).status, 404);
    }
    const key = await m.client.post(`${m.base}/api-keys`, {
      name: "k",
      scopes: ["read_orders", "read_customers", "read_products"],
    });
    const dev = spec.watch(
      new Client(ctx.app, { "x-api-key": key.data.keyId, "x-api-secret": key.data.secret }),
    );
    for (const path of [`orders/${order.id}`, `customers/${customer.id}`, `products/${product.id}`])
      assert.doesNotMatch(
        JSON.stringify((await dev.get(`${DEV}/${path}`)).body),
        /CRM-OWN|E-orders|metadata/,
      );

    // Bounds: keys, values, count (counting what the app already keeps), with words.
    const url = `${API}/orders/${order.id}`;
    const bounds: Array<[Json, string]> = [
      [{ ["k".repeat(41)]: "v" }, "metadata"],
      [{ "has space": "v" }, "metadata"],
      [{ k: "v".repeat(501) }, "metadata.k"],
      [{ k: 12 }, "metadata.k"],
      [Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])), "metadata"],
    ];
    for (const [metadata, field] of bounds) {
      const res = await erp.api.patch(url, { metadata });
      assert.equal(res.status, 400, JSON.stringify(metadata).slice(0, 80));
      assert.equal(res.body.error.code, "VALIDATION_FAILED");
      assert.ok(
        res.body.error.details.some((d: Json) => d.field === field),
        JSON.stringify(res.body.error.details),
      );
    }
    const fortyNine = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, "v"]));
    assert.equal((await erp.api.patch(url, { metadata: fortyNine })).status, 200, "49 + erpId = 50");
    const over = await erp.api.patch(url, { metadata: { oneMore: "v" } });
    assert.equal(over.status, 400);
    assert.equal(over.body.error.details[0].field, "metadata");
    assert.match(over.body.error.details[0].message, /51 keys; at most 50/);
    assert.equal(
      (await crm.api.patch(url, { metadata: { oneMore: "v" } })).status,
      200,
      "the other app's 50 do not count",
    );

    // The dashboard cannot write metadata (the merchant has no namespace).
    assert.equal(
      (await m.client.patch(`${m.base}/orders/${order.id}`, { metadata: { x: "y" } })).status,
      400,
    );
    // An uninstalled app's pairs stay, and the merchant sees it is not installed.
    await m.client.delete(`${m.base}/installations/${crm.clientId}`);
    const afterUninstall = (await m.client.get(`${m.base}/orders/${order.id}/app-data`)).data as Json[];
    assert.deepEqual(
      afterUninstall.map((a) => [a.app.name, a.app.installed]),
      [
        ["CRM", false],
        ["ERP Sync", true],
      ],
    );
  });

  it("concurrency: two apps writing one record at once each keep all their pairs; ten orders for one new inline customer make one customer", async () => {
    const { m, product, customer, events } = await shop();
    const scopes = ["read_orders", "write_orders"];
    const [a, b] = [await install(m, scopes, "A"), await install(m, scopes, "B")];
    const order = (
      await a.api.post(`${API}/orders`, {
        customerId: customer.id,
        lineItems: [{ productId: product.id, quantity: 1 }],
      })
    ).data as Json;
    const url = `${API}/orders/${order.id}`;
    const writes = Array.from({ length: 10 }, (_, i) => [
      a.api.patch(url, { metadata: { [`a${i}`]: "x" } }),
      b.api.patch(url, { metadata: { [`b${i}`]: "y" } }),
    ]).flat();
    for (const res of await Promise.all(writes)) assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(Object.keys((await a.api.get(url)).data.metadata).length, 10, "no write of A was lost");
    assert.equal(Object.keys((await b.api.get(url)).data.metadata).length, 10, "no write of B was lost");
    assert.equal((await events("order.updated")).length, 20);

    const placed = await Promise.all(
      Array.from({ length: 10 }, () =>
        a.api.post(`${API}/orders`, {
          customer: { email: "new.buyer@example.com", firstName: "New" },
          lineItems: [{ productId: product.id, quantity: 1 }],
        }),
      ),
    );
    for (const res of placed) assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(new Set(placed.map((r) => r.data.customerId)).size, 1, "one customer for the ten orders");
    assert.equal(
      (await events("customer.created")).filter((e) => (e.payload as Json).email === "new.buyer@example.com")
        .length,
      1,
    );
  });

  it("webhook bodies and listen streams carry the receiving app's own metadata only", async () => {
    const { m, product, customer } = await shop();
    const scopes = ["read_orders", "write_orders", "read_products", "manage_webhooks"];
    const a = await install(m, scopes, "Shipper A");
    const b = await install(m, scopes, "Shipper B");
    for (const [app, path] of [
      [a, "a"],
      [b, "b"],
    ] as const)
      for (const eventName of ["order.paid", "order.updated", "product.updated"])
        assert.equal(
          (await app.api.post(`${API}/webhooks`, { eventName, targetUrl: `${rx.url}/meta-${path}` })).status,
          201,
        );
    const streams = [a, b].map((app) => {
      const controller = new AbortController();
      return {
        controller,
        messages: listen({
          baseUrl,
          tokens: { accessToken: async () => app.accessToken },
          signal: controller.signal,
        }),
      };
    });
    for (const s of streams) assert.equal((await s.messages.next()).value?.type, "session");

    const order = (
      await m.client.post(`${m.base}/orders`, {
        customerId: customer.id,
        lineItems: [{ productId: product.id, quantity: 1 }],
      })
    ).data as Json;
    assert.equal(
      (await a.api.patch(`${API}/orders/${order.id}`, { metadata: { shipmentId: "A-77" } })).status,
      200,
    );
    assert.equal(
      (await m.client.post(`${m.base}/orders/${order.id}/status`, { status: "paid" })).status,
      200,
    );

    const bodies = (path: string, event: string) =>
      rx.received
        .filter((r) => r.path === `/meta-${path}` && r.headers["x-webhook-event"] === event)
        .map((r) => JSON.parse(r.body) as Json);
    await waitUntil(
      () => bodies("a", "order.paid").length === 1 && bodies("b", "order.paid").length === 1,
      20_000,
      "order.paid to both",
    );
    assert.deepEqual(bodies("a", "order.paid")[0]!.data.metadata, { shipmentId: "A-77" });
    assert.deepEqual(bodies("b", "order.paid")[0]!.data.metadata, {}, "B never sees A's pairs");
    // Two deliveries, one per subscription: B's arriving says nothing of A's.
    await waitUntil(
      () => bodies("a", "order.updated").length === 1 && bodies("b", "order.updated").length === 1,
      20_000,
      "order.updated to both",
    );
    assert.deepEqual(bodies("b", "order.updated")[0]!.data.metadata, {});
    assert.deepEqual(bodies("a", "order.updated")[0]!.data.metadata, { shipmentId: "A-77" });
    assert.doesNotMatch(
      rx.received
        .filter((r) => r.path === "/meta-b")
        .map((r) => r.body)
        .join(""),
      /A-77/,
    );
    // Stored in the event beside the payload, never inside it.
    const paid = (await outbox(ctx.platform, m.store.id)).find((e) => e.topic === "order.paid")!;
    assert.equal((paid.payload as Json).metadata, undefined);

    // The same for listen streams.
    const streamed = async (s: (typeof streams)[number]) => {
      for (;;) {
        const { value, done } = await s.messages.next();
        if (done) throw new Error("stream ended");
        const message = value as ListenMessage;
        if (message.type === "webhook" && message.event === "order.paid")
          return JSON.parse(message.body) as Json;
      }
    };
    assert.deepEqual((await streamed(streams[0]!)).data.metadata, { shipmentId: "A-77" });
    assert.deepEqual((await streamed(streams[1]!)).data.metadata, {});
    for (const s of streams) {
      s.controller.abort();
      await s.messages.return(undefined);
    }
  });

  it("new events are declared once: order.updated and customer.updated need their read scope, shop.updated none", async () => {
    const { m } = await shop();
    const app = await install(m, ["read_products", "manage_webhooks"]);
    const subscribe = (eventName: string) =>
      app.api.post(`${API}/webhooks`, { eventName, targetUrl: `${rx.url}/ev` });
    assert.equal((await subscribe("order.updated")).body.error.details.requiredScope, "read_orders");
    assert.equal((await subscribe("customer.updated")).body.error.details.requiredScope, "read_customers");
    assert.equal((await subscribe("shop.updated")).status, 201);
    const test = await app.api.post(`${API}/webhooks/test`, { event: "shop.updated" });
    assert.equal(test.status, 202, JSON.stringify(test.body));
    const store = await app.api.get(`${API}/store`);
    assert.equal(store.status, 200, "the store needs no scope");
    assert.equal(store.data.slug, m.slug);
    await m.client.patch(m.base, { timeZone: "Europe/Berlin" });
    assert.equal(
      (await app.api.get(`${API}/store`)).data.timeZone,
      "Europe/Berlin",
      "read fresh, not from a cache",
    );
  });

  it("developer API: orders and customers page by page with the store's totals, one by id, under their read scopes", async () => {
    const { m, product, customer } = await shop();
    for (let i = 0; i < 3; i++)
      await m.client.post(`${m.base}/orders`, {
        customerId: customer.id,
        lineItems: [{ productId: product.id, quantity: 1 }],
      });
    const keyOf = async (scopes: string[]) => {
      const key = await m.client.post(`${m.base}/api-keys`, { name: "k", scopes });
      return spec.watch(
        new Client(ctx.app, { "x-api-key": key.data.keyId, "x-api-secret": key.data.secret }),
      );
    };
    const orders = await keyOf(["read_orders"]);
    const page = await orders.get(`${DEV}/orders?page=2&perPage=2`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.deepEqual(page.body.meta, { page: 2, perPage: 2, total: 3, totalPages: 2 });
    assert.equal(page.data.length, 1);
    const one = await orders.get(`${DEV}/orders/${page.data[0].id}`);
    assert.deepEqual(
      [one.data.number, one.data.name, one.data.shippingAddress.city],
      [1001, "#1001", "Riyadh"],
    );
    assert.equal((await orders.get(`${DEV}/customers`)).status, 403);
    assert.equal((await orders.get(`${DEV}/orders?perPage=101`)).status, 400);
    assert.equal(
      (await orders.get(`${DEV}/orders?page=101&perPage=100`)).body.error.details[0].field,
      "page",
    );
    const customers = await keyOf(["read_customers"]);
    const list = await customers.get(`${DEV}/customers`);
    assert.deepEqual(list.body.meta, { page: 1, perPage: 20, total: 1, totalPages: 1 });
    assert.equal(list.data[0].defaultAddress.city, "Riyadh");
    assert.equal((await customers.get(`${DEV}/customers/${customer.id}`)).data.email, "layla@example.com");
    assert.equal((await customers.get(`${DEV}/orders`)).status, 403);
    const other = await merchantWithStore(ctx.app);
    const otherKey = await other.client.post(`${other.base}/api-keys`, {
      name: "k",
      scopes: ["read_orders", "read_customers"],
    });
    const stranger = new Client(ctx.app, {
      "x-api-key": otherKey.data.keyId,
      "x-api-secret": otherKey.data.secret,
    });
    assert.equal((await stranger.get(`${DEV}/customers/${customer.id}`)).status, 404);
    assert.equal((await stranger.get(`${DEV}/orders/${one.data.id}`)).status, 404);
    assert.equal((await stranger.get(`${DEV}/orders`)).body.meta.total, 0);

    // Totals come from the kept counts (a few rows), not a count over the store: bulk rows are
    // counted by the triggers, and the answer is what the counts say.
    const db = ctx.platform.db;
    await sql`
      INSERT INTO customers (store_id, id, email, first_name)
      SELECT ${m.store.id}, 'cus_' || lpad(i::text, 22, '0'), 'bulk' || i || '@example.com', 'Bulk'
        FROM generate_series(1, 2500) AS i`.execute(db);
    assert.equal((await customers.get(`${DEV}/customers?perPage=1`)).body.meta.total, 2501);
    await sql`DELETE FROM customers WHERE store_id = ${m.store.id} AND email LIKE 'bulk%' AND email <> 'bulk1@example.com'`.execute(
      db,
    );
    assert.equal((await customers.get(`${DEV}/customers?perPage=1`)).body.meta.total, 2);
    await sql`UPDATE store_row_counts SET n = n + 1000 WHERE store_id = ${m.store.id} AND resource = 'orders' AND slot = (SELECT min(slot) FROM store_row_counts WHERE store_id = ${m.store.id} AND resource = 'orders')`.execute(
      db,
    );
    assert.equal((await orders.get(`${DEV}/orders?perPage=1`)).body.meta.total, 1003, "read from the counts");
  });
});
