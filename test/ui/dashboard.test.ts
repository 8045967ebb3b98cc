import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { createTestContext, type TestContext, uniqueEmail } from "../harness.ts";
import { chromiumSkipReason } from "../requirements.ts";
import { launchChromium } from "./browser.ts";

const SHOTS = join(import.meta.dirname, "..", "..", ".tmp");

describe("merchant dashboard in a real browser", { skip: chromiumSkipReason() }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let page: Page;
  let base: string;
  const pageErrors: string[] = [];
  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    ctx = await createTestContext();
    base = await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on(
      "console",
      (m) => m.type() === "error" && !/Failed to load resource/.test(m.text()) && pageErrors.push(m.text()),
    );
    page.on("dialog", (d) => d.accept());
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  it("signs up, creates a store, a product, a customer and an order, moves it on, and logs out", async () => {
    await page.goto(`${base}/`);
    await page.getByText("Create an account").click();
    await page.getByLabel("Your name").fill("Browser Merchant");
    await page.getByLabel("E-mail").fill(uniqueEmail("browser"));
    await page.getByLabel("Password").fill("a long password");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Your stores" }).waitFor();

    await page.getByLabel("Name").fill("Browser Shop");
    await page.getByLabel("Slug (used in URLs)").fill("browser-shop");
    await page.getByRole("button", { name: "Create store" }).click();
    await page.getByRole("heading", { name: /Browser Shop/ }).waitFor();

    await page.getByLabel("Title").fill("Canvas <b>tote</b>");
    await page.getByLabel("Price (USD)").fill("18.5");
    await page.getByLabel("Stock").fill("10");
    await page.getByRole("button", { name: "Create product" }).click();
    const row = page.locator("tr", { hasText: "Canvas <b>tote</b>" });
    await row.waitFor();
    assert.match(await row.innerText(), /18\.50 USD/);
    assert.equal(
      await page.locator("b", { hasText: "tote" }).count(),
      0,
      "user text is never parsed as HTML",
    );

    await row.getByRole("button", { name: "Edit" }).click();
    await page
      .locator("form")
      .filter({ has: page.getByRole("button", { name: "Save changes" }) })
      .getByLabel("Stock")
      .fill("12");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.locator("tr", { hasText: "Canvas" }).filter({ hasText: "12" }).waitFor();

    // A validation error is shown from the envelope, per field.
    await page.getByLabel("Title").last().fill("Broken");
    await page.getByLabel("Price (USD)").last().fill("1.999");
    await page
      .locator("input[name=price]")
      .last()
      .evaluate((el) => el.removeAttribute("pattern"));
    await page.getByRole("button", { name: "Create product" }).click();
    await page.getByRole("alert").filter({ hasText: "price" }).waitFor();

    await page.getByRole("link", { name: "Customers" }).click();
    await page.getByLabel("First name").fill("Layla");
    await page.getByLabel("E-mail").fill("layla@example.com");
    await page.getByRole("button", { name: "Add customer" }).click();
    await page.locator("tr", { hasText: "layla@example.com" }).waitFor();

    await page.getByRole("link", { name: "Orders" }).click();
    await page.getByLabel("Quantity").fill("2");
    await page.getByRole("button", { name: "Place order" }).click();
    const order = page.locator("tr", { hasText: "#1001" });
    await order.waitFor();
    assert.match(await order.innerText(), /37\.00 USD/);
    assert.match(await order.innerText(), /pending/);
    await order.getByRole("button", { name: "Mark paid" }).click();
    await page
      .locator("tr", { hasText: "#1001" })
      .filter({ hasText: "paid" })
      .getByRole("button", { name: "Mark confirmed" })
      .waitFor();
    await page.screenshot({ path: join(SHOTS, "dashboard-orders.png"), fullPage: true });

    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Name").fill("Export");
    await page.getByLabel("Read products").check();
    await page.getByRole("button", { name: "Create key pair" }).click();
    const secret = await page.getByTestId("key-secret").innerText();
    assert.match(secret, /x-api-secret: mpsk_/);
    const keyId = (await page.getByTestId("key-id").innerText()).replace("x-api-key: ", "");
    const viaKey = await fetch(`${base}/api/v1/developer/store`, {
      headers: { "x-api-key": keyId, "x-api-secret": secret.replace("x-api-secret: ", "") },
    });
    assert.equal(viaKey.status, 200, "the key created in the dashboard works");
    await page.screenshot({ path: join(SHOTS, "dashboard-api-keys.png"), fullPage: true });

    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { name: "Log in" }).waitFor();
    assert.deepEqual(pageErrors, []);
  });

  it("serves the dashboard with a strict Content-Security-Policy", async () => {
    const res = await fetch(`${base}/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-security-policy") ?? "", /script-src 'self'/);
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  });

  it("shows the consent page, installs the app on approval and redirects with a code", async () => {
    // A developer registers an app through the API; the merchant approves it in the browser.
    const devClient = await fetch(`${base}/api/v1/dashboard/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: uniqueEmail("dev"), password: "a long password", name: "Dev" }),
    });
    const cookie = devClient.headers.get("set-cookie")!.split(";")[0]!;
    const registered = await (
      await fetch(`${base}/api/v1/dashboard/apps`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify({
          name: "Shelf Sync",
          redirectUris: ["https://app.example.com/cb"],
          scopes: ["read_products", "read_orders"],
        }),
      })
    ).json();
    const clientId = (registered as { data: { clientId: string } }).data.clientId;
    const email = uniqueEmail("merchant");
    await page.goto(`${base}/`);
    await page.getByText("Create an account").click();
    await page.getByLabel("Your name").fill("Consenting Merchant");
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill("a long password");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByLabel("Slug (used in URLs)").fill("consent-shop");
    await page.getByLabel("Name").fill("Consent Shop");
    await page.getByRole("button", { name: "Create store" }).click();
    await page.getByRole("heading", { name: /Consent Shop/ }).waitFor();

    // The app's redirect target does not exist here: catch the navigation instead of following it.
    await page.route("https://app.example.com/**", (route) =>
      route.fulfill({ status: 200, body: "app callback" }),
    );
    const q = new URLSearchParams({
      client_id: clientId,
      redirect_uri: "https://app.example.com/cb",
      scope: "read_products read_orders",
      state: "abc",
    });
    await page.goto(`${base}/api/v1/apps/authorize?${q}`);
    await page.getByRole("heading", { name: "Install Shelf Sync?" }).waitFor();
    assert.match(await page.locator("main").innerText(), /See your products and stock/);
    await page.screenshot({ path: join(SHOTS, "consent.png"), fullPage: true });
    await Promise.all([
      page.waitForURL(/app\.example\.com\/cb/),
      page.getByRole("button", { name: "Approve and install" }).click(),
    ]);
    const url = new URL(page.url());
    assert.match(url.searchParams.get("code") ?? "", /^mpac_/);
    assert.equal(url.searchParams.get("slug"), "consent-shop");
    assert.equal(url.searchParams.get("state"), "abc");
    await page.goto(`${base}/#/stores/consent-shop/apps`);
    await page.locator("tr", { hasText: "Shelf Sync" }).waitFor();
  });
});
