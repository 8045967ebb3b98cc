import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import pg from "pg";
import { sha256Hex } from "../src/lib/crypto.ts";
import { createSecretBox } from "../src/lib/secret-box.ts";
import { parseSecretsKey } from "../src/lib/secrets-key.ts";
import { responseSealingKey } from "../src/modules/idempotency/idempotency-fingerprint.ts";
import { createDeliveryLogRepo } from "../src/modules/webhooks/deliveries-repo.ts";
import { createDeliveryRepo } from "../src/modules/webhooks/delivery/delivery-repo.ts";
import { consent, exchange, REDIRECT, registerApp } from "./apps-harness.ts";
import {
  type Answer,
  type Api,
  apiClient,
  createTestContext,
  type EventBody,
  type EventData,
  fieldErrors,
  type Json,
  merchantWithStore,
  type RequestBody,
  type ResponseData,
  type Scope,
  TEST_DATABASE_URL,
  type TestContext,
  text,
} from "./harness.ts";

/** An address as the API takes it. */
type Address = NonNullable<RequestBody<"/api/v1/apps/api/orders", "post">["shippingAddress"]>;

import { flat } from "./catalogue.ts";
import { startReceiver } from "./receiver.ts";
import { createWebhookContext, waitUntil } from "./webhooks-harness.ts";

/**
 * Issue 27, item 2: an erasure is complete. After the merchant deletes a customer, their e-mail
 * address, name, phone and street are in no answer of any API (Admin API, developer keys, bulk
 * export, the event feed, also to an app installed afterwards, the delivery logs, the dashboard's
 * pages), in nothing a redelivery or a recover sends, in no idempotent replay, and in no column of
 * any table of the database (the sealed idempotent answers opened with the client's own key too).
 * Real HTTPS receivers that echo each body back (so the attempt log would hold a copy), on the
 * real worker; 3 attempts 50 ms apart, so a failing subscription fails to exhaustion quickly.
 */

const SECRETS_KEY = randomBytes(32).toString("base64");
const SCOPES: Scope[] = [
  "read_products",
  "write_products",
  "read_customers",
  "write_customers",
  "read_orders",
  "write_orders",
  "manage_webhooks",
];

/** A person whose every detail is a string found nowhere else in the store. */
function person(tag: string) {
  const t = tag.toLowerCase();
  return {
    email: `xanthippe.${t}quartermain@example.org`,
    firstName: `Xanthippe${tag}`,
    lastName: `Quartermain${tag}`,
    phone: `+966 50 ${tag.length}${"7".repeat(6)}`,
    street: `Zwyxqv${tag} Lane 77`,
  };
}
type Person = ReturnType<typeof person>;
const needlesOf = (p: Person) => [p.email, p.firstName, p.lastName, p.phone, p.street];

/** The needles `text` contains (case-insensitively: the e-mail address holds the names in lower case). */
function hits(text: string, needles: readonly string[]): string[] {
  const lower = text.toLowerCase();
  return needles.filter((n) => lower.includes(n.toLowerCase()));
}

function assertClean(what: string, text: string, needles: readonly string[]) {
  assert.deepEqual(hits(text, needles), [], `${what} still holds the erased person: ${text.slice(0, 2000)}`);
}

/** Every text, JSON or array column of every table of the test's schema holding any needle. */
async function databaseHits(ctx: TestContext, needles: readonly string[]): Promise<string[]> {
  const { rows: columns } = await sql<{ table_name: string; column_name: string }>`
    SELECT c.table_name, c.column_name
      FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
     WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
       AND c.data_type IN ('text', 'jsonb', 'json', 'character varying', 'ARRAY')
     ORDER BY c.table_name, c.column_name`.execute(ctx.platform.db);
  assert.ok(columns.length > 40, `the scan reads the schema's columns (${columns.length})`);
  const patterns = needles.map((n) => `%${n}%`);
  const found: string[] = [];
  for (const { table_name, column_name } of columns) {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.table(table_name)}
       WHERE ${sql.ref(column_name)}::text ILIKE ANY (${patterns}::text[])`.execute(ctx.platform.db);
    if (Number(rows[0]!.n) > 0) found.push(`${table_name}.${column_name}`);
  }
  return found;
}

/**
 * The stored idempotent answers of `key`, opened as only its holder can (the client's key and the
 * service's secrets key): every sealed column of the row, each one's plaintext.
 */
async function openedAnswers(ctx: TestContext, key: string): Promise<string[]> {
  const rows = await ctx.platform.db
    .selectFrom("idempotency_keys")
    .selectAll()
    .where("key_hash", "=", sha256Hex(key))
    .execute();
  assert.equal(rows.length, 1, "the key's row is kept");
  const row = rows[0]! as unknown as Record<string, unknown>;
  const box = createSecretBox(responseSealingKey(parseSecretsKey(SECRETS_KEY), String(row.scope), key));
  const opened: string[] = [];
  for (const value of Object.values(row)) {
    if (typeof value !== "string" || !value.startsWith("v1.")) continue;
    opened.push(box.open(value));
  }
  assert.ok(opened.length >= 1, "the answer is stored sealed");
  return opened;
}

type Ctx = Awaited<ReturnType<typeof createWebhookContext>>;

describe("erasure: a deleted customer's personal data is nowhere", () => {
  let ctx: Ctx;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  /** While true, "/failing" answers 500. */
  let failing = true;
  /** "/slow" answers once this resolves (an attempt kept on the wire). */
  let slowGate: Promise<void> = Promise.resolve();

  before(async () => {
    ctx = await createWebhookContext({
      SECRETS_KEY,
      WEBHOOK_MAX_ATTEMPTS: "3",
      WEBHOOK_RETRY_BASE_MS: "50",
      RATE_LIMIT_PER_MINUTE: "10000",
      ACCESS_TOKEN_CACHE_MS: "0",
    });
    // Every receiver echoes the body it got: an attempt log that keeps answers keeps a copy.
    rx = await startReceiver((r, res) => {
      const answer = () => {
        res.writeHead(failing && r.path === "/failing" ? 500 : 200, { "content-type": "application/json" });
        res.end(r.body);
      };
      if (r.path === "/slow") void slowGate.then(answer);
      else answer();
    });
  });
  after(async () => {
    await rx.close();
    await ctx.close();
  });

  /** Registers an app with SCOPES and installs it in `merchant`'s store: its Admin API client. */
  async function install(merchant: Awaited<ReturnType<typeof merchantWithStore>>, name: string) {
    const registered = await registerApp(ctx.app, SCOPES, name);
    const { code } = await consent(merchant, registered.clientId, SCOPES);
    const tokens = await exchange(ctx.app, {
      slug: merchant.slug,
      code,
      redirectUri: REDIRECT,
      clientId: registered.clientId,
      clientSecret: registered.clientSecret,
    });
    assert.equal(tokens.response.status, 200, text(tokens));
    return {
      ...registered,
      api: apiClient(ctx.app, { headers: { authorization: `Bearer ${tokens.data!.data.accessToken}` } }),
    };
  }

  async function subscribe(
    api: Api,
    eventName: RequestBody<"/api/v1/apps/api/webhooks", "post">["eventName"],
    path: string,
    fields?: string[],
  ) {
    const res = await api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName,
        targetUrl: `${rx.url}${path}`,
        ...(fields ? { fields } : {}),
      },
    });
    assert.equal(res.response.status, 201, text(res));
    return res.data!.data.id;
  }

  /** Every event of the store dispatched and every delivery finished (delivered or failed). */
  async function settled(storeId: string) {
    const pending = await ctx.platform.db
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("store_id", "=", storeId)
      .where("status", "=", "pending")
      .execute();
    const undispatched = await ctx.platform.db
      .selectFrom("events")
      .select("id")
      .where("store_id", "=", storeId)
      .where("dispatched_at", "is", null)
      .execute();
    return pending.length === 0 && undispatched.length === 0;
  }

  /** The whole event feed as `api` reads it, page after page. */
  async function feed(api: Api): Promise<string> {
    let after = "0";
    let all = "";
    for (let page = 0; page < 50; page++) {
      const res = await api.GET("/api/v1/apps/api/events", {
        params: { query: { after, limit: 100 } },
      });
      assert.equal(res.response.status, 200, text(res));
      all += text(res);
      if (!res.data!.meta.hasMore) return all;
      after = res.data!.meta.nextCursor;
    }
    throw new Error("the feed did not end");
  }

  const ok = (res: Answer, what: string, status = 200) => {
    assert.equal(res.response.status, status, `${what}: ${text(res).slice(0, 500)}`);
    return text(res);
  };

  it("a customer with orders: every API, redelivery, recover, replay and table is clean after the deletion", async () => {
    const p = person("Ab");
    const needles = needlesOf(p);
    const merchant = await merchantWithStore(ctx.app);
    const storeId = merchant.store.id;
    const app = await install(merchant, "Mirror CRM");
    await subscribe(app.api, "customer.created", "/hooks");
    await subscribe(app.api, "customer.updated", "/hooks");
    await subscribe(app.api, "order.created", "/hooks");
    await subscribe(app.api, "order.shipped", "/hooks");
    await subscribe(app.api, "order.updated", "/hooks");
    // A field list keeps only some of `data`: the stored body is a partial customer.
    await subscribe(app.api, "customer.updated", "/partial", ["email", "phone"]);
    // Fails to exhaustion before the erasure; recovered after it.
    const failingSub = await subscribe(app.api, "customer.created", "/failing");

    const address: Address = {
      name: `${p.firstName} ${p.lastName}`,
      company: `${p.lastName} Trading`,
      line1: p.street,
      line2: `c/o ${p.firstName}`,
      city: "Riyadh",
      region: "Riyadh Province",
      postalCode: "12271",
      country: "SA",
      phone: p.phone,
    };
    const product = await app.api.POST("/api/v1/apps/api/products", {
      body: flat({ title: "Mug", price: "12.00", stock: 50 }),
    });
    assert.equal(product.response.status, 201, text(product));

    // The customer, created by the app with an idempotency key, with its own metadata on them.
    const customerKey = `erase-${randomUUID()}`;
    const customerBody: RequestBody<"/api/v1/apps/api/customers", "post"> = {
      email: p.email,
      firstName: p.firstName,
      lastName: p.lastName,
      phone: p.phone,
      addresses: [address],
      note: `Call ${p.firstName} first`,
      tags: [`vip-${p.lastName}`],
      metadata: { crmName: `${p.firstName} ${p.lastName}` },
    };
    const created = await app.api.POST("/api/v1/apps/api/customers", {
      body: customerBody,
      headers: { "idempotency-key": customerKey },
    });
    assert.equal(created.response.status, 201, text(created));
    const customerId = created.data!.data.id;
    const patched = await app.api.PATCH("/api/v1/apps/api/customers/{id}", {
      params: { path: { id: customerId } },
      body: { note: `Ask for ${p.lastName}` },
    });
    assert.equal(patched.response.status, 200, text(patched));

    // An order through the Admin API with an idempotency key and its own shipping address, shipped
    // with tracking; another from the dashboard, shipping to the customer's default address.
    const orderKey = `erase-${randomUUID()}`;
    const orderBody: RequestBody<"/api/v1/apps/api/orders", "post"> = {
      customerId,
      lineItems: [{ productId: product.data!.data.id, quantity: 2 }],
      shippingAddress: address,
      note: `Leave with ${p.firstName}'s neighbour`,
      metadata: { erpId: "ERP-1" },
    };
    const order = await app.api.POST("/api/v1/apps/api/orders", {
      body: orderBody,
      headers: { "idempotency-key": orderKey },
    });
    assert.equal(order.response.status, 201, text(order));
    const orderId = order.data!.data.id;
    for (const status of ["paid", "confirmed"] as const)
      ok(
        await app.api.POST("/api/v1/apps/api/orders/{id}/status", {
          params: { path: { id: orderId } },
          body: { status },
        }),
        status,
      );
    ok(
      await app.api.POST("/api/v1/apps/api/orders/{id}/status", {
        params: { path: { id: orderId } },
        body: {
          status: "shipped",
          fulfillment: {
            carrier: "DHL Express",
            trackingNumber: "TRK-77",
            trackingUrl: "https://t.example/77",
          },
        },
      }),
      "shipped",
    );
    const second = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: merchant.slug } },
      body: {
        customerId,
        lineItems: [{ productId: product.data!.data.id, quantity: 1 }],
      },
    });
    assert.equal(second.response.status, 201, text(second));
    assert.equal(second.data!.data.shippingAddress!.line1, p.street, "the default address was copied");
    ok(
      await app.api.PATCH("/api/v1/apps/api/orders/{id}", {
        params: { path: { id: second.data!.data.id } },
        body: { note: `For ${p.firstName}` },
      }),
      "order note",
    );

    await waitUntil(() => settled(storeId), 30_000, "every delivery finished before the erasure");
    const before = await ctx.platform.db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("store_id", "=", storeId)
      .execute();
    assert.ok(
      before.some((d) => d.subscription_id === failingSub && d.status === "failed"),
      "the failing subscription's delivery failed",
    );
    const delivered = before.find((d) => d.event_name === "customer.created" && d.status === "delivered")!;
    assert.ok(delivered, "customer.created was delivered");
    // The precondition of every check below: the person is everywhere now.
    assert.ok(hits(delivered.body, needles).length === needles.length, "the delivery carried them");
    assert.ok((await databaseHits(ctx, needles)).length > 5, "the database holds them before");

    // The merchant deletes the customer: anonymised (they have orders).
    const removed = await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: merchant.slug, id: customerId } },
    });
    assert.equal(removed.response.status, 200, text(removed));
    assert.equal(removed.data!.data.outcome, "anonymized");

    // Redeliver a delivery made before the erasure, and recover the failed one: what they send.
    const sentBefore = rx.received.length;
    ok(
      await app.api.POST("/api/v1/apps/api/webhooks/deliveries/{id}/redeliver", {
        params: { path: { id: delivered.id } },
      }),
      "redeliver",
      201,
    );
    failing = false;
    const recovered = await app.api.POST("/api/v1/apps/api/webhooks/{id}/recover", {
      params: { path: { id: failingSub } },
      body: {
        since: new Date(ctx.clock.now().getTime() - 3_600_000).toISOString(),
      },
    });
    assert.equal(recovered.response.status, 200, text(recovered));
    assert.equal(recovered.data!.data.queued, 1, "the failed delivery is recovered");
    await waitUntil(
      () =>
        rx.received.slice(sentBefore).filter((r) => r.path === "/hooks" || r.path === "/failing").length >= 2,
      20_000,
      "the redelivery and the recovery arrived",
    );
    await waitUntil(() => settled(storeId), 30_000, "every delivery finished after the erasure");
    for (const r of rx.received.slice(sentBefore))
      assertClean(`what ${r.path} received after`, r.body, needles);
    const resent = rx.received.slice(sentBefore).filter((r) => r.path === "/failing");
    assert.equal(resent.length, 1);
    assert.equal(
      (JSON.parse(resent[0]!.body) as EventBody<"customer.created">).data.email,
      `deleted-${customerId}@anonymized.invalid`,
    );

    // The idempotent replays: the same status, the answer without the person.
    const orderReplay = await app.api.POST("/api/v1/apps/api/orders", {
      body: orderBody,
      headers: { "idempotency-key": orderKey },
    });
    assert.equal(orderReplay.response.status, 201);
    assert.equal(orderReplay.response.headers.get("idempotency-replayed"), "true");
    assertClean("the order's replay", text(orderReplay), needles);
    assert.equal(orderReplay.data!.data.id, orderId);
    assert.deepEqual(
      [orderReplay.data!.data.shippingAddress!.city, orderReplay.data!.data.shippingAddress!.postalCode],
      ["Riyadh", "12271"],
      "what accounting keeps stays",
    );
    const customerReplay = await app.api.POST("/api/v1/apps/api/customers", {
      body: customerBody,
      headers: {
        "idempotency-key": customerKey,
      },
    });
    assert.equal(customerReplay.response.status, 201);
    assert.equal(customerReplay.response.headers.get("idempotency-replayed"), "true");
    assertClean("the customer's replay", text(customerReplay), needles);
    for (const k of [orderKey, customerKey])
      for (const opened of await openedAnswers(ctx, k))
        assertClean("a stored answer, opened", opened, needles);

    // Every API, as each reader sees it.
    const keyRes = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
      params: { path: { slug: merchant.slug } },
      body: {
        name: "Reader",
        scopes: ["read_customers", "read_orders"],
      },
    });
    assert.equal(keyRes.response.status, 201, text(keyRes));
    const developer = apiClient(ctx.app, {
      headers: {
        "x-api-key": keyRes.data!.data.keyId,
        "x-api-secret": keyRes.data!.data.secret,
      },
    });
    const later = await install(merchant, "Installed after");
    const texts: Array<[string, string]> = [];
    const read = async (what: string, call: () => Promise<Answer>) =>
      texts.push([what, ok(await call(), what)]);
    // An export is JSON Lines: read as text, which is what is checked.
    const lines = { parseAs: "text" } as const;
    const inStore = { slug: merchant.slug };
    for (const id of [orderId, second.data!.data.id]) {
      await read("admin order", () =>
        app.api.GET("/api/v1/apps/api/orders/{id}", { params: { path: { id } } }),
      );
      await read("developer order", () =>
        developer.GET("/api/v1/developer/orders/{id}", { params: { path: { id } } }),
      );
      await read("dashboard order", () =>
        merchant.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", {
          params: { path: { ...inStore, id } },
        }),
      );
      await read("dashboard order history", () =>
        merchant.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/history", {
          params: { path: { ...inStore, id } },
        }),
      );
      await read("dashboard order webhooks", () =>
        merchant.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/webhooks", {
          params: { path: { ...inStore, id } },
        }),
      );
    }
    await read("admin customer", () =>
      app.api.GET("/api/v1/apps/api/customers/{id}", { params: { path: { id: customerId } } }),
    );
    await read("admin customers", () =>
      app.api.GET("/api/v1/apps/api/customers", { params: { query: { limit: 250 } } }),
    );
    await read("admin orders", () =>
      app.api.GET("/api/v1/apps/api/orders", { params: { query: { limit: 250 } } }),
    );
    await read("admin orders of the customer", () =>
      app.api.GET("/api/v1/apps/api/orders", { params: { query: { customerId } } }),
    );
    await read("admin export orders", () => app.api.GET("/api/v1/apps/api/export/orders", lines));
    await read("admin export customers", () => app.api.GET("/api/v1/apps/api/export/customers", lines));
    await read("admin delivery log", () =>
      app.api.GET("/api/v1/apps/api/webhooks/deliveries", { params: { query: { limit: 100 } } }),
    );
    await read("developer customer", () =>
      developer.GET("/api/v1/developer/customers/{id}", { params: { path: { id: customerId } } }),
    );
    await read("developer customers", () =>
      developer.GET("/api/v1/developer/customers", { params: { query: { perPage: 100 } } }),
    );
    await read("developer orders", () =>
      developer.GET("/api/v1/developer/orders", { params: { query: { perPage: 100 } } }),
    );
    await read("developer export orders", () => developer.GET("/api/v1/developer/export/orders", lines));
    await read("developer export customers", () =>
      developer.GET("/api/v1/developer/export/customers", lines),
    );
    await read("dashboard customer", () =>
      merchant.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}", {
        params: { path: { ...inStore, id: customerId } },
      }),
    );
    await read("dashboard customer stats", () =>
      merchant.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}/stats", {
        params: { path: { ...inStore, id: customerId } },
      }),
    );
    await read("dashboard customers", () =>
      merchant.client.GET("/api/v1/dashboard/stores/{slug}/customers", { params: { path: inStore } }),
    );
    await read("dashboard orders", () =>
      merchant.client.GET("/api/v1/dashboard/stores/{slug}/orders", { params: { path: inStore } }),
    );
    await read("dashboard overview", () =>
      merchant.client.GET("/api/v1/dashboard/stores/{slug}/overview", { params: { path: inStore } }),
    );
    await read("dashboard data requests", () =>
      merchant.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}/data-requests", {
        params: { path: { ...inStore, id: customerId } },
      }),
    );
    await read("the app's delivery log", () =>
      app.dev.client.GET("/api/v1/dashboard/apps/{clientId}/deliveries", {
        params: { path: { clientId: app.clientId } },
      }),
    );
    // Searches for the person find nothing.
    for (const q of [p.firstName, p.email, p.lastName.toLowerCase()]) {
      const found = await merchant.client.GET("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: merchant.slug }, query: { q } },
      });
      assert.deepEqual(ok(found, "order search") && found.data!.data, [], `orders found by ${q}`);
      const people = await merchant.client.GET("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: merchant.slug }, query: { q } },
      });
      assert.deepEqual(ok(people, "customer search") && people.data!.data, [], `customers found by ${q}`);
    }
    texts.push(["the app's event feed", await feed(app.api)]);
    texts.push(["the feed of an app installed after", await feed(later.api)]);
    for (const [what, text] of texts) assertClean(what, text, needles);
    // What accounting keeps is still there.
    const kept = (await app.api.GET("/api/v1/apps/api/orders/{id}", { params: { path: { id: orderId } } }))
      .data!.data;
    assert.deepEqual(
      {
        total: kept.total,
        status: kept.status,
        lines: kept.lineItems.length,
        address: kept.shippingAddress,
        carrier: kept.fulfillment!.carrier,
        tracking: [kept.fulfillment!.trackingNumber, kept.fulfillment!.trackingUrl],
        note: kept.note,
      },
      {
        total: "24.00",
        status: "shipped",
        lines: 1,
        address: {
          name: "",
          company: null,
          line1: "",
          line2: null,
          city: "Riyadh",
          region: "Riyadh Province",
          postalCode: "12271",
          country: "SA",
          phone: null,
        },
        carrier: "DHL Express",
        tracking: [null, null],
        note: "",
      },
    );

    // And no table holds them, in any column.
    assert.deepEqual(await databaseHits(ctx, needles), []);
  });

  it("a customer without orders (deleted outright): their events and deliveries are scrubbed too", async () => {
    const p = person("Cd");
    const needles = needlesOf(p);
    const merchant = await merchantWithStore(ctx.app);
    const storeId = merchant.store.id;
    const app = await install(merchant, "Mailer");
    await subscribe(app.api, "customer.created", "/hooks");
    await subscribe(app.api, "customer.created", "/partial", ["firstName", "addresses"]);
    const created = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: merchant.slug } },
      body: {
        email: p.email,
        firstName: p.firstName,
        lastName: p.lastName,
        phone: p.phone,
        addresses: [{ name: p.firstName, line1: p.street, city: "Jeddah", country: "SA", phone: p.phone }],
      },
    });
    assert.equal(created.response.status, 201, text(created));
    const customerId = created.data!.data.id;
    await waitUntil(() => settled(storeId), 30_000, "the deliveries of customer.created");
    assert.ok((await databaseHits(ctx, needles)).includes("webhook_deliveries.body"));

    const removed = await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: merchant.slug, id: customerId } },
    });
    assert.equal(removed.response.status, 200);
    assert.equal(removed.data!.data.outcome, "deleted");
    assert.equal(
      (
        await merchant.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}", {
          params: { path: { slug: merchant.slug, id: customerId } },
        })
      ).response.status,
      404,
    );

    const events = await ctx.platform.db
      .selectFrom("events")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("resource_id", "=", customerId)
      .execute();
    const createdEvent = events.find((e) => e.topic === "customer.created")!;
    assert.ok(createdEvent, "the event stays (the feed keeps its place)");
    const payload = createdEvent.payload as EventData<"customer.created">;
    assert.equal(payload.id, customerId);
    assert.equal(payload.email, `deleted-${customerId}@anonymized.invalid`);
    assert.deepEqual([payload.firstName, payload.lastName, payload.phone], ["Deleted", "customer", null]);
    assert.deepEqual([payload.addresses, payload.defaultAddress], [[], null]);
    const deliveries = await ctx.platform.db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("event_id", "=", createdEvent.id)
      .execute();
    assert.equal(deliveries.length, 2);
    // Projected to the subscription's fields: not the document's whole event.
    const partial = deliveries.map((d) => JSON.parse(d.body) as Json).find((b) => !("email" in b.data))!;
    assert.deepEqual(partial.data, { id: customerId, firstName: "Deleted", addresses: [] }, "a partial body");
    const sentBefore = rx.received.length;
    // Either of the two bodies, the whole or the projected one: read as plain JSON.
    const full = deliveries.find((d) => (JSON.parse(d.body) as Json).data.email !== undefined)!;
    ok(
      await app.api.POST("/api/v1/apps/api/webhooks/deliveries/{id}/redeliver", {
        params: { path: { id: full.id } },
      }),
      "redeliver",
      201,
    );
    await waitUntil(() => rx.received.length > sentBefore, 20_000, "the redelivery");
    assertClean("the redelivery", rx.received.at(-1)!.body, needles);
    assertClean("the event feed", await feed(app.api), needles);
    assertClean(
      "the delivery log",
      ok(await app.api.GET("/api/v1/apps/api/webhooks/deliveries"), "log"),
      needles,
    );
    assert.deepEqual(await databaseHits(ctx, needles), []);
  });
  it("an attempt on the wire during the erasure: what its receiver echoes afterwards is cleared by the worker's follow-up", async () => {
    const p = person("Ef");
    const needles = needlesOf(p);
    const merchant = await merchantWithStore(ctx.app);
    const storeId = merchant.store.id;
    const app = await install(merchant, "Slow CRM");
    await subscribe(app.api, "customer.created", "/slow");
    let release!: () => void;
    slowGate = new Promise((resolve) => {
      release = resolve;
    });
    const created = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: merchant.slug } },
      body: {
        email: p.email,
        firstName: p.firstName,
        lastName: p.lastName,
        phone: p.phone,
        addresses: [{ name: p.firstName, line1: p.street, city: "Dammam", country: "SA" }],
      },
    });
    assert.equal(created.response.status, 201, text(created));
    await waitUntil(
      () => rx.received.some((r) => r.path === "/slow" && hits(r.body, needles).length === needles.length),
      20_000,
      "the attempt reached the receiver, which holds its answer",
    );
    const removed = await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: merchant.slug, id: created.data!.data.id } },
    });
    assert.equal(removed.response.status, 200, text(removed));
    // The receiver answers now, echoing what it got before the erasure.
    release();
    const attempts = () =>
      ctx.platform.db
        .selectFrom("webhook_attempts as a")
        .innerJoin("webhook_deliveries as d", (j) =>
          j.onRef("d.store_id", "=", "a.store_id").onRef("d.id", "=", "a.delivery_id"),
        )
        .select(["a.response_body", "a.status_code"])
        .where("d.store_id", "=", storeId)
        .where("d.event_name", "=", "customer.created")
        .execute();
    await waitUntil(async () => (await attempts()).length === 1, 20_000, "the late answer recorded");
    assert.equal((await attempts())[0]!.status_code, 200);
    // The follow-up takes its turn every few seconds of the worker's clock.
    ctx.clock.advance(6_000);
    await waitUntil(
      async () => {
        ctx.worker.poke();
        return (await attempts())[0]!.response_body === null;
      },
      20_000,
      "the follow-up cleared the late answer",
    );
    assert.deepEqual(await databaseHits(ctx, needles), []);
  });
});

describe("erasure: copies being made while it commits", () => {
  /** No worker: the test dispatches itself, between the statements it wants to separate. */
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ SECRETS_KEY, WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" });
  });
  after(() => ctx.close());

  /** A store, an app subscribed to customer.created, and a customer of `p` (whose event is undispatched). */
  async function storeWithCustomer(p: Person) {
    const merchant = await merchantWithStore(ctx.app);
    const registered = await registerApp(ctx.app, SCOPES, "Racer");
    const { code } = await consent(merchant, registered.clientId, SCOPES);
    const tokens = await exchange(ctx.app, {
      slug: merchant.slug,
      code,
      redirectUri: REDIRECT,
      clientId: registered.clientId,
      clientSecret: registered.clientSecret,
    });
    const api = apiClient(ctx.app, { headers: { authorization: `Bearer ${tokens.data!.data.accessToken}` } });
    const sub = await api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "customer.created",
        targetUrl: "https://127.0.0.1:9/hooks",
      },
    });
    assert.equal(sub.response.status, 201, text(sub));
    const created = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: merchant.slug } },
      body: {
        email: p.email,
        firstName: p.firstName,
        lastName: p.lastName,
        phone: p.phone,
        addresses: [{ name: p.firstName, line1: p.street, city: "Abha", country: "SA" }],
      },
    });
    assert.equal(created.response.status, 201, text(created));
    return {
      merchant,
      api,
      customerId: created.data!.data.id,
      storeId: merchant.store.id,
    };
  }

  const bodiesOf = async (storeId: string) =>
    (
      await ctx.platform.db
        .selectFrom("webhook_deliveries")
        .select("body")
        .where("store_id", "=", storeId)
        .where("event_name", "=", "customer.created")
        .execute()
    ).map((d) => d.body);

  it("a dispatch that read the event before the erasure inserts nothing rendered from it; the next dispatch renders the erased payload", async () => {
    const p = person("Gh");
    const { merchant, customerId, storeId } = await storeWithCustomer(p);
    // The database as the dispatch sees it, with the erasure committing between its read and its
    // write (its two statements; the write is the one that locks the events).
    const db = ctx.platform.db;
    let erased = false;
    const executor = db.getExecutor();
    const racing = new Proxy(db, {
      get(target, prop) {
        if (prop !== "getExecutor") return Reflect.get(target, prop);
        return () =>
          new Proxy(executor, {
            get(inner, name) {
              if (name !== "executeQuery") {
                // Bound: the executor's methods read its private fields.
                const value = Reflect.get(inner, name);
                return typeof value === "function" ? value.bind(inner) : value;
              }
              return async (query: { sql: string }, queryId: unknown) => {
                if (!erased && query.sql.includes("WITH locked AS")) {
                  erased = true;
                  const removed = await merchant.client.DELETE(
                    "/api/v1/dashboard/stores/{slug}/customers/{id}",
                    { params: { path: { slug: merchant.slug, id: customerId } } },
                  );
                  assert.equal(removed.response.status, 200, text(removed));
                }
                return (inner.executeQuery as (q: unknown, id: unknown) => Promise<unknown>).call(
                  inner,
                  query,
                  queryId,
                );
              };
            },
          });
      },
    });
    const first = await createDeliveryRepo(racing, { events: ctx.platform.versions.events }).dispatchEvents(
      ctx.clock.now(),
      100,
    );
    assert.ok(erased, "the erasure ran between the dispatch's read and its write");
    assert.equal(first.events, 0, "the erased event was left for the next dispatch");
    assert.deepEqual(await bodiesOf(storeId), [], "nothing was inserted from the payload read before");
    const second = await createDeliveryRepo(db, { events: ctx.platform.versions.events }).dispatchEvents(
      ctx.clock.now(),
      100,
    );
    assert.equal(second.events, 1);
    const bodies = await bodiesOf(storeId);
    assert.equal(bodies.length, 1);
    assertClean("the delivery dispatched after the erasure", bodies[0]!, needlesOf(p));
    assert.equal(
      (JSON.parse(bodies[0]!) as EventBody<"customer.created">).data.email,
      `deleted-${customerId}@anonymized.invalid`,
    );
  });

  it("a redelivery whose delivery was read before the erasure sends the erased body", async () => {
    const p = person("Ij");
    const { merchant, api, customerId, storeId } = await storeWithCustomer(p);
    await createDeliveryRepo(ctx.platform.db, { events: ctx.platform.versions.events }).dispatchEvents(
      ctx.clock.now(),
      100,
    );
    const [original] = await ctx.platform.db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("store_id", "=", storeId)
      .execute();
    assert.ok(original && hits(original.body, needlesOf(p)).length > 0, "the delivery as read before");
    const removed = await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: merchant.slug, id: customerId } },
    });
    assert.equal(removed.response.status, 200);
    const copy = await createDeliveryLogRepo(ctx.platform.db).redeliver(original, ctx.clock.now());
    assert.ok(copy);
    const bodies = await bodiesOf(storeId);
    assert.equal(bodies.length, 2);
    for (const body of bodies) assertClean("a delivery's body", body, needlesOf(p));
    assert.equal((await api.GET("/api/v1/apps/api/webhooks/deliveries")).response.status, 200);
  });

  it("an idempotent answer recorded after the erasure committed is stored erased", async () => {
    const p = person("Kl");
    const { merchant, customerId, storeId } = await storeWithCustomer(p);
    const key = `erase-${randomUUID()}`;
    const scope = `installation:race-${randomUUID()}`;
    const request = { method: "POST", route: "/customers", params: {}, query: {}, body: { email: p.email } };
    const start = await ctx.platform.idempotency.begin({ scope, key, storeId, request });
    assert.equal(start.kind, "claimed");
    // The create committed; its answer (naming the customer) is still to be recorded when the
    // merchant deletes the customer.
    const answer = text(
      await merchant.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}", {
        params: { path: { slug: merchant.slug, id: customerId } },
      }),
    );
    assert.ok(hits(answer, needlesOf(p)).length > 0);
    const removed = await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: merchant.slug, id: customerId } },
    });
    assert.equal(removed.response.status, 200);
    if (start.kind === "claimed") await start.finish({ status: 201, body: answer });
    const replay = await ctx.platform.idempotency.begin({ scope, key, storeId, request });
    assert.equal(replay.kind, "replay");
    if (replay.kind === "replay") {
      assertClean("the replay", replay.body, needlesOf(p));
      assert.equal(
        (
          JSON.parse(replay.body) as {
            data: ResponseData<"/api/v1/dashboard/stores/{slug}/customers/{id}", "get">;
          }
        ).data.email,
        `deleted-${customerId}@anonymized.invalid`,
      );
    }
    for (const opened of await openedAnswers(ctx, key))
      assertClean("a stored answer, opened", opened, needlesOf(p));
  });

  it("no order is placed for an erased customer, by id or by their erased e-mail address", async () => {
    const p = person("Mn");
    const { merchant, api, customerId } = await storeWithCustomer(p);
    const product = await api.POST("/api/v1/apps/api/products", {
      body: flat({ title: "Cup", price: "3.00", stock: 5 }),
    });
    const lineItems = [{ productId: product.data!.data.id, quantity: 1 }];
    assert.equal(
      (await api.POST("/api/v1/apps/api/orders", { body: { customerId, lineItems } })).response.status,
      201,
    );
    assert.equal(
      (
        await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
          params: { path: { slug: merchant.slug, id: customerId } },
        })
      ).data!.data.outcome,
      "anonymized",
    );
    const byId = await api.POST("/api/v1/apps/api/orders", { body: { customerId, lineItems } });
    assert.equal(byId.response.status, 409, text(byId));
    assert.equal(fieldErrors(byId)[0]!.field, "customerId");
    const byEmail = await api.POST("/api/v1/apps/api/orders", {
      body: {
        customer: { email: `deleted-${customerId}@anonymized.invalid`, firstName: "Someone" },
        lineItems,
      },
    });
    assert.equal(byEmail.response.status, 409, text(byEmail));
    const dashboard = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: merchant.slug } },
      body: { customerId, lineItems },
    });
    assert.equal(dashboard.response.status, 409);
  });
  /** A second session on the test's schema (PostgreSQL only): what another request holds. */
  async function otherSession() {
    const other = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await other.connect();
    await other.query(`SET search_path TO "${ctx.schema}"`);
    return other;
  }

  /** Until a session waits on a lock in a statement whose text matches `pattern`. */
  const waitsOnLock = (pattern: string, what: string) =>
    waitUntil(
      async () => {
        const { rows } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE wait_event_type = 'Lock' AND query LIKE ${pattern}`.execute(ctx.platform.db);
        return Number(rows[0]!.n) > 0;
      },
      20_000,
      what,
    );

  const needsServer = TEST_DATABASE_URL ? undefined : "needs TEST_DATABASE_URL (a second session)";

  it("a redelivery or recover holding its subscription when the erasure starts: the erasure waits, then erases its copy", {
    skip: needsServer,
  }, async () => {
    const p = person("Op");
    const { merchant, customerId, storeId } = await storeWithCustomer(p);
    await createDeliveryRepo(ctx.platform.db, { events: ctx.platform.versions.events }).dispatchEvents(
      ctx.clock.now(),
      100,
    );
    const [original] = await ctx.platform.db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("store_id", "=", storeId)
      .execute();
    assert.ok(original);
    const other = await otherSession();
    try {
      // What a redelivery does: its subscription share-locked, then a copy of the stored body.
      await other.query("BEGIN");
      await other.query("SELECT 1 FROM webhook_subscriptions WHERE store_id = $1 AND id = $2 FOR SHARE", [
        storeId,
        original.subscription_id,
      ]);
      await other.query(
        `INSERT INTO webhook_deliveries (store_id, id, event_id, event_name, subscription_id, installation_id,
                app_id, target_url, target_host, body, status, next_attempt_at, redelivery_of, created_at, updated_at)
         SELECT store_id, $3, event_id, event_name, subscription_id, installation_id, app_id, target_url,
                target_host, body, 'pending', now(), id, now(), now()
           FROM webhook_deliveries WHERE store_id = $1 AND id = $2`,
        [storeId, original.id, `whd_${"r".repeat(22)}`],
      );
      const removal = merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
        params: { path: { slug: merchant.slug, id: customerId } },
      });
      await waitsOnLock("%FOR NO KEY UPDATE%", "the erasure waits for the subscription");
      await other.query("COMMIT");
      assert.equal((await removal).response.status, 200);
    } finally {
      await other.end();
    }
    const bodies = await bodiesOf(storeId);
    assert.equal(bodies.length, 2, "the delivery and its copy");
    for (const body of bodies) assertClean("a delivery's body", body, needlesOf(p));
  });

  it("a recover that starts while an erasure holds the subscription copies the erased body", {
    skip: needsServer,
  }, async () => {
    const p = person("Qr");
    const { storeId } = await storeWithCustomer(p);
    await createDeliveryRepo(ctx.platform.db, { events: ctx.platform.versions.events }).dispatchEvents(
      ctx.clock.now(),
      100,
    );
    const now = ctx.clock.now();
    const [failed] = await ctx.platform.db
      .updateTable("webhook_deliveries")
      .set({ status: "failed", lease_until: null, lease_token: null, completed_at: now, attempts: 3 })
      .where("store_id", "=", storeId)
      .returningAll()
      .execute();
    assert.ok(failed);
    const erasedBody = JSON.stringify({ ...JSON.parse(failed.body), data: { id: "erased" } });
    const other = await otherSession();
    try {
      // What an erasure does: the subscription locked, then the stored body rewritten.
      await other.query("BEGIN");
      await other.query(
        "SELECT 1 FROM webhook_subscriptions WHERE store_id = $1 AND id = $2 FOR NO KEY UPDATE",
        [storeId, failed.subscription_id],
      );
      await other.query("UPDATE webhook_deliveries SET body = $3 WHERE store_id = $1 AND id = $2", [
        storeId,
        failed.id,
        erasedBody,
      ]);
      const chunk = createDeliveryLogRepo(ctx.platform.db).recoverChunk({
        storeId,
        subscriptionId: failed.subscription_id,
        since: new Date(now.getTime() - 3_600_000),
        until: new Date(now.getTime() + 1000),
        now,
        limit: 10,
      });
      await waitsOnLock(
        "%FROM webhook_subscriptions WHERE%FOR SHARE%",
        "the recover waits for the subscription",
      );
      await other.query("COMMIT");
      assert.equal((await chunk).queued, 1);
    } finally {
      await other.end();
    }
    const copy = await ctx.platform.db
      .selectFrom("webhook_deliveries")
      .select("body")
      .where("store_id", "=", storeId)
      .where("recovery_of", "=", failed.id)
      .executeTakeFirstOrThrow();
    assert.equal(copy.body, erasedBody, "the body as the erasure left it");
  });
});
