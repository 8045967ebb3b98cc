import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { REDIRECT } from "./apps-harness.ts";
import { createTestContext, type TestContext } from "./harness.ts";
import { Client, installedApp, type Json, merchantWithStore } from "./legacy-client.ts";
import { openApiChecker } from "./openapi-assert.ts";

/**
 * What a merchant expects next to Shopify's and Salla's admin (issue 11): the overview, an order's
 * timeline and webhooks, customer detail, edit and deletion (anonymised when they have orders), the
 * account's password and sessions, and editing and deleting an app. Every response is checked
 * against the served document.
 */
type Checker = Awaited<ReturnType<typeof openApiChecker>>;
const HOUR = 3600 * 1000;

describe("merchant features", () => {
  let ctx: TestContext;
  let spec: Checker;
  before(async () => {
    // Sessions outlive the 40 days the overview test moves the clock; webhook targets are not resolved.
    ctx = await createTestContext(
      { SESSION_TTL_SECONDS: "31536000", WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" },
      { frozenClock: true },
    );
    spec = await openApiChecker(ctx.app);
  });
  after(async () => ctx?.close());

  async function shop() {
    const m = await merchantWithStore(ctx.app);
    const client = spec.watch(m.client);
    const product = async (title: string, price: string, stock: number) =>
      (await client.post(`${m.base}/products`, { title, price, stock })).data as Json;
    const customer = async (firstName: string, email: string) =>
      (await client.post(`${m.base}/customers`, { firstName, lastName: "Haddad", email })).data as Json;
    const order = async (c: Json, p: Json, quantity = 1) => {
      const res = await client.post(`${m.base}/orders`, {
        customerId: c.id,
        lineItems: [{ productId: p.id, quantity }],
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.data as Json;
    };
    return { ...m, client, product, customer, order };
  }

  it("overview: sales today, in 7 and 30 days (merchant's time zone, cancelled aside), orders by status, newest orders, low stock", async () => {
    const s = await shop();
    const shirt = await s.product("Shirt", "10.00", 100);
    await s.product("Scarf", "5.00", 3);
    await s.product("Cap", "7.00", 0);
    const layla = await s.customer("Layla", "layla@example.com");
    await s.order(layla, shirt, 1); // 40 days ago: in none of the windows
    ctx.clock.advance(20 * 24 * HOUR);
    await s.order(layla, shirt, 2); // 20 days ago
    ctx.clock.advance(15 * 24 * HOUR);
    await s.order(layla, shirt, 3); // 5 days ago
    ctx.clock.advance(5 * 24 * HOUR);
    const today = await s.order(layla, shirt, 4);
    ctx.clock.advance(1000);
    const cancelled = await s.order(layla, shirt, 5);
    assert.equal(
      (await s.client.post(`${s.base}/orders/${cancelled.id}/status`, { status: "cancelled" })).status,
      200,
    );
    await s.client.post(`${s.base}/orders/${today.id}/status`, { status: "paid" });

    const res = await s.client.get(`${s.base}/overview?timeZone=UTC`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const o = res.data as Json;
    // Today's window starts at UTC midnight; the orders above were made at the clock's time of day.
    assert.equal(o.sales.today.orders, 2);
    assert.equal(o.sales.today.total, "40.00", "the cancelled order is not a sale");
    assert.equal(o.sales.last7Days.orders, 3);
    assert.equal(o.sales.last7Days.total, "70.00");
    assert.equal(o.sales.last30Days.orders, 4);
    assert.equal(o.sales.last30Days.total, "90.00");
    assert.deepEqual(o.ordersByStatus, {
      pending: 3,
      paid: 1,
      confirmed: 0,
      shipped: 0,
      delivered: 0,
      cancelled: 1,
    });
    assert.deepEqual(o.recentOrders.map((r: Json) => r.id).slice(0, 2), [cancelled.id, today.id]);
    assert.deepEqual(
      o.lowStock.map((p: Json) => p.title),
      ["Cap", "Scarf"],
    );
    assert.equal((await s.client.get(`${s.base}/overview?timeZone=Asia/Riyadh`)).status, 200);
    const bad = await s.client.get(`${s.base}/overview?timeZone=Mars/Olympus`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.details[0].field, "timeZone");
  });

  it("order page: the status timeline says when and by whom; the webhooks it caused name the app and the outcome", async () => {
    const inst = await installedApp(ctx.app, ["read_orders", "manage_webhooks"]);
    const client = spec.watch(inst.merchant.client);
    assert.equal(
      (
        await inst.api.post("/api/v1/apps/api/webhooks", {
          eventName: "order.paid",
          targetUrl: "https://hooks.example.test/x",
        })
      ).status,
      201,
    );
    const base = inst.merchant.base;
    const product = (await client.post(`${base}/products`, { title: "Mug", price: "8.00", stock: 5 }))
      .data as Json;
    const customer = (
      await client.post(`${base}/customers`, { firstName: "Omar", email: "omar@example.com" })
    ).data as Json;
    const order = (
      await client.post(`${base}/orders`, {
        customerId: customer.id,
        lineItems: [{ productId: product.id, quantity: 1 }],
      })
    ).data as Json;
    ctx.clock.advance(60_000);
    await client.post(`${base}/orders/${order.id}/status`, { status: "paid" });
    ctx.clock.advance(60_000);
    await client.post(`${base}/orders/${order.id}/status`, { status: "confirmed" });

    const history = (await client.get(`${base}/orders/${order.id}/history`)).data as Json[];
    assert.deepEqual(
      history.map((h) => [h.status, h.actor.kind, h.actor.name]),
      [
        ["pending", "account", "Test Merchant"],
        ["paid", "account", "Test Merchant"],
        ["confirmed", "account", "Test Merchant"],
      ],
    );
    assert.ok(Date.parse(history[2]!.at) - Date.parse(history[1]!.at) === 60_000);

    await ctx.platform.webhooks.deliveries.dispatchEvents(ctx.clock.now(), 100);
    const hooks = (await client.get(`${base}/orders/${order.id}/webhooks`)).data as Json[];
    assert.deepEqual(
      hooks.map((h) => [h.eventName, h.app.clientId, h.status]),
      [["order.paid", inst.clientId, "pending"]],
    );
    const other = await merchantWithStore(ctx.app);
    assert.equal((await other.client.get(`${other.base}/orders/${order.id}/history`)).status, 404);
    assert.equal((await other.client.get(`${other.base}/orders/${order.id}/webhooks`)).status, 404);
  });

  it("customers: their orders and totals; edit (e-mail unique, order search follows); delete removes one without orders and anonymises one with", async () => {
    const s = await shop();
    const shirt = await s.product("Shirt", "12.50", 50);
    const layla = await s.customer("Layla", "layla@example.com");
    const omar = await s.customer("Omar", "omar@example.com");
    const first = await s.order(layla, shirt, 2);
    await s.order(layla, shirt, 1);
    await s.client.post(`${s.base}/orders/${first.id}/status`, { status: "cancelled" });

    const stats = (await s.client.get(`${s.base}/customers/${layla.id}/stats`)).data as Json;
    assert.deepEqual([stats.ordersCount, stats.totalSpent, stats.currency], [2, "12.50", "USD"]);
    const theirs = (await s.client.get(`${s.base}/orders?customerId=${layla.id}`)).data as Json[];
    assert.equal(theirs.length, 2);

    const taken = await s.client.patch(`${s.base}/customers/${layla.id}`, { email: "OMAR@example.com" });
    assert.equal(taken.status, 409);
    const renamed = await s.client.patch(`${s.base}/customers/${layla.id}`, {
      firstName: "Leila",
      email: "leila@example.com",
    });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.data.firstName, "Leila");
    assert.equal(
      (await s.client.get(`${s.base}/orders?q=leila`)).data.length,
      2,
      "the orders' search follows the rename",
    );
    assert.equal((await s.client.get(`${s.base}/orders?q=layla`)).data.length, 0);

    const gone = await s.client.delete(`${s.base}/customers/${omar.id}`);
    assert.deepEqual(gone.data, { outcome: "deleted" });
    assert.equal((await s.client.get(`${s.base}/customers/${omar.id}`)).status, 404);

    const erased = await s.client.delete(`${s.base}/customers/${layla.id}`);
    assert.deepEqual(erased.data, { outcome: "anonymized" });
    const after = (await s.client.get(`${s.base}/customers/${layla.id}`)).data as Json;
    assert.ok(after.anonymizedAt);
    assert.doesNotMatch(JSON.stringify(after), /leila|Leila/);
    assert.equal(
      (await s.client.get(`${s.base}/orders?customerId=${layla.id}`)).data.length,
      2,
      "the orders stay",
    );
    assert.equal(
      (await s.client.get(`${s.base}/orders?q=leila`)).data.length,
      0,
      "and no longer find her by name",
    );
    assert.equal((await s.client.patch(`${s.base}/customers/${layla.id}`, { firstName: "X" })).status, 409);
    assert.equal((await s.client.delete(`${s.base}/customers/${layla.id}`)).status, 404);
  });

  it("account: a password change needs the current one and signs out every other session; sign out everywhere ends them all", async () => {
    const m = await merchantWithStore(ctx.app);
    const me = spec.watch(m.client);
    const laptop = new Client(ctx.app);
    assert.equal(
      (await laptop.post("/api/v1/dashboard/auth/login", { email: m.email, password: m.password })).status,
      200,
    );
    assert.equal((await laptop.get("/api/v1/dashboard/me")).status, 200);

    const wrong = await me.post("/api/v1/dashboard/account/password", {
      currentPassword: "not it at all",
      newPassword: "a brand new password",
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error.details[0].field, "currentPassword");
    const changed = await me.post("/api/v1/dashboard/account/password", {
      currentPassword: m.password,
      newPassword: "a brand new password",
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.data.signedOutSessions, 1);
    assert.equal((await laptop.get("/api/v1/dashboard/me")).status, 401, "the other session is out");
    assert.equal((await me.get("/api/v1/dashboard/me")).status, 200, "this one stays");
    const old = new Client(ctx.app);
    assert.equal(
      (await old.post("/api/v1/dashboard/auth/login", { email: m.email, password: m.password })).status,
      401,
    );
    assert.equal(
      (await old.post("/api/v1/dashboard/auth/login", { email: m.email, password: "a brand new password" }))
        .status,
      200,
    );

    const everywhere = await me.post("/api/v1/dashboard/auth/logout-everywhere", {});
    assert.equal(everywhere.status, 200);
    assert.equal(everywhere.data.endedSessions, 2);
    assert.equal((await me.get("/api/v1/dashboard/me")).status, 401);
    assert.equal((await old.get("/api/v1/dashboard/me")).status, 401);
  });

  it("apps: edit name, redirect URIs and scopes; delete uninstalls it everywhere (app/uninstalled), revokes its tokens and refuses its client id", async () => {
    const inst = await installedApp(ctx.app, ["read_products", "manage_webhooks"]);
    const dev = spec.watch(inst.dev.client);
    const url = `/api/v1/dashboard/apps/${inst.clientId}`;
    const edited = await dev.patch(url, { name: "Renamed", scopes: ["read_products"] });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.deepEqual([edited.data.name, edited.data.scopes], ["Renamed", ["read_products"]]);
    assert.equal((await inst.api.get("/api/v1/apps/api/products")).status, 200, "granted scopes stay");
    assert.equal((await dev.patch(url, {})).status, 400);
    const stranger = await merchantWithStore(ctx.app);
    assert.equal((await stranger.client.patch(url, { name: "Mine" })).status, 404);
    assert.equal((await stranger.client.delete(url)).status, 404);

    await inst.api.post("/api/v1/apps/api/webhooks", {
      eventName: "app/uninstalled",
      targetUrl: "https://hooks.example.test/bye",
    });
    const deleted = await dev.delete(url);
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.data, { uninstalledFrom: 1 });
    assert.equal((await inst.api.get("/api/v1/apps/api/products")).status, 401, "its tokens are revoked");
    const queued = await ctx.platform.db
      .selectFrom("webhook_deliveries")
      .select(["event_name", "status"])
      .where(
        "app_id",
        "=",
        (
          await ctx.platform.db
            .selectFrom("apps")
            .select("id")
            .where("client_id", "=", inst.clientId)
            .executeTakeFirstOrThrow()
        ).id,
      )
      .execute();
    assert.deepEqual(
      queued.map((d) => d.event_name),
      ["app/uninstalled"],
    );
    assert.equal((await dev.get(url)).status, 404);
    assert.ok(
      !((await dev.get("/api/v1/dashboard/apps")).data as Json[]).some((a) => a.clientId === inst.clientId),
    );
    const token = await new Client(ctx.app).post("/api/v1/apps/token/refresh", {
      slug: inst.merchant.slug,
      refreshToken: inst.tokens.refreshToken,
      clientId: inst.clientId,
      clientSecret: inst.clientSecret,
    });
    assert.equal(token.status, 401);
    const authorize = await new Client(ctx.app).get(
      `/api/v1/apps/authorize?response_type=code&client_id=${inst.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=read_products&state=x`,
    );
    assert.notEqual(authorize.status, 302, "no redirect for an unknown client");
  });
});
