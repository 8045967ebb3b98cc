import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { listen } from "@merchant-platform/sdk";
import { sql } from "kysely";
import { METADATA_LIMITS } from "../src/contracts/index.ts";
import { consent, exchange, REDIRECT, registerApp } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import {
  type Api,
  apiClient,
  detailsOf,
  type EventBody,
  type EventName,
  fieldErrors,
  type Json,
  type KeyScope,
  merchantWithStore,
  offDocument,
  outboxOf,
  type RequestBody,
  type Scope,
  text,
} from "./harness.ts";
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
const ADDRESS: NonNullable<RequestBody<"/api/v1/apps/api/orders", "post">["shippingAddress"]> = {
  name: "Omar Nasser",
  line1: "Olaya Street 5",
  city: "Riyadh",
  country: "SA",
};

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
  async function install(merchant: Merchant, scopes: Scope[], name = "Test App") {
    const registered = await registerApp(ctx.app, scopes, name);
    const { code } = await consent(merchant, registered.clientId, scopes);
    const tokens = await exchange(ctx.app, {
      slug: merchant.slug,
      code,
      redirectUri: REDIRECT,
      clientId: registered.clientId,
      clientSecret: registered.clientSecret,
    });
    assert.equal(tokens.response.status, 200, text(tokens));
    const accessToken = tokens.data!.data.accessToken;
    const api = spec.watch(apiClient(ctx.app, { headers: { authorization: `Bearer ${accessToken}` } }));
    return { ...registered, api, accessToken };
  }

  async function shop() {
    const m = await merchantWithStore(ctx.app);
    const client = spec.watch(m.client);
    const product = (
      await client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body: flat({ title: "Mug", price: "12.00", stock: 50 }),
      })
    ).data!.data;
    const customer = (
      await client.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: m.slug } },
        body: {
          email: "layla@example.com",
          firstName: "Layla",
          addresses: [{ name: "Layla Haddad", line1: "King Fahd Road 12", city: "Riyadh", country: "SA" }],
        },
      })
    ).data!.data;
    const events = <E extends EventName>(topic: E) => outboxOf(ctx.platform, topic, m.store.id);
    return { m: { ...m, client }, product, customer, events };
  }

  it("write_orders and write_customers are scopes an app can ask for, in plain words; a key pair is never offered them", async () => {
    const { m } = await shop();
    const app = await registerApp(ctx.app, ["read_orders", "write_orders", "write_customers"], "Fulfilment");
    const request = await m.client.GET("/api/v1/dashboard/oauth/consent", {
      params: {
        query: {
          client_id: app.clientId,
          redirect_uri: REDIRECT,
          response_type: "code",
          scope: "read_orders write_orders write_customers",
          state: "s",
        },
      },
    });
    assert.equal(request.response.status, 200, text(request));
    assert.deepEqual(request.data!.data.scopes.map((s) => s.label).sort(), [
      "Create and change your customers, their addresses included",
      "Create orders, mark them shipped with tracking, and edit their notes and tags",
      "See your orders, their items, totals, shipping addresses and tracking",
    ]);
    const metadata = await apiClient(ctx.app).GET("/.well-known/oauth-authorization-server");
    for (const s of ["write_orders", "write_customers"])
      assert.ok((metadata.data!.scopes_supported as string[]).includes(s), s);
    for (const scopes of [["write_orders"], ["write_customers"], ["manage_webhooks"]]) {
      const key = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: m.slug } },
        // Scopes no key pair can hold: refused.
        body: offDocument({ name: "k", scopes }),
      });
      assert.equal(key.response.status, 400, `${scopes}: a scope no developer route needs`);
    }
    const reader = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
      params: { path: { slug: m.slug } },
      body: {
        name: "k",
        scopes: ["read_orders", "read_customers"],
      },
    });
    assert.equal(reader.response.status, 201);
  });

  it("Admin API orders: create (lines, customer by id or inline, shipping address, note, Idempotency-Key), move along with fulfilment, edit note and tags", async () => {
    const { m, product, customer, events } = await shop();
    const app = await install(m, ["read_orders", "write_orders"], "ShipFast");
    const created = await app.api.POST("/api/v1/apps/api/orders", {
      body: {
        customerId: customer.id,
        lineItems: [{ productId: product.id, quantity: 2 }],
        note: "From the marketplace",
        tags: ["marketplace"],
        metadata: { marketplaceOrder: "MK-991" },
      },
      headers: { "idempotency-key": "order-mk-991" },
    });
    assert.equal(created.response.status, 201, text(created));
    const o = created.data!.data;
    assert.deepEqual(
      [o.total, o.note, o.tags, o.metadata, o.shippingAddress!.city],
      ["24.00", "From the marketplace", ["marketplace"], { marketplaceOrder: "MK-991" }, "Riyadh"],
    );
    // The retry of a create whose answer was lost answers the same order, and places no second.
    const retry = await app.api.POST("/api/v1/apps/api/orders", {
      body: {
        customerId: customer.id,
        lineItems: [{ productId: product.id, quantity: 2 }],
        note: "From the marketplace",
        tags: ["marketplace"],
        metadata: { marketplaceOrder: "MK-991" },
      },
      headers: { "idempotency-key": "order-mk-991" },
    });
    assert.equal(retry.response.status, 201);
    assert.equal(retry.response.headers.get("idempotency-replayed"), "true");
    assert.equal(retry.data!.data.id, o.id);
    assert.equal((await events("order.created")).length, 1);
    assert.equal(
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: m.slug, id: product.id } },
        })
      ).data!.data.totalAvailable,
      48,
    );

    // An inline customer: a new one (customer.created), or the store's customer with that address.
    const inline = await app.api.POST("/api/v1/apps/api/orders", {
      body: {
        customer: { email: "omar@example.com", firstName: "Omar", lastName: "Nasser", addresses: [ADDRESS] },
        lineItems: [{ productId: product.id, quantity: 1 }],
      },
    });
    assert.equal(inline.response.status, 201, text(inline));
    assert.deepEqual(inline.data!.data.shippingAddress, {
      ...ADDRESS,
      company: null,
      line2: null,
      region: null,
      postalCode: null,
      phone: null,
    });
    assert.equal((await events("customer.created")).length, 2);
    const again = await app.api.POST("/api/v1/apps/api/orders", {
      body: {
        customer: { email: "LAYLA@example.com", firstName: "Someone else" },
        lineItems: [{ productId: product.id, quantity: 1 }],
      },
    });
    assert.equal(again.data!.data.customerId, customer.id, "matched by e-mail address");
    assert.equal(
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}", {
          params: { path: { slug: m.slug, id: customer.id } },
        })
      ).data!.data.firstName,
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
      // Neither a customer nor a customer id, or both: the document allows neither.
      const res = await app.api.POST("/api/v1/apps/api/orders", { body: offDocument(body) });
      assert.equal(res.response.status, 400, JSON.stringify(body));
      assert.equal(fieldErrors(res)[0]!.field, "customerId");
    }

    // Moving it along: the contract's transitions only, fulfilment with shipped.
    const move = (body: RequestBody<"/api/v1/apps/api/orders/{id}/status", "post">) =>
      app.api.POST("/api/v1/apps/api/orders/{id}/status", { params: { path: { id: o.id } }, body });
    assert.equal((await move({ status: "shipped" })).response.status, 409, "one step at a time");
    assert.equal((await move({ status: "paid" })).response.status, 200);
    assert.equal((await move({ status: "confirmed" })).response.status, 200);
    const shipped = await move({
      status: "shipped",
      fulfillment: {
        carrier: "Aramex",
        trackingNumber: "AX123456789",
        trackingUrl: "https://aramex.example/t/AX123456789",
      },
    });
    assert.equal(shipped.response.status, 200, text(shipped));
    assert.deepEqual(
      [
        shipped.data!.data.fulfillment!.carrier,
        shipped.data!.data.fulfillment!.trackingNumber,
        shipped.data!.data.metadata,
      ],
      ["Aramex", "AX123456789", { marketplaceOrder: "MK-991" }],
    );
    const history = (
      await m.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/history", {
        params: { path: { slug: m.slug, id: o.id } },
      })
    ).data!.data;
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
    const edit = await app.api.PATCH("/api/v1/apps/api/orders/{id}", {
      params: { path: { id: o.id } },
      body: {
        note: "Shipped by ShipFast",
        tags: ["marketplace", "shipped"],
      },
    });
    assert.equal(edit.response.status, 200, text(edit));
    assert.equal(
      (
        await app.api.PATCH("/api/v1/apps/api/orders/{id}", {
          params: { path: { id: o.id } },
          body: { tags: ["marketplace", "shipped"] },
        })
      ).response.status,
      200,
    );
    assert.equal((await events("order.updated")).length, 1);
    assert.equal(
      (
        await app.api.PATCH("/api/v1/apps/api/orders/{id}", {
          params: { path: { id: o.id } },
          body: { shippingAddress: ADDRESS },
        })
      ).response.status,
      409,
    );

    // Security: a read-only token, another store's order, no token.
    const readOnly = await install(m, ["read_orders"], "Reader");
    const refused = await readOnly.api.POST("/api/v1/apps/api/orders/{id}/status", {
      params: { path: { id: o.id } },
      body: { status: "delivered" },
    });
    assert.equal(refused.response.status, 403);
    assert.equal(detailsOf(refused).requiredScope, "write_orders");
    assert.equal(
      (
        await readOnly.api.PATCH("/api/v1/apps/api/orders/{id}", {
          params: { path: { id: o.id } },
          body: { note: "x" },
        })
      ).response.status,
      403,
    );
    assert.equal(
      (
        await readOnly.api.POST("/api/v1/apps/api/orders", {
          body: {
            customerId: customer.id,
            lineItems: [{ productId: product.id, quantity: 1 }],
          },
        })
      ).response.status,
      403,
    );
    const elsewhere = await shop();
    const stranger = await install(elsewhere.m, ["read_orders", "write_orders"]);
    assert.equal(
      (
        await stranger.api.POST("/api/v1/apps/api/orders/{id}/status", {
          params: { path: { id: o.id } },
          body: { status: "delivered" },
        })
      ).response.status,
      404,
    );
    assert.equal(
      (
        await stranger.api.PATCH("/api/v1/apps/api/orders/{id}", {
          params: { path: { id: o.id } },
          body: { note: "x" },
        })
      ).response.status,
      404,
    );
    const foreignLines = await stranger.api.POST("/api/v1/apps/api/orders", {
      body: {
        customerId: customer.id,
        lineItems: [{ productId: elsewhere.product.id, quantity: 1 }],
      },
    });
    assert.equal(foreignLines.response.status, 400, "another store's customer");
    const foreignProduct = await stranger.api.POST("/api/v1/apps/api/orders", {
      body: {
        customerId: elsewhere.customer.id,
        lineItems: [{ productId: product.id, quantity: 1 }],
      },
    });
    assert.equal(foreignProduct.response.status, 400, "another store's product");
    assert.equal(
      (
        await apiClient(ctx.app).POST("/api/v1/apps/api/orders/{id}/status", {
          params: { path: { id: o.id } },
          body: { status: "delivered" },
        })
      ).response.status,
      401,
    );
  });

  it("Admin API customers: create and update with addresses, note and tags; customer.updated; write_customers required", async () => {
    const { m, events } = await shop();
    const app = await install(m, ["read_customers", "write_customers"], "CRM Sync");
    const created = await app.api.POST("/api/v1/apps/api/customers", {
      body: {
        email: "grace@example.com",
        firstName: "Grace",
        lastName: "Hopper",
        addresses: [ADDRESS],
        tags: ["crm"],
        metadata: { crmId: "C-1" },
      },
    });
    assert.equal(created.response.status, 201, text(created));
    assert.deepEqual(
      [created.data!.data.defaultAddress!.city, created.data!.data.metadata],
      ["Riyadh", { crmId: "C-1" }],
    );
    const id = created.data!.data.id;
    const updated = await app.api.PATCH("/api/v1/apps/api/customers/{id}", {
      params: { path: { id } },
      body: {
        phone: "+966 55 000 1111",
        note: "Met at the fair",
      },
    });
    assert.equal(updated.response.status, 200);
    assert.equal((await events("customer.updated")).length, 1);
    assert.equal(
      (
        await app.api.PATCH("/api/v1/apps/api/customers/{id}", {
          params: { path: { id } },
          body: { phone: "+966 55 000 1111" },
        })
      ).response.status,
      200,
    );
    assert.equal((await events("customer.updated")).length, 1, "a no-op emits nothing");
    assert.equal(
      (
        await app.api.POST("/api/v1/apps/api/customers", {
          body: { email: "GRACE@example.com", firstName: "G" },
        })
      ).response.status,
      409,
    );
    const reader = await install(m, ["read_customers"]);
    assert.equal(
      (
        await reader.api.PATCH("/api/v1/apps/api/customers/{id}", {
          params: { path: { id } },
          body: { note: "x" },
        })
      ).response.status,
      403,
    );
    assert.equal(
      (
        await reader.api.POST("/api/v1/apps/api/customers", {
          body: { email: "r@example.com", firstName: "R" },
        })
      ).response.status,
      403,
    );
    const other = await shop();
    const stranger = await install(other.m, ["read_customers", "write_customers"]);
    assert.equal(
      (
        await stranger.api.PATCH("/api/v1/apps/api/customers/{id}", {
          params: { path: { id } },
          body: { note: "x" },
        })
      ).response.status,
      404,
    );
    assert.equal(
      (await stranger.api.GET("/api/v1/apps/api/customers/{id}", { params: { path: { id } } })).response
        .status,
      404,
    );
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
      await erp.api.POST("/api/v1/apps/api/orders", {
        body: {
          customerId: customer.id,
          lineItems: [{ productId: product.id, quantity: 1 }],
          metadata: { erpId: "SO-1" },
        },
      })
    ).data!.data;

    const key = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
      params: { path: { slug: m.slug } },
      body: {
        name: "k",
        scopes: ["read_orders", "read_customers", "read_products"],
      },
    });
    const dev = spec.watch(
      apiClient(ctx.app, {
        headers: { "x-api-key": key.data!.data.keyId, "x-api-secret": key.data!.data.secret },
      }),
    );
    type Metadata = NonNullable<RequestBody<"/api/v1/apps/api/orders/{id}", "patch">["metadata"]>;
    // Each resource's operations, by the paths the document gives them.
    const resources = [
      {
        path: "products",
        id: product.id,
        get: (api: Api) =>
          api.GET("/api/v1/apps/api/products/{id}", { params: { path: { id: product.id } } }),
        patch: (api: Api, metadata: Metadata) =>
          api.PATCH("/api/v1/apps/api/products/{id}", {
            params: { path: { id: product.id } },
            body: { metadata },
          }),
        list: (api: Api) => api.GET("/api/v1/apps/api/products"),
        dashboard: () =>
          m.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
            params: { path: { slug: m.slug, id: product.id } },
          }),
        appData: (merchant: Merchant) =>
          merchant.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}/app-data", {
            params: { path: { slug: merchant.slug, id: product.id } },
          }),
        developer: () => dev.GET("/api/v1/developer/products/{id}", { params: { path: { id: product.id } } }),
      },
      {
        path: "orders",
        id: order.id,
        get: (api: Api) => api.GET("/api/v1/apps/api/orders/{id}", { params: { path: { id: order.id } } }),
        patch: (api: Api, metadata: Metadata) =>
          api.PATCH("/api/v1/apps/api/orders/{id}", {
            params: { path: { id: order.id } },
            body: { metadata },
          }),
        list: (api: Api) => api.GET("/api/v1/apps/api/orders"),
        dashboard: () =>
          m.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", {
            params: { path: { slug: m.slug, id: order.id } },
          }),
        appData: (merchant: Merchant) =>
          merchant.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/app-data", {
            params: { path: { slug: merchant.slug, id: order.id } },
          }),
        developer: () => dev.GET("/api/v1/developer/orders/{id}", { params: { path: { id: order.id } } }),
      },
      {
        path: "customers",
        id: customer.id,
        get: (api: Api) =>
          api.GET("/api/v1/apps/api/customers/{id}", { params: { path: { id: customer.id } } }),
        patch: (api: Api, metadata: Metadata) =>
          api.PATCH("/api/v1/apps/api/customers/{id}", {
            params: { path: { id: customer.id } },
            body: { metadata },
          }),
        list: (api: Api) => api.GET("/api/v1/apps/api/customers"),
        dashboard: () =>
          m.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}", {
            params: { path: { slug: m.slug, id: customer.id } },
          }),
        appData: (merchant: Merchant) =>
          merchant.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}/app-data", {
            params: { path: { slug: merchant.slug, id: customer.id } },
          }),
        developer: () =>
          dev.GET("/api/v1/developer/customers/{id}", { params: { path: { id: customer.id } } }),
      },
    ];
    for (const { path, id, get, patch, list: listOf, dashboard, appData: appDataOf } of resources) {
      const mine = await patch(erp.api, { erpId: `E-${path}`, note: "internal" });
      assert.equal(mine.response.status, 200, `${path}: ${text(mine)}`);
      assert.deepEqual(mine.data!.data.metadata, { erpId: `E-${path}`, note: "internal" });
      const theirs = await patch(crm.api, { erpId: "CRM-OWN" });
      assert.deepEqual(
        theirs.data!.data.metadata,
        { erpId: "CRM-OWN" },
        `${path}: the same key is another app's own`,
      );
      assert.deepEqual(
        (await get(crm.api)).data!.data.metadata,
        { erpId: "CRM-OWN" },
        `${path}: never the other app's`,
      );
      assert.deepEqual((await get(erp.api)).data!.data.metadata, {
        erpId: `E-${path}`,
        note: "internal",
      });
      // null removes; the other app's pairs stay.
      assert.deepEqual((await patch(erp.api, { note: null })).data!.data.metadata, {
        erpId: `E-${path}`,
      });
      assert.deepEqual((await get(crm.api)).data!.data.metadata, { erpId: "CRM-OWN" });
      const list: Array<{ id: string; metadata?: unknown }> = (await listOf(crm.api)).data!.data;
      assert.deepEqual(list.find((r) => r.id === id)!.metadata, { erpId: "CRM-OWN" }, `${path}: lists too`);
      // Never in the dashboard's or a key pair's answers: a field the dashboard's document does not
      // have, read on purpose.
      assert.equal(((await dashboard()).data!.data as Json).metadata, undefined);
      const appData = await appDataOf(m);
      assert.equal(appData.response.status, 200);
      assert.deepEqual(
        appData.data!.data.map((a) => [a.app.name, a.app.installed, a.metadata]),
        [
          ["CRM", true, { erpId: "CRM-OWN" }],
          ["ERP Sync", true, { erpId: `E-${path}` }],
        ],
      );
      const stranger = await merchantWithStore(ctx.app);
      assert.equal((await appDataOf(stranger)).response.status, 404);
    }
    for (const { developer } of resources)
      assert.doesNotMatch(text(await developer()), /CRM-OWN|E-orders|metadata/);

    // Bounds: keys, values, count (counting what the app already keeps), with words.
    // Metadata the document's types allow but the service bounds, and a value that is no string.
    const bounds: Array<[Json, string]> = [
      [{ ["k".repeat(41)]: "v" }, "metadata"],
      [{ "has space": "v" }, "metadata"],
      [{ k: "v".repeat(501) }, "metadata.k"],
      [{ k: 12 }, "metadata.k"],
      [Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])), "metadata"],
    ];
    for (const [metadata, field] of bounds) {
      const res = await erp.api.PATCH("/api/v1/apps/api/orders/{id}", {
        params: { path: { id: order.id } },
        body: { metadata },
      });
      assert.equal(res.response.status, 400, JSON.stringify(metadata).slice(0, 80));
      assert.equal(res.error!.error.code, "VALIDATION_FAILED");
      assert.ok(
        fieldErrors(res).some((d) => d.field === field),
        JSON.stringify(fieldErrors(res)),
      );
    }
    const fortyNine = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, "v"]));
    assert.equal(
      (
        await erp.api.PATCH("/api/v1/apps/api/orders/{id}", {
          params: { path: { id: order.id } },
          body: { metadata: fortyNine },
        })
      ).response.status,
      200,
      "49 + erpId = 50",
    );
    const over = await erp.api.PATCH("/api/v1/apps/api/orders/{id}", {
      params: { path: { id: order.id } },
      body: { metadata: { oneMore: "v" } },
    });
    assert.equal(over.response.status, 400);
    assert.equal(fieldErrors(over)[0]!.field, "metadata");
    assert.match(fieldErrors(over)[0]!.message, /51 keys; at most 50/);
    assert.equal(
      (
        await crm.api.PATCH("/api/v1/apps/api/orders/{id}", {
          params: { path: { id: order.id } },
          body: { metadata: { oneMore: "v" } },
        })
      ).response.status,
      200,
      "the other app's 50 do not count",
    );

    // The dashboard cannot write metadata (the merchant has no namespace).
    assert.equal(
      (
        await m.client.PATCH("/api/v1/dashboard/stores/{slug}/orders/{id}", {
          params: { path: { slug: m.slug, id: order.id } },
          body: { metadata: { x: "y" } },
        })
      ).response.status,
      400,
    );
    // On a variant too: each app keeps its own pairs (its SKU in its system, a listing id), sees
    // only them in the product's answers, and the developer API and the dashboard see none.
    const variantId = product.variants[0]!.id;
    const variantPath = { params: { path: { id: product.id, variantId } } };
    const erpVariant = await erp.api.PATCH("/api/v1/apps/api/products/{id}/variants/{variantId}", {
      ...variantPath,
      body: { metadata: { erpItem: "IT-77" } },
    });
    assert.equal(erpVariant.response.status, 200, text(erpVariant));
    assert.deepEqual(erpVariant.data!.data.metadata, { erpItem: "IT-77" });
    const crmVariant = await crm.api.PATCH("/api/v1/apps/api/products/{id}/variants/{variantId}", {
      ...variantPath,
      body: { metadata: { listing: "L-1" }, barcode: "4006381333931" },
    });
    assert.deepEqual(crmVariant.data!.data.metadata, { listing: "L-1" });
    const erpProduct = await erp.api.GET("/api/v1/apps/api/products/{id}", {
      params: { path: { id: product.id } },
    });
    assert.deepEqual(erpProduct.data!.data.variants[0]!.metadata, { erpItem: "IT-77" });
    assert.equal(erpProduct.data!.data.variants[0]!.barcode, "4006381333931");
    const removed = await erp.api.PATCH("/api/v1/apps/api/products/{id}/variants/{variantId}", {
      ...variantPath,
      body: { metadata: { erpItem: null } },
    });
    assert.deepEqual(removed.data!.data.metadata, {});
    const crmProduct = await crm.api.GET("/api/v1/apps/api/products/{id}", {
      params: { path: { id: product.id } },
    });
    assert.deepEqual(crmProduct.data!.data.variants[0]!.metadata, { listing: "L-1" });
    const merchantView = await m.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { slug: m.slug, id: product.id } },
    });
    assert.equal("metadata" in merchantView.data!.data.variants[0]!, false);
    const devView = await dev.GET("/api/v1/developer/products/{id}", {
      params: { path: { id: product.id } },
    });
    assert.equal("metadata" in devView.data!.data.variants[0]!, false);
    const tooMany = await erp.api.PATCH("/api/v1/apps/api/products/{id}/variants/{variantId}", {
      ...variantPath,
      body: {
        metadata: Object.fromEntries(
          Array.from({ length: METADATA_LIMITS.keys + 1 }, (_, i) => [`k${i}`, "v"]),
        ),
      },
    });
    assert.equal(tooMany.response.status, 400);
    // An uninstalled app's pairs stay, and the merchant sees it is not installed.
    await m.client.DELETE("/api/v1/dashboard/stores/{slug}/installations/{clientId}", {
      params: { path: { slug: m.slug, clientId: crm.clientId } },
    });
    const afterUninstall = (
      await m.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/app-data", {
        params: { path: { slug: m.slug, id: order.id } },
      })
    ).data!.data;
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
    const scopes: Scope[] = ["read_orders", "write_orders"];
    const [a, b] = [await install(m, scopes, "A"), await install(m, scopes, "B")];
    const order = (
      await a.api.POST("/api/v1/apps/api/orders", {
        body: {
          customerId: customer.id,
          lineItems: [{ productId: product.id, quantity: 1 }],
        },
      })
    ).data!.data;
    const writes = Array.from({ length: 10 }, (_, i) => [
      a.api.PATCH("/api/v1/apps/api/orders/{id}", {
        params: { path: { id: order.id } },
        body: { metadata: { [`a${i}`]: "x" } },
      }),
      b.api.PATCH("/api/v1/apps/api/orders/{id}", {
        params: { path: { id: order.id } },
        body: { metadata: { [`b${i}`]: "y" } },
      }),
    ]).flat();
    for (const res of await Promise.all(writes)) assert.equal(res.response.status, 200, text(res));
    assert.equal(
      Object.keys(
        (await a.api.GET("/api/v1/apps/api/orders/{id}", { params: { path: { id: order.id } } })).data!.data
          .metadata!,
      ).length,
      10,
      "no write of A was lost",
    );
    assert.equal(
      Object.keys(
        (await b.api.GET("/api/v1/apps/api/orders/{id}", { params: { path: { id: order.id } } })).data!.data
          .metadata!,
      ).length,
      10,
      "no write of B was lost",
    );
    assert.equal((await events("order.updated")).length, 20);

    const placed = await Promise.all(
      Array.from({ length: 10 }, () =>
        a.api.POST("/api/v1/apps/api/orders", {
          body: {
            customer: { email: "new.buyer@example.com", firstName: "New" },
            lineItems: [{ productId: product.id, quantity: 1 }],
          },
        }),
      ),
    );
    for (const res of placed) assert.equal(res.response.status, 201, text(res));
    assert.equal(
      new Set(placed.map((r) => r.data!.data.customerId)).size,
      1,
      "one customer for the ten orders",
    );
    assert.equal(
      (await events("customer.created")).filter((e) => e.payload.email === "new.buyer@example.com").length,
      1,
    );
  });

  it("webhook bodies and listen streams carry the receiving app's own metadata only", async () => {
    const { m, product, customer } = await shop();
    const scopes: Scope[] = ["read_orders", "write_orders", "read_products", "manage_webhooks"];
    const a = await install(m, scopes, "Shipper A");
    const b = await install(m, scopes, "Shipper B");
    for (const [app, path] of [
      [a, "a"],
      [b, "b"],
    ] as const)
      for (const eventName of ["order.paid", "order.updated", "product.updated"] as const)
        assert.equal(
          (
            await app.api.POST("/api/v1/apps/api/webhooks", {
              body: { eventName, targetUrl: `${rx.url}/meta-${path}` },
            })
          ).response.status,
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
      await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: m.slug } },
        body: {
          customerId: customer.id,
          lineItems: [{ productId: product.id, quantity: 1 }],
        },
      })
    ).data!.data;
    assert.equal(
      (
        await a.api.PATCH("/api/v1/apps/api/orders/{id}", {
          params: { path: { id: order.id } },
          body: { metadata: { shipmentId: "A-77" } },
        })
      ).response.status,
      200,
    );
    assert.equal(
      (
        await m.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
          params: { path: { slug: m.slug, id: order.id } },
          body: { status: "paid" },
        })
      ).response.status,
      200,
    );

    const bodies = <E extends EventName>(path: string, event: E) =>
      rx.received
        .filter((r) => r.path === `/meta-${path}` && r.headers["x-webhook-event"] === event)
        .map((r) => JSON.parse(r.body) as EventBody<E>);
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
    const paid = (await outboxOf(ctx.platform, "order.paid", m.store.id))[0]!;
    assert.equal(paid.payload.metadata, undefined);

    // The same for listen streams.
    const streamed = async (s: (typeof streams)[number]) => {
      for (;;) {
        const { value, done } = await s.messages.next();
        if (done) throw new Error("stream ended");
        const message = value;
        if (message.type === "webhook" && message.event === "order.paid")
          return JSON.parse(message.body) as EventBody<"order.paid">;
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
    const subscribe = (eventName: RequestBody<"/api/v1/apps/api/webhooks", "post">["eventName"]) =>
      app.api.POST("/api/v1/apps/api/webhooks", { body: { eventName, targetUrl: `${rx.url}/ev` } });
    assert.equal(detailsOf(await subscribe("order.updated")).requiredScope, "read_orders");
    assert.equal(detailsOf(await subscribe("customer.updated")).requiredScope, "read_customers");
    assert.equal((await subscribe("shop.updated")).response.status, 201);
    const test = await app.api.POST("/api/v1/apps/api/webhooks/test", { body: { event: "shop.updated" } });
    assert.equal(test.response.status, 202, text(test));
    const store = await app.api.GET("/api/v1/apps/api/store");
    assert.equal(store.response.status, 200, "the store needs no scope");
    assert.equal(store.data!.data.slug, m.slug);
    await m.client.PATCH("/api/v1/dashboard/stores/{slug}", {
      params: { path: { slug: m.slug } },
      body: { timeZone: "Europe/Berlin" },
    });
    assert.equal(
      (await app.api.GET("/api/v1/apps/api/store")).data!.data.timeZone,
      "Europe/Berlin",
      "read fresh, not from a cache",
    );
  });

  it("developer API: orders and customers page by page with the store's totals, one by id, under their read scopes", async () => {
    const { m, product, customer } = await shop();
    for (let i = 0; i < 3; i++)
      await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: m.slug } },
        body: {
          customerId: customer.id,
          lineItems: [{ productId: product.id, quantity: 1 }],
        },
      });
    const keyOf = async (scopes: KeyScope[]) => {
      const key = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: m.slug } },
        body: { name: "k", scopes },
      });
      return spec.watch(
        apiClient(ctx.app, {
          headers: { "x-api-key": key.data!.data.keyId, "x-api-secret": key.data!.data.secret },
        }),
      );
    };
    const orders = await keyOf(["read_orders"]);
    const page = await orders.GET("/api/v1/developer/orders", { params: { query: { page: 2, perPage: 2 } } });
    assert.equal(page.response.status, 200, text(page));
    assert.deepEqual(page.data!.meta, { page: 2, perPage: 2, total: 3, totalPages: 2 });
    assert.equal(page.data!.data.length, 1);
    const one = await orders.GET("/api/v1/developer/orders/{id}", {
      params: { path: { id: page.data!.data[0]!.id } },
    });
    assert.deepEqual(
      [one.data!.data.number, one.data!.data.name, one.data!.data.shippingAddress!.city],
      [1001, "#1001", "Riyadh"],
    );
    assert.equal((await orders.GET("/api/v1/developer/customers")).response.status, 403);
    assert.equal(
      (await orders.GET("/api/v1/developer/orders", { params: { query: { perPage: 101 } } })).response.status,
      400,
    );
    assert.equal(
      fieldErrors(
        await orders.GET("/api/v1/developer/orders", { params: { query: { page: 101, perPage: 100 } } }),
      )[0]!.field,
      "page",
    );
    const customers = await keyOf(["read_customers"]);
    const list = await customers.GET("/api/v1/developer/customers");
    assert.deepEqual(list.data!.meta, { page: 1, perPage: 20, total: 1, totalPages: 1 });
    assert.equal(list.data!.data[0]!.defaultAddress!.city, "Riyadh");
    assert.equal(
      (await customers.GET("/api/v1/developer/customers/{id}", { params: { path: { id: customer.id } } }))
        .data!.data.email,
      "layla@example.com",
    );
    assert.equal((await customers.GET("/api/v1/developer/orders")).response.status, 403);
    const other = await merchantWithStore(ctx.app);
    const otherKey = await other.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
      params: { path: { slug: other.slug } },
      body: {
        name: "k",
        scopes: ["read_orders", "read_customers"],
      },
    });
    const stranger = apiClient(ctx.app, {
      headers: {
        "x-api-key": otherKey.data!.data.keyId,
        "x-api-secret": otherKey.data!.data.secret,
      },
    });
    assert.equal(
      (await stranger.GET("/api/v1/developer/customers/{id}", { params: { path: { id: customer.id } } }))
        .response.status,
      404,
    );
    assert.equal(
      (await stranger.GET("/api/v1/developer/orders/{id}", { params: { path: { id: one.data!.data.id } } }))
        .response.status,
      404,
    );
    assert.equal((await stranger.GET("/api/v1/developer/orders")).data!.meta.total, 0);

    // Totals come from the kept counts (a few rows), not a count over the store: bulk rows are
    // counted by the triggers, and the answer is what the counts say.
    const db = ctx.platform.db;
    await sql`
      INSERT INTO customers (store_id, id, email, first_name)
      SELECT ${m.store.id}, 'cus_' || lpad(i::text, 22, '0'), 'bulk' || i || '@example.com', 'Bulk'
        FROM generate_series(1, 2500) AS i`.execute(db);
    assert.equal(
      (await customers.GET("/api/v1/developer/customers", { params: { query: { perPage: 1 } } })).data!.meta
        .total,
      2501,
    );
    await sql`DELETE FROM customers WHERE store_id = ${m.store.id} AND email LIKE 'bulk%' AND email <> 'bulk1@example.com'`.execute(
      db,
    );
    assert.equal(
      (await customers.GET("/api/v1/developer/customers", { params: { query: { perPage: 1 } } })).data!.meta
        .total,
      2,
    );
    await sql`UPDATE store_row_counts SET n = n + 1000 WHERE store_id = ${m.store.id} AND resource = 'orders' AND slot = (SELECT min(slot) FROM store_row_counts WHERE store_id = ${m.store.id} AND resource = 'orders')`.execute(
      db,
    );
    assert.equal(
      (await orders.GET("/api/v1/developer/orders", { params: { query: { perPage: 1 } } })).data!.meta.total,
      1003,
      "read from the counts",
    );
  });
});
