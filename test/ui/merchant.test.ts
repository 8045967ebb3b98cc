import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { listen } from "@merchant-platform/sdk";
import type { Browser } from "playwright-core";
import { DeliveryStatus } from "../../src/contracts/index.ts";
import { consent, exchange, REDIRECT } from "../apps-harness.ts";
import { flat } from "../catalogue.ts";
import { apiClient, createTestContext, type TestContext } from "../harness.ts";
import { chromiumSkipReason } from "../requirements.ts";
import { launchChromium } from "./browser.ts";
import { heading, PASSWORD, pages, review, row } from "./pages.ts";

/**
 * What merchants expect next to Shopify's and Salla's admin (issue 11), in a real browser: the
 * overview, search and sort, the order page (timeline, webhooks), the customer page (edit, delete
 * or anonymise), the account (password, sign out everywhere) and the developer's apps (edit,
 * install link, delivery attempts, delete). Every main page is checked with axe-core (no serious
 * or critical violation) and photographed at 1366×800 and 390×844 into .tmp/screenshots.
 */
describe("merchant pages in a real browser", { skip: chromiumSkipReason() }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let base: string;
  const ui = pages(
    () => browser,
    () => base,
  );

  before(async () => {
    ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" });
    base = await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    browser = await launchChromium();
  });
  after(async () => {
    await ui.close();
    await browser?.close();
    await ctx?.close();
  });

  /** A store with a catalogue, customers and orders, made through the API as a merchant would. */
  async function stocked(context: Parameters<typeof ui.merchant>[0], slug: string) {
    const shop = await ui.merchant(context, slug, "Sara Merchant");
    const linen = await shop.post(
      "/products",
      flat({
        title: "Linen shirt",
        price: "39.00",
        sku: "SHIRT-LIN",
        stock: 20,
      }),
    );
    await shop.post("/products", flat({ title: "Linen scarf", price: "19.00", sku: "SCARF-LIN", stock: 3 }));
    await shop.post("/products", flat({ title: "Wool cap", price: "25.00", sku: "CAP-WOOL", stock: 40 }));
    const layla = await shop.post("/customers", {
      firstName: "Layla",
      lastName: "Haddad",
      email: "layla@example.com",
    });
    const omar = await shop.post("/customers", {
      firstName: "Omar",
      lastName: "Nasser",
      email: "omar@example.com",
    });
    const first = await shop.post("/orders", {
      customerId: layla.id,
      lineItems: [{ productId: linen.id, quantity: 2 }],
      note: "Gift wrap, please.",
    });
    await shop.post("/orders", { customerId: omar.id, lineItems: [{ productId: linen.id, quantity: 1 }] });
    return { shop, linen, layla, omar, first };
  }

  it("overview, then an order's page: items, customer, note, timeline (who and when) and webhooks; moving it adds to the timeline", async () => {
    const { context, page, errors } = await ui.open();
    const { first } = await stocked(context, "overview-shop");
    await page.goto(`${base}/stores/overview-shop`);
    await heading(page, "Shop overview-shop");
    const sales = page.getByRole("region", { name: "Sales", exact: true });
    await sales.getByText("117.00 USD").first().waitFor();
    assert.match(await sales.innerText(), /Today[\s\S]*117\.00 USD[\s\S]*2 orders/);
    await page.getByRole("region", { name: "Low stock" }).getByText("Linen scarf").waitFor();
    await review(page, "overview");

    await page.getByRole("region", { name: "Recent orders" }).getByRole("link", { name: "#1001" }).click();
    await heading(page, "Order #1001");
    const main = page.locator("main");
    await main.getByText("Gift wrap, please.").waitFor();
    assert.match(await main.innerText(), /Linen shirt[\s\S]*39\.00 USD[\s\S]*78\.00 USD/);
    await page
      .getByRole("region", { name: "Customer" })
      .getByRole("link", { name: "Layla Haddad" })
      .waitFor();
    const timeline = page.getByRole("region", { name: "Timeline" });
    await timeline.getByText("Sara Merchant").waitFor();
    assert.equal(await timeline.locator("li").count(), 1);
    await page.getByRole("region", { name: "Webhooks" }).getByText("No app was notified").waitFor();
    await review(page, "order");

    await page.getByRole("button", { name: "Mark paid" }).click();
    await timeline.locator("li").nth(1).waitFor();
    assert.match(await timeline.innerText(), /Pending[\s\S]*Paid/);
    assert.equal(first.number, 1001);
    assert.deepEqual(errors, []);
  });

  it("searches and sorts products and orders as the merchant types", async () => {
    const { context, page, errors } = await ui.open();
    await stocked(context, "search-shop");
    await page.goto(`${base}/stores/search-shop/products`);
    await row(page, "Wool cap").waitFor();
    // Too short to search by: said under the box, the whole list still shown.
    await page.getByLabel("Search by title or SKU").fill("li");
    await page.getByText("Type 3 characters or more to search: the whole list is shown meanwhile.").waitFor();
    await row(page, "Wool cap").waitFor();
    await page.getByLabel("Search by title or SKU").fill("linen");
    await row(page, "Wool cap").waitFor({ state: "detached" });
    assert.equal(await page.getByText("Type 3 characters or more").count(), 0);
    await row(page, "Linen scarf").waitFor();
    assert.equal(await page.locator("tbody tr").count(), 2);
    await page.getByLabel("Sort by").selectOption("-price");
    await page.waitForFunction(() => {
      const doc = (
        globalThis as unknown as {
          document: { querySelectorAll(s: string): ArrayLike<{ textContent: string }> };
        }
      ).document;
      return doc.querySelectorAll("tbody tr")[0]?.textContent.includes("Linen shirt");
    });
    assert.deepEqual(
      (await page.locator("tbody tr td:first-child").allInnerTexts()).map((t) => t.trim()),
      ["Linen shirt", "Linen scarf"],
    );
    await page.getByLabel("Search by title or SKU").fill("cap-w");
    await row(page, "Wool cap").waitFor();
    await review(page, "products");

    // Scrolled down the products, then to the orders by the sidebar: the orders open at their top.
    await page.setViewportSize({ width: 1366, height: 400 });
    await page.evaluate(() =>
      (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 10_000),
    );
    assert.ok((await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY)) > 0);
    await page.getByRole("link", { name: "Orders", exact: true }).click();
    await heading(page, "Orders");
    assert.equal(await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY), 0);
    await page.setViewportSize({ width: 1366, height: 800 });
    await row(page, "#1002").waitFor();
    await page.getByLabel("Search by number or customer").fill("layla");
    await row(page, "#1002").waitFor({ state: "detached" });
    await row(page, "#1001").waitFor();
    await page.getByLabel("Search by number or customer").fill("#1002");
    await row(page, "#1002").waitFor();
    await review(page, "orders");
    assert.deepEqual(errors, []);
  });

  it("customer page: orders and what they spent; edit; delete anonymises a customer with orders", async () => {
    const { context, page, errors } = await ui.open();
    const { shop, first } = await stocked(context, "customer-shop");
    // What a customer spent is what they paid: Layla's order, once marked paid.
    await shop.post(`/orders/${first.id}/status`, { status: "paid" });
    await page.goto(`${base}/stores/customer-shop/customers`);
    await row(page, "Layla Haddad").getByText("78.00 USD").waitFor();
    await review(page, "customers");
    await page.getByRole("link", { name: "Layla Haddad" }).click();
    await heading(page, "Layla Haddad");
    await page.locator(".stat-value", { hasText: "78.00 USD" }).waitFor();
    await row(page, "#1001").waitFor();
    await review(page, "customer");

    await page.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("First name").fill("Leila");
    await page.getByRole("button", { name: "Save changes" }).click();
    await heading(page, "Leila Haddad");

    await page.getByRole("button", { name: "Delete" }).click();
    const dialog = page.getByRole("dialog");
    assert.match(await dialog.innerText(), /1 order\(s\), which stay/);
    await dialog.getByRole("button", { name: "Delete customer" }).click();
    await heading(page, "Deleted customer");
    await row(page, "#1001").waitFor();
    assert.doesNotMatch(await page.locator("main").innerText(), /Leila|layla@example\.com/);
    assert.equal(await page.getByRole("button", { name: "Edit" }).count(), 0);
    assert.deepEqual(errors, []);
  });

  it("account: a wrong current password is refused beside the field; a change signs out the other browser; sign out everywhere", async () => {
    const { context, page, errors } = await ui.open();
    const { email } = await ui.merchant(context, "account-shop");
    const other = apiClient(ctx.app);
    assert.equal(
      (await other.POST("/api/v1/dashboard/auth/login", { body: { email, password: PASSWORD } })).response
        .status,
      200,
    );
    await page.goto(`${base}/account`);
    await heading(page, "Account");
    await review(page, "account");

    await page.getByLabel("Current password").fill("not my password");
    await page.getByLabel("New password", { exact: true }).fill("an even longer password");
    await page.getByLabel("Repeat the new password").fill("an even longer password");
    await page.getByRole("button", { name: "Change password" }).click();
    const currentError = page
      .locator(".field", { has: page.getByLabel("Current password") })
      .locator(".field-error");
    await currentError.filter({ hasText: "is not your current password" }).waitFor();
    await page.getByLabel("Current password").fill(PASSWORD);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("1 other session(s) signed out").waitFor();
    assert.equal(
      (await other.GET("/api/v1/dashboard/me")).response.status,
      401,
      "the other browser is signed out",
    );

    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Sign out everywhere" }).click();
    await heading(page, "Log in");
    assert.deepEqual(errors, []);
  });

  it("apps: register (secret once), edit, install link for a store, delivery attempts (Redeliver only while subscribed), delete", async () => {
    const { context, page, errors } = await ui.open();
    await ui.merchant(context, "dev-shop", "Dev Merchant");
    await page.goto(`${base}/apps`);
    await heading(page, "My apps");
    await page.getByLabel("App name").fill("Stock Sync");
    await page.getByLabel("Redirect URIs").fill(REDIRECT);
    await page.getByRole("checkbox", { name: /See your products and stock/ }).check();
    await page.getByRole("checkbox", { name: /Receive notifications/ }).check();
    await page.getByRole("button", { name: "Register app" }).click();
    const reveal = page.getByRole("region", { name: "New app credentials" });
    const clientId = await reveal.getByLabel("Client id").inputValue();
    const clientSecret = await reveal.getByLabel("Client secret").inputValue();
    assert.match(clientSecret, /^mpcs_/);
    await review(page, "apps");
    await reveal.getByRole("button", { name: "I have copied it" }).click();

    // The developer's own store installs it (through the API) and gets one failing delivery.
    const merchant = { client: apiClient(ctx.app), slug: "dev-shop" };
    const cookies = await context.cookies();
    merchant.client.jar.cookie = `mp_session=${cookies.find((c) => c.name === "mp_session")!.value}`;
    const { code } = await consent(merchant, clientId, ["read_products", "manage_webhooks"]);
    const tokens = (
      await exchange(ctx.app, { slug: "dev-shop", code, redirectUri: REDIRECT, clientId, clientSecret })
    ).data!.data;
    const api = apiClient(ctx.app, { headers: { authorization: `Bearer ${tokens.accessToken}` } });
    const subscription = await api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "product.created",
        targetUrl: "https://hooks.example.test/p",
      },
    });
    assert.equal(subscription.response.status, 201);
    assert.equal(
      (
        await merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: "dev-shop" } },
          body: flat({
            title: "Hat",
            price: "5.00",
          }),
        })
      ).response.status,
      201,
    );
    const now = ctx.clock.now();
    const { claimed } = await ctx.platform.webhooks.deliveries.dispatchEvents(now, 100, {
      room: { limit: 10, hosts: new Map(), otherHosts: 10 },
      leaseMs: 60_000,
    });
    await ctx.platform.webhooks.deliveries.completeMany([
      {
        delivery: claimed[0]!,
        startedAt: now,
        durationMs: 42,
        statusCode: 503,
        error: null,
        responseBody: "temporarily down for maintenance",
        next: { status: DeliveryStatus.pending, at: new Date(now.getTime() + 60_000) },
        now,
      },
    ]);

    await page.getByRole("link", { name: "Stock Sync" }).click();
    await heading(page, "Stock Sync");
    // The app's subscriptions, with when each secret was last rotated (issue 19).
    const subscriptions = page.getByRole("region", { name: "Webhook subscriptions" });
    const subscribed = subscriptions.locator("tbody tr", { hasText: "product.created" });
    await subscribed.waitFor();
    assert.match(await subscribed.innerText(), /dev-shop[\s\S]*hooks\.example\.test\/p[\s\S]*Never/);
    const rotated = await api.POST("/api/v1/apps/api/webhooks/{id}/secret", {
      params: { path: { id: subscription.data!.data.id } },
    });
    assert.equal(rotated.response.status, 201);
    await page.reload();
    await subscribed.waitFor();
    assert.doesNotMatch(await subscribed.innerText(), /Never/);
    assert.ok(
      (await subscribed.locator('[data-label="Secret rotated"]').innerText()).includes(
        String(new Date(rotated.data!.data.secretRotatedAt as string).getFullYear()),
      ),
    );
    const delivery = page.getByRole("region", { name: "Webhook deliveries" }).locator("tbody tr", {
      hasText: "product.created",
    });
    await delivery.waitFor();
    assert.match(await delivery.innerText(), /Pending/);
    await delivery.getByRole("button", { name: "Attempts" }).click();
    await page.getByText("temporarily down for maintenance").waitFor();
    assert.match(await page.locator(".attempts").innerText(), /Attempt 1[\s\S]*42 ms[\s\S]*HTTP 503/);
    await delivery.getByRole("button", { name: "Redeliver" }).waitFor();
    await page.getByLabel("Status", { exact: true }).selectOption("delivered");
    await page.getByText("No deliveries match").waitFor();
    await page.getByLabel("Status", { exact: true }).selectOption("");
    await delivery.waitFor();

    const link = page.getByRole("textbox", { name: "Install link" });
    await page.getByLabel("Store to preselect").selectOption("dev-shop");
    const url = new URL(await link.inputValue());
    assert.equal(url.pathname, "/api/v1/apps/authorize");
    assert.equal(url.searchParams.get("client_id"), clientId);
    assert.equal(url.searchParams.get("store"), "dev-shop");
    await review(page, "app");

    await page.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("App name").fill("Stock Sync Pro");
    await page.getByRole("button", { name: "Save changes" }).click();
    await heading(page, "Stock Sync Pro");

    // Once the app is uninstalled its subscription has stopped: no Redeliver any more.
    assert.equal(
      (
        await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/installations/{clientId}", {
          params: { path: { slug: "dev-shop", clientId } },
        })
      ).response.status,
      200,
    );
    await page.reload();
    await delivery.waitFor();
    assert.equal(await delivery.getByRole("button", { name: "Redeliver" }).count(), 0);

    await page.getByRole("button", { name: "Delete app" }).click();
    assert.match(await page.getByRole("dialog").innerText(), /uninstalled from every store/);
    await page.getByRole("dialog").getByRole("button", { name: "Delete app" }).click();
    await heading(page, "My apps");
    await page.getByText("No apps yet").waitFor();
    assert.deepEqual(errors, []);
  });

  it("what a developer's listen received shows on the order's Webhooks panel and on the app's page, marked as streamed to listen", async () => {
    const { context, page, errors } = await ui.open();
    const { shop, linen, layla } = await stocked(context, "listen-shop");
    // The merchant is also the app's developer here: one browser session sees both pages.
    const merchant = { client: apiClient(ctx.app), slug: "listen-shop" };
    const cookies = await context.cookies();
    merchant.client.jar.cookie = `mp_session=${cookies.find((c) => c.name === "mp_session")!.value}`;
    const registered = await merchant.client.POST("/api/v1/dashboard/apps", {
      body: {
        name: "Packing Slips",
        redirectUris: [REDIRECT],
        scopes: ["read_orders", "manage_webhooks"],
      },
    });
    assert.equal(registered.response.status, 201);
    const { clientId, clientSecret } = registered.data!.data;
    const { code } = await consent(merchant, clientId, ["read_orders", "manage_webhooks"]);
    const tokens = (
      await exchange(ctx.app, { slug: "listen-shop", code, redirectUri: REDIRECT, clientId, clientSecret })
    ).data!.data;

    // The developer runs listen (the SDK's stream, as the CLI does); an order is placed and streamed.
    const controller = new AbortController();
    const stream = listen({
      baseUrl: base,
      tokens: { accessToken: async () => tokens.accessToken as string },
      signal: controller.signal,
    });
    let streamed: string | undefined;
    for await (const message of stream) {
      if (message.type === "session")
        await shop.post("/orders", {
          customerId: layla.id,
          lineItems: [{ productId: linen.id, quantity: 1 }],
        });
      if (message.type === "webhook") {
        streamed = message.id;
        break;
      }
    }
    controller.abort();
    assert.ok(streamed);

    await page.goto(`${base}/stores/listen-shop/orders`);
    await row(page, "#1003").getByRole("link", { name: "#1003" }).click();
    await heading(page, "Order #1003");
    const webhooks = page.getByRole("region", { name: "Webhooks" });
    const listened = webhooks.locator("tbody tr", { hasText: "Packing Slips" });
    await listened.waitFor();
    assert.match(
      await listened.innerText(),
      /order\.created[\s\S]*Packing Slips[\s\S]*Streamed to listen \(CLI\)/,
    );
    assert.equal(await webhooks.getByText("No app was notified").count(), 0);
    await review(page, "order-listen");

    await page.goto(`${base}/apps/${clientId}`);
    await heading(page, "Packing Slips");
    const sessions = page.getByRole("region", { name: "Listen sessions" });
    const session = sessions.locator("tbody tr", { hasText: "listen-shop" }).first();
    await session.waitFor();
    assert.match(
      await session.innerText(),
      /whls_\w+[\s\S]*listen-shop[\s\S]*(Streaming|Disconnected)[\s\S]*1/,
    );
    await session.getByRole("button", { name: "Events" }).click();
    const event = sessions.locator(".attempts li", { hasText: streamed });
    await event.waitFor();
    assert.match(await event.innerText(), /order\.created[\s\S]*Streamed to listen/);
    await review(page, "app-listen");
    assert.deepEqual(errors, []);
  });

  it("apps: a disabled subscription's banner says what webhook.disabled says and re-enables it; Recover failed since … queues the failed deliveries", async () => {
    const { context, page, errors } = await ui.open();
    await ui.merchant(context, "paused-shop", "Ops Merchant");
    const merchant = { client: apiClient(ctx.app), slug: "paused-shop" };
    const cookies = await context.cookies();
    merchant.client.jar.cookie = `mp_session=${cookies.find((c) => c.name === "mp_session")!.value}`;
    const registered = await merchant.client.POST("/api/v1/dashboard/apps", {
      body: {
        name: "Paused Hooks",
        redirectUris: [REDIRECT],
        scopes: ["read_products", "manage_webhooks"],
      },
    });
    const { clientId, clientSecret } = registered.data!.data;
    const { code } = await consent(merchant, clientId, ["read_products", "manage_webhooks"]);
    const tokens = (
      await exchange(ctx.app, { slug: "paused-shop", code, redirectUri: REDIRECT, clientId, clientSecret })
    ).data!.data;
    const api = apiClient(ctx.app, { headers: { authorization: `Bearer ${tokens.accessToken}` } });
    const gone = await api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "product.created",
        targetUrl: "https://hooks.example.test/gone",
      },
    });
    const other = await api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "product.updated",
        targetUrl: "https://hooks.example.test/updates",
      },
    });
    await merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: "paused-shop" } },
      body: flat({
        title: "Cap",
        price: "5.00",
      }),
    });
    // What the worker does when the receiver answers 410 Gone (no worker runs here).
    const now = ctx.clock.now();
    const { claimed } = await ctx.platform.webhooks.deliveries.dispatchEvents(now, 100, {
      room: { limit: 10, hosts: new Map(), otherHosts: 10 },
      leaseMs: 60_000,
    });
    const failure = {
      startedAt: now,
      durationMs: 12,
      statusCode: 410,
      error: null,
      responseBody: "gone",
      next: { status: DeliveryStatus.failed },
      now,
    } as const;
    await ctx.platform.webhooks.deliveries.completeMany(
      claimed.map((delivery) => ({ ...failure, delivery })),
    );
    const disabled = await ctx.platform.webhooks.deliveries.disableSubscriptions(
      [
        {
          store_id: claimed[0]!.store_id,
          subscription_id: gone.data!.data.id,
          reason: "HTTP 410 Gone",
          gone: true,
          failedAt: now,
        },
      ],
      now,
      now,
    );
    assert.equal(disabled.length, 1);

    await page.goto(`${base}/apps/${clientId}`);
    await heading(page, "Paused Hooks");
    const banner = page.getByRole("region", { name: "Disabled webhook subscriptions" });
    await banner.waitFor();
    const text = await banner.innerText();
    assert.match(text, /A webhook subscription is disabled/);
    assert.match(text, /product\.created[\s\S]*https:\/\/hooks\.example\.test\/gone[\s\S]*paused-shop/);
    assert.match(text, /HTTP 410 Gone/);
    assert.doesNotMatch(text, /updates/, "only the disabled one");
    await review(page, "app-disabled-webhook");

    // Recover failed since …: refused for the disabled subscription's deliveries (left out), none queued.
    await page.getByRole("button", { name: "Recover failed since" }).click();
    await page.getByText("Nothing failed since then.").waitFor();

    await banner.getByRole("button", { name: "Re-enable" }).click();
    await page.getByText(/Re-enabled; 1 delivery queued again/).waitFor();
    await banner.waitFor({ state: "detached" });
    const listed = (await api.GET("/api/v1/apps/api/webhooks")).data!.data;
    assert.deepEqual(
      listed.map((s: { id: string; status: string }) => [s.id, s.status]).sort(),
      [
        [gone.data!.data.id, "active"],
        [other.data!.data.id, "active"],
      ].sort(),
    );
    assert.deepEqual(errors, []);
  });

  it("the remaining main pages pass axe-core and are photographed: login, stores, installed apps, API keys", async () => {
    const { context, page, errors } = await ui.open();
    await page.goto(`${base}/login`);
    await heading(page, "Log in");
    await review(page, "login");
    await stocked(context, "axe-shop");
    await page.goto(`${base}/`);
    await heading(page, "Your stores");
    await review(page, "stores");
    await page.goto(`${base}/stores/axe-shop/apps`);
    await heading(page, "Installed apps");
    await review(page, "installed-apps");
    await page.goto(`${base}/stores/axe-shop/api-keys`);
    await heading(page, "API keys");
    await review(page, "api-keys");
    // Keyboard users skip the menu: the first Tab from the top of the page reaches "Skip to content".
    await page.evaluate(() =>
      (
        globalThis as unknown as { document: { activeElement: { blur(): void } } }
      ).document.activeElement.blur(),
    );
    await page.keyboard.press("Tab");
    assert.equal(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document
            .activeElement.textContent,
      ),
      "Skip to content",
    );
    assert.deepEqual(errors, []);
  });
});
