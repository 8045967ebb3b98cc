import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { installedApp, REDIRECT } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import {
  apiClient,
  createTestContext,
  fieldErrors,
  merchantWithStore,
  type TestContext,
  text,
} from "./harness.ts";
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
      (
        await client.POST("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: m.slug } },
          body: flat({ title, price, stock }),
        })
      ).data!.data;
    const customer = async (firstName: string, email: string) =>
      (
        await client.POST("/api/v1/dashboard/stores/{slug}/customers", {
          params: { path: { slug: m.slug } },
          body: { firstName, lastName: "Haddad", email },
        })
      ).data!.data;
    const order = async (c: { id: string }, p: { id: string }, quantity = 1) => {
      const res = await client.POST("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: m.slug } },
        body: {
          customerId: c.id,
          lineItems: [{ productId: p.id, quantity }],
        },
      });
      assert.equal(res.response.status, 201, text(res));
      return res.data!.data;
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
      (
        await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
          params: { path: { slug: s.slug, id: cancelled.id } },
          body: { status: "cancelled" },
        })
      ).response.status,
      200,
    );
    await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
      params: { path: { slug: s.slug, id: today.id } },
      body: { status: "paid" },
    });

    const res = await s.client.GET("/api/v1/dashboard/stores/{slug}/overview", {
      params: { path: { slug: s.slug }, query: { timeZone: "UTC" } },
    });
    assert.equal(res.response.status, 200, text(res));
    const o = res.data!.data;
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
    assert.deepEqual(o.recentOrders.map((r) => r.id).slice(0, 2), [cancelled.id, today.id]);
    assert.deepEqual(
      o.lowStock.map((p) => p.title),
      ["Cap", "Scarf"],
    );
    assert.equal(
      (
        await s.client.GET("/api/v1/dashboard/stores/{slug}/overview", {
          params: { path: { slug: s.slug }, query: { timeZone: "Asia/Riyadh" } },
        })
      ).response.status,
      200,
    );
    const bad = await s.client.GET("/api/v1/dashboard/stores/{slug}/overview", {
      params: { path: { slug: s.slug }, query: { timeZone: "Mars/Olympus" } },
    });
    assert.equal(bad.response.status, 400);
    assert.equal(fieldErrors(bad)[0]!.field, "timeZone");
  });

  it("order page: the status timeline says when and by whom; the webhooks it caused name the app and the outcome", async () => {
    const inst = await installedApp(ctx.app, ["read_orders", "manage_webhooks"]);
    const client = spec.watch(inst.merchant.client);
    assert.equal(
      (
        await inst.api.POST("/api/v1/apps/api/webhooks", {
          body: {
            eventName: "order.paid",
            targetUrl: "https://hooks.example.test/x",
          },
        })
      ).response.status,
      201,
    );
    const product = (
      await client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: inst.merchant.slug } },
        body: flat({ title: "Mug", price: "8.00", stock: 5 }),
      })
    ).data!.data;
    const customer = (
      await client.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: inst.merchant.slug } },
        body: { firstName: "Omar", email: "omar@example.com" },
      })
    ).data!.data;
    const order = (
      await client.POST("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: inst.merchant.slug } },
        body: {
          customerId: customer.id,
          lineItems: [{ productId: product.id, quantity: 1 }],
        },
      })
    ).data!.data;
    ctx.clock.advance(60_000);
    await client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
      params: { path: { slug: inst.merchant.slug, id: order.id } },
      body: { status: "paid" },
    });
    ctx.clock.advance(60_000);
    await client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
      params: { path: { slug: inst.merchant.slug, id: order.id } },
      body: { status: "confirmed" },
    });

    const history = (
      await client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/history", {
        params: { path: { slug: inst.merchant.slug, id: order.id } },
      })
    ).data!.data;
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
    const hooks = (
      await client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/webhooks", {
        params: { path: { slug: inst.merchant.slug, id: order.id } },
      })
    ).data!.data;
    assert.deepEqual(
      hooks.map((h) => [h.eventName, h.app.clientId, "status" in h ? h.status : undefined]),
      [["order.paid", inst.clientId, "pending"]],
    );
    const other = await merchantWithStore(ctx.app);
    assert.equal(
      (
        await other.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/history", {
          params: { path: { slug: other.slug, id: order.id } },
        })
      ).response.status,
      404,
    );
    assert.equal(
      (
        await other.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/webhooks", {
          params: { path: { slug: other.slug, id: order.id } },
        })
      ).response.status,
      404,
    );
  });

  it("customers: their orders and totals; edit (e-mail unique, order search follows); delete removes one without orders and anonymises one with", async () => {
    const s = await shop();
    const shirt = await s.product("Shirt", "12.50", 50);
    const layla = await s.customer("Layla", "layla@example.com");
    const omar = await s.customer("Omar", "omar@example.com");
    const first = await s.order(layla, shirt, 2);
    const second = await s.order(layla, shirt, 1);
    await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
      params: { path: { slug: s.slug, id: first.id } },
      body: { status: "cancelled" },
    });
    // Spent: what was paid (the second order), not what was only ordered (the cancelled first).
    await s.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
      params: { path: { slug: s.slug, id: second.id } },
      body: { status: "paid" },
    });

    const stats = (
      await s.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}/stats", {
        params: { path: { slug: s.slug, id: layla.id } },
      })
    ).data!.data;
    assert.deepEqual([stats.ordersCount, stats.totalSpent, stats.currency], [2, "12.50", "USD"]);
    const theirs = (
      await s.client.GET("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: s.slug }, query: { customerId: layla.id } },
      })
    ).data!.data;
    assert.equal(theirs.length, 2);

    const taken = await s.client.PATCH("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: s.slug, id: layla.id } },
      body: { email: "OMAR@example.com" },
    });
    assert.equal(taken.response.status, 409);
    const renamed = await s.client.PATCH("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: s.slug, id: layla.id } },
      body: {
        firstName: "Leila",
        email: "leila@example.com",
      },
    });
    assert.equal(renamed.response.status, 200);
    assert.equal(renamed.data!.data.firstName, "Leila");
    assert.equal(
      (
        await s.client.GET("/api/v1/dashboard/stores/{slug}/orders", {
          params: { path: { slug: s.slug }, query: { q: "leila" } },
        })
      ).data!.data.length,
      2,
      "the orders' search follows the rename",
    );
    assert.equal(
      (
        await s.client.GET("/api/v1/dashboard/stores/{slug}/orders", {
          params: { path: { slug: s.slug }, query: { q: "layla" } },
        })
      ).data!.data.length,
      0,
    );

    const gone = await s.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: s.slug, id: omar.id } },
    });
    assert.deepEqual(gone.data!.data, { outcome: "deleted" });
    assert.equal(
      (
        await s.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}", {
          params: { path: { slug: s.slug, id: omar.id } },
        })
      ).response.status,
      404,
    );

    const erased = await s.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: s.slug, id: layla.id } },
    });
    assert.deepEqual(erased.data!.data, { outcome: "anonymized" });
    const after = (
      await s.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}", {
        params: { path: { slug: s.slug, id: layla.id } },
      })
    ).data!.data;
    assert.ok(after.anonymizedAt);
    assert.doesNotMatch(JSON.stringify(after), /leila|Leila/);
    assert.equal(
      (
        await s.client.GET("/api/v1/dashboard/stores/{slug}/orders", {
          params: { path: { slug: s.slug }, query: { customerId: layla.id } },
        })
      ).data!.data.length,
      2,
      "the orders stay",
    );
    assert.equal(
      (
        await s.client.GET("/api/v1/dashboard/stores/{slug}/orders", {
          params: { path: { slug: s.slug }, query: { q: "leila" } },
        })
      ).data!.data.length,
      0,
      "and no longer find her by name",
    );
    assert.equal(
      (
        await s.client.PATCH("/api/v1/dashboard/stores/{slug}/customers/{id}", {
          params: { path: { slug: s.slug, id: layla.id } },
          body: { firstName: "X" },
        })
      ).response.status,
      409,
    );
    assert.equal(
      (
        await s.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
          params: { path: { slug: s.slug, id: layla.id } },
        })
      ).response.status,
      404,
    );
  });

  it("account: a password change needs the current one and signs out every other session; sign out everywhere ends them all", async () => {
    const m = await merchantWithStore(ctx.app);
    const me = spec.watch(m.client);
    const laptop = apiClient(ctx.app);
    assert.equal(
      (await laptop.POST("/api/v1/dashboard/auth/login", { body: { email: m.email, password: m.password } }))
        .response.status,
      200,
    );
    assert.equal((await laptop.GET("/api/v1/dashboard/me")).response.status, 200);

    const wrong = await me.POST("/api/v1/dashboard/account/password", {
      body: {
        currentPassword: "not it at all",
        newPassword: "a brand new password",
      },
    });
    assert.equal(wrong.response.status, 400);
    assert.equal(fieldErrors(wrong)[0]!.field, "currentPassword");
    const changed = await me.POST("/api/v1/dashboard/account/password", {
      body: {
        currentPassword: m.password,
        newPassword: "a brand new password",
      },
    });
    assert.equal(changed.response.status, 200, text(changed));
    assert.equal(changed.data!.data.signedOutSessions, 1);
    assert.equal((await laptop.GET("/api/v1/dashboard/me")).response.status, 401, "the other session is out");
    assert.equal((await me.GET("/api/v1/dashboard/me")).response.status, 200, "this one stays");
    const old = apiClient(ctx.app);
    assert.equal(
      (await old.POST("/api/v1/dashboard/auth/login", { body: { email: m.email, password: m.password } }))
        .response.status,
      401,
    );
    assert.equal(
      (
        await old.POST("/api/v1/dashboard/auth/login", {
          body: { email: m.email, password: "a brand new password" },
        })
      ).response.status,
      200,
    );

    const everywhere = await me.POST("/api/v1/dashboard/auth/logout-everywhere");
    assert.equal(everywhere.response.status, 200);
    assert.equal(everywhere.data!.data.endedSessions, 2);
    assert.equal((await me.GET("/api/v1/dashboard/me")).response.status, 401);
    assert.equal((await old.GET("/api/v1/dashboard/me")).response.status, 401);
  });

  it("apps: edit name, redirect URIs and scopes; delete uninstalls it everywhere (app/uninstalled), revokes its tokens and refuses its client id", async () => {
    const inst = await installedApp(ctx.app, ["read_products", "manage_webhooks"]);
    const dev = spec.watch(inst.dev.client);
    const edited = await dev.PATCH("/api/v1/dashboard/apps/{clientId}", {
      params: { path: { clientId: inst.clientId } },
      body: { name: "Renamed", scopes: ["read_products"] },
    });
    assert.equal(edited.response.status, 200, text(edited));
    assert.deepEqual([edited.data!.data.name, edited.data!.data.scopes], ["Renamed", ["read_products"]]);
    assert.equal(
      (await inst.api.GET("/api/v1/apps/api/products")).response.status,
      200,
      "granted scopes stay",
    );
    assert.equal(
      (
        await dev.PATCH("/api/v1/dashboard/apps/{clientId}", {
          params: { path: { clientId: inst.clientId } },
          body: {},
        })
      ).response.status,
      400,
    );
    const stranger = await merchantWithStore(ctx.app);
    assert.equal(
      (
        await stranger.client.PATCH("/api/v1/dashboard/apps/{clientId}", {
          params: { path: { clientId: inst.clientId } },
          body: { name: "Mine" },
        })
      ).response.status,
      404,
    );
    assert.equal(
      (
        await stranger.client.DELETE("/api/v1/dashboard/apps/{clientId}", {
          params: { path: { clientId: inst.clientId } },
        })
      ).response.status,
      404,
    );

    await inst.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "app/uninstalled",
        targetUrl: "https://hooks.example.test/bye",
      },
    });
    const deleted = await dev.DELETE("/api/v1/dashboard/apps/{clientId}", {
      params: { path: { clientId: inst.clientId } },
    });
    assert.equal(deleted.response.status, 200);
    assert.deepEqual(deleted.data!.data, { uninstalledFrom: 1 });
    assert.equal(
      (await inst.api.GET("/api/v1/apps/api/products")).response.status,
      401,
      "its tokens are revoked",
    );
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
    assert.equal(
      (await dev.GET("/api/v1/dashboard/apps/{clientId}", { params: { path: { clientId: inst.clientId } } }))
        .response.status,
      404,
    );
    assert.ok(
      !(await dev.GET("/api/v1/dashboard/apps")).data!.data.some((a) => a.clientId === inst.clientId),
    );
    const token = await apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
      body: {
        slug: inst.merchant.slug,
        refreshToken: inst.tokens.refreshToken,
        clientId: inst.clientId,
        clientSecret: inst.clientSecret,
      },
    });
    assert.equal(token.response.status, 401);
    const authorize = await apiClient(ctx.app).GET("/api/v1/apps/authorize", {
      params: {
        query: {
          response_type: "code",
          client_id: inst.clientId,
          redirect_uri: REDIRECT,
          scope: "read_products",
          state: "x",
        },
      },
    });
    assert.notEqual(authorize.response.status, 302, "no redirect for an unknown client");
  });
});
