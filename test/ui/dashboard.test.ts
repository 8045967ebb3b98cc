import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { flat } from "../catalogue.ts";
import { createTestContext, type TestContext, uniqueEmail } from "../harness.ts";
import { chromiumSkipReason } from "../requirements.ts";
import { launchChromium } from "./browser.ts";
import { buttonsIn, heading, PASSWORD, type PageGlobals, PHONE, pages, row, shoot } from "./pages.ts";

/**
 * The merchant dashboard (web/) in a real browser: the flows of the first dashboard, kept. The new
 * pages (overview, order and customer pages, account, apps) are in merchant.test.ts.
 */
describe("merchant dashboard in a real browser", { skip: chromiumSkipReason() }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let base: string;
  const ui = pages(
    () => browser,
    () => base,
  );

  before(async () => {
    ctx = await createTestContext();
    base = await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    browser = await launchChromium();
  });
  after(async () => {
    await ui.close();
    await browser?.close();
    await ctx?.close();
  });

  it("serves the dashboard with a strict Content-Security-Policy and nosniff, on every page path", async () => {
    const html = await (await fetch(`${base}/`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.some((a) => a.endsWith(".js")) && assets.some((a) => a.endsWith(".css")), html);
    for (const file of ["/", "/stores/x/orders/ord_x", "/apps", "/account", "/login", ...assets]) {
      const res = await fetch(`${base}${file}`);
      assert.equal(res.status, 200, file);
      const csp = res.headers.get("content-security-policy") ?? "";
      assert.match(csp, /default-src 'self'/, file);
      assert.match(csp, /frame-ancestors 'none'/, file);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, file);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", file);
    }
    assert.match(
      (await fetch(`${base}${assets.find((a) => a.endsWith(".js"))}`)).headers.get("content-type") ?? "",
      /javascript/,
    );
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, "no inline script in the page");
    assert.doesNotMatch(html, /<style|style="/, "no inline style");
    assert.equal((await fetch(`${base}/nothing-here`)).status, 404, "other paths stay 404 envelopes");
    // A path under a page that is no page itself: the dashboard's not-found page for a browser;
    // a missing built file stays the envelope, even for a browser.
    const asBrowser = { accept: "text/html" };
    const noPage = await fetch(`${base}/stores/x/nothing-here`, { headers: asBrowser });
    assert.equal(noPage.status, 404);
    assert.match(noPage.headers.get("content-type") ?? "", /html/);
    const noFile = await fetch(`${base}/assets/nothing-here.js`, { headers: asBrowser });
    assert.equal(noFile.status, 404);
    assert.equal(((await noFile.json()) as { success: boolean }).success, false);
    const doc = (await (await fetch(`${base}/api/docs/openapi.json`)).json()) as { paths: object };
    assert.ok(
      !Object.keys(doc.paths).some((p) => p === "/" || p.includes("*") || p.startsWith("/stores")),
      "the dashboard's pages are not in the API document",
    );
  });

  it("signs up, creates a store, a product, a customer and an order, marks it paid, and logs out", async () => {
    const { page, errors } = await ui.open();
    const email = uniqueEmail("browser");
    await page.goto(`${base}/`);
    await heading(page, "Log in");
    await page.getByRole("link", { name: "Create an account" }).click();
    await page.getByLabel("Your name").fill("Browser Merchant");
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await heading(page, "Your stores");
    await page.getByText("You have no store yet").waitFor();

    // The slug follows the name until it is edited.
    await page.getByLabel("Store name").fill("Browser Shop");
    assert.equal(await page.getByLabel("Slug").inputValue(), "browser-shop");
    await page.getByRole("button", { name: "Create store" }).click();
    await heading(page, "Products");
    assert.equal(await page.getByLabel("Store", { exact: true }).inputValue(), "browser-shop");
    await page.getByText("No products yet").waitFor();

    // Product text that looks like markup stays text.
    const title = 'Canvas <b>tote</b> <img src=x onerror="window.__xss=1">';
    await page.getByLabel("Title", { exact: true }).fill(title);
    await page.getByLabel("Price (USD)").fill("18.5");
    await page.getByLabel("Stock", { exact: true }).fill("10");
    await page.getByRole("button", { name: "Create product" }).click();
    const product = row(page, "Canvas <b>tote</b>");
    await product.waitFor();
    assert.match(await product.innerText(), /18\.50 USD/);
    assert.equal(await page.locator("main b, main img").count(), 0, "user text is never parsed as HTML");
    assert.equal(await page.evaluate(() => (globalThis as unknown as PageGlobals).__xss), undefined);
    assert.equal(
      await page.getByLabel("Title", { exact: true }).inputValue(),
      "",
      "the create form is cleared",
    );

    // Edit on the product's own page, at its own address (issue 32), linked from the list.
    await product.getByRole("link", { name: /^Edit/ }).click();
    await page.getByRole("heading", { level: 1, name: title }).waitFor();
    assert.match(new URL(page.url()).pathname, /^\/stores\/[^/]+\/products\/prod_[0-9A-Za-z]{22}$/);
    const details = page.getByRole("region", { name: "Details" });
    assert.equal(
      await details.getByLabel("Title", { exact: true }).inputValue(),
      title,
      "the form starts from the product",
    );
    // Stock changes on the product's page (inventory levels), not in the edit form (issue 30).
    assert.equal(await details.getByLabel("Stock", { exact: true }).count(), 0);
    await details.getByLabel("Price (USD)").fill("20");
    await details.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Changes saved").waitFor();
    await page.getByRole("link", { name: "Back to products" }).click();
    await heading(page, "Products");
    await row(page, "Canvas").filter({ hasText: "20.00 USD" }).waitFor();
    assert.match(await row(page, "Canvas").locator("td.num").nth(1).innerText(), /^10$/);

    await page.getByRole("link", { name: "Customers" }).click();
    await heading(page, "Customers");
    await page.getByLabel("First name").fill("Layla");
    await page.getByLabel("Last name").fill("Haddad");
    await page.getByLabel("E-mail", { exact: true }).fill("layla@example.com");
    await page.getByRole("button", { name: "Add customer" }).click();
    await row(page, "layla@example.com").filter({ hasText: "Layla Haddad" }).waitFor();

    await page.getByRole("link", { name: "Orders" }).click();
    await heading(page, "Orders");
    await page.getByText("No orders yet").waitFor();
    // The order form (issue 20): the customer, then products added from a search, with quantities.
    await page.getByRole("link", { name: "New order" }).click();
    await heading(page, "New order");
    await page.getByRole("button", { name: "Choose Layla Haddad" }).click();
    await page.getByRole("button", { name: /^Add Canvas/ }).click();
    await page.getByLabel(/^Quantity of Canvas/).fill("2");
    await page.getByRole("button", { name: "Place order" }).click();
    await heading(page, "Order #1001");
    await page.getByRole("link", { name: "Orders", exact: true }).click();
    await heading(page, "Orders");
    const order = row(page, "#1001");
    await order.waitFor();
    assert.match(await order.innerText(), /40\.00 USD/);
    await order.getByText("Layla Haddad").waitFor();
    assert.match(await order.innerText(), /2 × Canvas/);
    assert.equal(
      await order.locator(".badge").textContent(),
      "Pending",
      "the contract's label, not the code",
    );
    assert.deepEqual(await buttonsIn(order), ["Mark paid", "Cancel order"]);

    await order.getByRole("button", { name: "Mark paid" }).click();
    await order.locator(".badge", { hasText: /^Paid$/ }).waitFor();
    // A paid order is also fulfilled in one action (confirmed and shipped).
    assert.deepEqual(await buttonsIn(order), ["Fulfil", "Mark confirmed", "Cancel order"]);

    await page.getByRole("button", { name: "Log out" }).click();
    await heading(page, "Log in");
    // The session is gone on the server too: a fresh load of a page asks the server, and is sent to sign in.
    await page.goto(`${base}/stores/browser-shop/orders`);
    await page.waitForURL(/\/login\?next=/);
    await heading(page, "Log in");

    // A failed login shows the API's message; the right password lands where the merchant was going.
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Log in" }).click();
    const failure = page.getByRole("alert");
    await failure.waitFor();
    assert.match(await failure.innerText(), /password/i);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await heading(page, "Orders");
    assert.match(page.url(), /\/stores\/browser-shop\/orders$/);
    // Links from the first dashboard (#/stores/...) still lead to their page.
    await page.goto(`${base}/#/stores/browser-shop/products`);
    await heading(page, "Products");
    assert.deepEqual(errors, []);
  });

  it("after signing in, goes only to a page of this origin, whatever next says", async () => {
    const email = uniqueEmail("next");
    const signup = await fetch(`${base}/api/v1/dashboard/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: PASSWORD, name: "Next Merchant" }),
    });
    assert.equal(signup.status, 201);
    // `/\evil.example` and `/<TAB>/evil.example` are `//evil.example` to the browser: the old guard
    // let them through, and the router threw.
    for (const next of ["%2F%5Cevil.example", "%2F%09%2Fevil.example", "/%09/evil.example"]) {
      const { context, page, errors } = await ui.open();
      await page.goto(`${base}/login?next=${next}`);
      await heading(page, "Log in");
      await page.getByLabel("E-mail", { exact: true }).fill(email);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Log in" }).click();
      await heading(page, "Your stores");
      assert.equal(page.url(), `${base}/`, next);
      assert.deepEqual(errors, [], next);
      await context.close();
    }
  });

  it("offers only the legal next status, and cancelling asks first", async () => {
    const { context, page, errors } = await ui.open();
    const shop = await ui.merchant(context, "status-shop");
    const p = await shop.post("/products", flat({ title: "Mug", price: "9.00", stock: 50 }));
    const c = await shop.post("/customers", { firstName: "Omar", email: "omar@example.com" });
    const orders = [];
    for (let i = 0; i < 2; i++) {
      orders.push(
        await shop.post("/orders", { customerId: c.id, lineItems: [{ productId: p.id, quantity: 1 }] }),
      );
    }
    await page.goto(`${base}/stores/status-shop/orders`);
    const first = row(page, "#1001");
    await first.waitFor();
    const path: Array<[string, string[]]> = [
      ["Mark paid", ["Fulfil", "Mark confirmed", "Cancel order"]],
      ["Mark confirmed", ["Mark shipped", "Cancel order"]],
      ["Mark shipped", ["Mark delivered"]],
      ["Mark delivered", []],
    ];
    for (const [click, next] of path) {
      await first.getByRole("button", { name: click }).click();
      // Shipping asks how the order left (issue 20); every detail is optional.
      if (click === "Mark shipped")
        await page.getByRole("dialog").getByRole("button", { name: click }).click();
      await first.getByRole("button", { name: click }).waitFor({ state: "detached" });
      assert.deepEqual(await buttonsIn(first), next, `after "${click}"`);
    }
    assert.equal(await first.locator(".badge").textContent(), "Delivered");

    // The order moves elsewhere (another tab, an app) while this page still shows it pending.
    const second = row(page, "#1002");
    const moved = await context.request.post(
      `${base}/api/v1/dashboard/stores/status-shop/orders/${orders[1].id}/status`,
      {
        data: { status: "paid" },
      },
    );
    assert.equal(moved.status(), 200);
    await second.getByRole("button", { name: "Mark paid" }).click();
    const conflict = page.locator("#flash").getByRole("alert");
    await conflict.waitFor();
    assert.match(await conflict.innerText(), /paid/);
    await second.locator(".badge", { hasText: /^Paid$/ }).waitFor();

    await second.getByRole("button", { name: "Cancel order" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Keep it" }).click();
    await page.getByRole("dialog").waitFor({ state: "detached" });
    assert.equal(await second.locator(".badge").textContent(), "Paid", "dismissing changes nothing");
    await second.getByRole("button", { name: "Cancel order" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel order" }).click();
    await second.locator(".badge", { hasText: "Cancelled" }).waitFor();
    assert.deepEqual(await buttonsIn(second), []);

    await page.getByLabel("Show orders with status").selectOption("cancelled");
    await row(page, "#1001").waitFor({ state: "detached" });
    await row(page, "#1002").waitFor();
    assert.equal(await page.locator("tbody tr[data-order]").count(), 1);
    assert.deepEqual(errors, []);
  });

  it("shows the envelope's error message and puts each detail beside its field, in words", async () => {
    const { context, page, errors } = await ui.open();
    const shop = await ui.merchant(context, "errors-shop");
    await shop.post("/products", flat({ title: "Scarf", price: "12.00", sku: "SCARF-1", stock: 3 }));
    await shop.post("/customers", { firstName: "Mina", email: "mina@example.com" });
    await page.goto(`${base}/stores/errors-shop/products`);
    await row(page, "Scarf").waitFor();

    // Checked in the page with the contract's rule first: never a regular expression.
    await page.getByLabel("Title", { exact: true }).fill("Broken");
    await page.getByLabel("Price (USD)").fill("12,50");
    await page.getByRole("button", { name: "Create product" }).click();
    const price = page.getByLabel("Price (USD)");
    const priceError = page.locator(".field", { has: price }).locator(".field-error");
    await priceError.waitFor();
    assert.match(await priceError.innerText(), /an amount such as 19\.99/);
    assert.doesNotMatch(await page.locator("main").innerText(), /\^|\[0-9\]|\\d/);

    // USD has two decimals: the contract's pattern lets "1.999" through, the server refuses it.
    await price.fill("1.999");
    await page.getByRole("button", { name: "Create product" }).click();
    await priceError.filter({ hasText: "not a valid amount in USD" }).waitFor();
    assert.equal(await price.getAttribute("aria-invalid"), "true");
    assert.match(await page.getByRole("alert").first().innerText(), /./);

    // A conflict carries details too: the SKU is taken.
    await price.fill("2.50");
    await page.getByLabel("SKU", { exact: true }).fill("SCARF-1");
    await page.getByRole("button", { name: "Create product" }).click();
    const skuError = page
      .locator(".field", { has: page.getByLabel("SKU", { exact: true }) })
      .locator(".field-error");
    await skuError.filter({ hasText: "already used" }).waitFor();
    assert.equal(await price.getAttribute("aria-invalid"), null, "old errors are cleared on resubmit");

    // More than the stock: the error lands on the order line.
    await page.getByRole("link", { name: "Orders" }).click();
    await heading(page, "Orders");
    await page.getByRole("link", { name: "New order" }).click();
    await heading(page, "New order");
    await page.getByRole("button", { name: "Choose Mina" }).click();
    await page.getByRole("button", { name: "Add Scarf" }).click();
    await page.getByLabel("Quantity of Scarf").fill("5");
    await page.getByRole("button", { name: "Place order" }).click();
    await page.locator(".field-error", { hasText: "only 3 in stock" }).waitFor();
    assert.deepEqual(errors, []);
  });

  it("pages products with Load more and deletes one only after confirmation", async () => {
    const { context, page, errors } = await ui.open();
    const shop = await ui.merchant(context, "paging-shop");
    for (let i = 1; i <= 23; i++)
      await shop.post("/products", flat({ title: `Item ${String(i).padStart(2, "0")}`, price: "1.00" }));
    await page.goto(`${base}/stores/paging-shop/products`);
    const rows = page.locator("tbody tr");
    await rows.first().waitFor();
    assert.equal(await rows.count(), 20, "one page of 20");
    await page.getByRole("button", { name: "Load more" }).click();
    // The list is complete once it says so (the button reads "Loading…" while the page comes).
    await page.getByText("Showing 23 of 23").waitFor();
    assert.equal(await page.getByRole("button", { name: /Load more|Loading/ }).count(), 0);
    assert.equal(await rows.count(), 23);
    assert.equal(new Set(await rows.locator("td:first-child").allInnerTexts()).size, 23, "no duplicates");

    const victim = row(page, "Item 07");
    await victim.getByRole("button", { name: "Delete" }).click();
    const dialog = page.getByRole("dialog");
    assert.match(await dialog.innerText(), /Delete Item 07\?/);
    await dialog.getByRole("button", { name: "Keep it" }).click();
    await dialog.waitFor({ state: "detached" });
    assert.equal(await victim.count(), 1, "dismissing the dialog keeps the product");

    await victim.getByRole("button", { name: "Delete" }).click();
    await dialog.getByRole("button", { name: "Delete product" }).click();
    await victim.waitFor({ state: "detached" });
    const left = await context.request.get(`${base}/api/v1/dashboard/stores/paging-shop/products?limit=50`);
    const titles = ((await left.json()).data as Array<{ title: string }>).map((p) => p.title);
    assert.equal(titles.length, 22);
    assert.ok(!titles.includes("Item 07"));
    assert.deepEqual(errors, []);
  });

  it("creates an API key pair, shows its secret once, and revokes it", async () => {
    const { context, page, errors } = await ui.open();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
    await ui.merchant(context, "keys-shop");
    await page.goto(`${base}/stores/keys-shop/api-keys`);
    await heading(page, "API keys");
    await page.getByText("No key pairs yet").waitFor();
    assert.match(await page.locator("main").innerText(), /Grant the minimum the integration needs/);

    // No scope: refused in the page before any request.
    await page.getByLabel("Key name").fill("Export");
    await page.getByRole("button", { name: "Create key pair" }).click();
    await page.getByRole("alert").filter({ hasText: "Pick at least one scope" }).waitFor();

    await page.getByRole("checkbox", { name: /See your products and stock/ }).check();
    await page.getByRole("button", { name: "Create key pair" }).click();
    const reveal = page.getByRole("region", { name: "New key pair" });
    await reveal.waitFor();
    assert.match(await reveal.innerText(), /only time the secret is shown/);
    const keyId = await reveal.getByLabel("Key id (x-api-key)").inputValue();
    const secret = await reveal.getByLabel("Secret (x-api-secret)").inputValue();
    assert.match(keyId, /^mpk_/);
    assert.match(secret, /^mpsk_/);
    await reveal.getByRole("button", { name: "Copy" }).nth(1).click();
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as PageGlobals).navigator.clipboard.readText()),
      secret,
      "Copy copies the secret",
    );

    await reveal.getByRole("button", { name: "I have copied it" }).click();
    await reveal.waitFor({ state: "detached" });
    const keyRow = row(page, keyId);
    await keyRow.waitFor();
    assert.match(await keyRow.innerText(), /read_products/);
    assert.doesNotMatch(await keyRow.innerText(), /write_products|read_orders/);

    const headers = { "x-api-key": keyId, "x-api-secret": secret };
    assert.equal((await fetch(`${base}/api/v1/developer/store`, { headers })).status, 200);

    // Shown once: after a reload the page holds no secret.
    await page.reload();
    await keyRow.waitFor();
    assert.ok(!(await page.content()).includes(secret));

    await keyRow.getByRole("button", { name: "Revoke" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await keyRow.locator(".badge", { hasText: "revoked" }).waitFor();
    assert.equal((await fetch(`${base}/api/v1/developer/store`, { headers })).status, 401);
    assert.deepEqual(errors, []);
  });

  it("is usable at phone width", async () => {
    const { context, page, errors } = await ui.open(PHONE);
    const shop = await ui.merchant(context, "phone-shop");
    const p = await shop.post(
      "/products",
      flat({ title: "Linen shirt, long sleeves", price: "49.00", stock: 5 }),
    );
    const c = await shop.post("/customers", { firstName: "Sara", email: "sara@example.com" });
    await shop.post("/orders", { customerId: c.id, lineItems: [{ productId: p.id, quantity: 2 }] });
    await page.goto(`${base}/stores/phone-shop/products`);
    await row(page, "Linen shirt").waitFor();
    const ordersLink = page.getByRole("link", { name: "Orders" });
    assert.equal(await ordersLink.isVisible(), false, "the menu starts folded");
    await page.getByRole("button", { name: "Menu" }).click();
    await shoot(page, "phone-menu");
    await ordersLink.click();
    await row(page, "#1001").waitFor();
    assert.equal(await ordersLink.isVisible(), false, "a navigation folds the menu again");
    const overflow = await page.evaluate(() => {
      const g = globalThis as unknown as PageGlobals;
      return g.document.documentElement.scrollWidth - g.innerWidth;
    });
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
    assert.deepEqual(errors, []);
  });

  it("shows the consent page, installs the app on approval and lists it under Installed apps", async () => {
    const { context, page, errors } = await ui.open();
    // A developer registers an app through the API; the merchant approves it in the browser.
    const dev = await fetch(`${base}/api/v1/dashboard/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: uniqueEmail("dev"), password: PASSWORD, name: "Dev" }),
    });
    const cookie = dev.headers.get("set-cookie")!.split(";")[0]!;
    const registered = await fetch(`${base}/api/v1/dashboard/apps`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({
        name: "Shelf Sync",
        redirectUris: ["https://app.example.com/cb"],
        scopes: ["read_products", "read_orders"],
      }),
    });
    const clientId = ((await registered.json()) as { data: { clientId: string } }).data.clientId;
    const { email: merchantEmail } = await ui.merchant(context, "consent-shop");

    // The app's redirect target does not exist here: catch the navigation instead of following it.
    await page.route("https://app.example.com/**", (route) =>
      route.fulfill({ status: 200, body: "app callback" }),
    );
    const q = new URLSearchParams({
      client_id: clientId,
      redirect_uri: "https://app.example.com/cb",
      response_type: "code",
      scope: "read_products read_orders",
      state: "abc",
    });
    // Signed out first: the authorize link leads through sign-in to the consent page.
    await context.clearCookies();
    await page.goto(`${base}/api/v1/apps/authorize?${q}`);
    await heading(page, "Log in");
    await page.getByLabel("E-mail", { exact: true }).fill(merchantEmail);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Install Shelf Sync?" }).waitFor();
    assert.match(await page.locator("main").innerText(), /See your products and stock/);
    assert.equal(await page.getByLabel("Install into").inputValue(), "consent-shop");
    await shoot(page, "consent");
    await Promise.all([
      page.waitForURL(/app\.example\.com\/cb/),
      page.getByRole("button", { name: "Approve and install" }).click(),
    ]);
    const url = new URL(page.url());
    assert.match(url.searchParams.get("code") ?? "", /^mpac_/);
    assert.equal(url.searchParams.get("slug"), "consent-shop");
    assert.equal(url.searchParams.get("state"), "abc");

    await page.goto(`${base}/stores/consent-shop/apps`);
    const installed = row(page, "Shelf Sync");
    await installed.waitFor();
    assert.match(await installed.innerText(), /See your products and stock/);
    assert.doesNotMatch(await installed.innerText(), /read_products/, "scope labels, not codes");
    await installed.getByRole("button", { name: "Uninstall" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Uninstall" }).click();
    await page.getByText("No app is installed").waitFor();
    assert.deepEqual(errors, []);
  });
});
