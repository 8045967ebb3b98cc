import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Locator, Page } from "playwright-core";
import { GRANTABLE_SCOPES, ORDER_STATUSES } from "../../src/contracts/index.ts";
import { REDIRECT } from "../apps-harness.ts";
import { createTestContext, type TestContext } from "../harness.ts";
import { chromiumSkipReason } from "../requirements.ts";
import { launchChromium } from "./browser.ts";
import { assertAccessible, DESKTOP, heading, type PageGlobals, PHONE, pages, row, shoot } from "./pages.ts";

/**
 * The first hour of a new merchant and app developer (issue 23), at 1366×800 and 390×844: the
 * one-time secret is in view and focused; forms and labels look finished; lists keep their state
 * in the address; typed addresses without a page show the dashboard's not-found page; the demo
 * store's overview has a sales chart a phone and a screen reader can read.
 */
type Box = { top: number; bottom: number; left: number; right: number };
type Dom = {
  document: {
    activeElement: unknown;
    querySelector(s: string): { getBoundingClientRect(): Box; contains(e: unknown): boolean } | null;
  };
  innerHeight: number;
  innerWidth: number;
  getComputedStyle(e: unknown): { listStyleType: string; display: string };
};

/** Where the panel is in the viewport, what is focused, and the sticky top bar's bottom (phone). */
async function inView(page: Page, selector: string) {
  return page.evaluate((sel) => {
    const g = globalThis as unknown as Dom;
    const panel = g.document.querySelector(sel)!;
    const bar = g.document.querySelector(".sidebar")!.getBoundingClientRect();
    const box = panel.getBoundingClientRect();
    return {
      top: box.top,
      bottom: box.bottom,
      height: g.innerHeight,
      // At phone width the sidebar is a sticky top bar over the page.
      covered: g.innerWidth <= 800 ? bar.bottom : 0,
      focusInside: panel.contains(g.document.activeElement),
    };
  }, selector);
}

async function assertSecretShown(page: Page, width: string) {
  const where = await inView(page, ".secret-panel");
  assert.ok(
    where.top >= where.covered && where.bottom <= where.height,
    `${width}: the secret panel is in view: ${JSON.stringify(where)}`,
  );
  assert.ok(where.focusInside, `${width}: focus is in the secret panel, not on <body>`);
}

/** Nothing is being fetched, and what was fetched is drawn (the dashboard's main is aria-busy while a query is in flight). */
async function idle(page: Page) {
  await page.locator('main[aria-busy="false"]').waitFor();
}

/** The checkbox sits on the first line of its label's text, right beside it. */
async function assertCheckBesideLabel(check: Locator, what: string) {
  // Both boxes in one frame: measured one after the other, a list still loading above the form
  // moved the text between the two reads (a flake seen once on a fresh clone).
  interface Boxed {
    getBoundingClientRect(): { x: number; y: number; width: number; height: number };
    nextElementSibling: Boxed | null;
  }
  const { box, text } = await check.evaluate((node) => {
    const el = node as unknown as Boxed;
    const rect = (e: Boxed) => {
      const r = e.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    };
    return { box: rect(el), text: rect(el.nextElementSibling!) };
  });
  assert.ok(text.x - (box.x + box.width) < 16 && text.x > box.x, `${what}: label text right of the box`);
  assert.ok(
    box.y < text.y + 24 && box.y + box.height > text.y,
    `${what}: the box on the label's first line (box ${JSON.stringify(box)}, text ${JSON.stringify(text)})`,
  );
}

describe("the first hour in a real browser", { skip: chromiumSkipReason() }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let base: string;
  let demo: { email: string; password: string };
  const ui = pages(
    () => browser,
    () => base,
  );

  before(async () => {
    ctx = await createTestContext({}, { demo: true });
    demo = ctx.demo!;
    base = await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    browser = await launchChromium();
  });
  after(async () => {
    await ui.close();
    await browser?.close();
    await ctx?.close();
  });

  async function demoPage(viewport = DESKTOP) {
    const opened = await ui.open(viewport);
    const login = await opened.context.request.post(`${base}/api/v1/dashboard/auth/login`, { data: demo });
    assert.equal(login.status(), 200);
    return opened;
  }

  for (const [width, viewport] of [
    ["1366", DESKTOP],
    ["390", PHONE],
  ] as const) {
    it(`register app at ${width}: the client secret is in view and focused, and stays until copied`, async () => {
      const { context, page, errors } = await ui.open(viewport);
      await ui.merchant(context, `secret-shop-${width}`, "Dev Merchant");
      await page.goto(`${base}/apps`);
      await heading(page, "My apps");
      // The form says what the contract accepts: https, and plain http on localhost.
      assert.match(
        await page.locator("main").innerText(),
        /https:\/\/[\s\S]*http:\/\/ is accepted only on localhost, 127\.0\.0\.1/,
      );
      await page.getByLabel("App name").fill("Stock Sync");
      await page.getByLabel("Redirect URIs").fill(`${REDIRECT}\nhttp://localhost:8080/callback`);
      const check = page.getByRole("checkbox", { name: /See your products and stock/ });
      await assertCheckBesideLabel(check, `register form at ${width}`);
      await check.check();
      const relisted = page.waitForResponse(
        (r) => r.request().method() === "GET" && new URL(r.url()).pathname === "/api/v1/dashboard/apps",
      );
      await page.getByRole("button", { name: "Register app" }).click();
      const reveal = page.getByRole("region", { name: "New app credentials" });
      await reveal.waitFor();
      // Once the list below it has been fetched again and drawn, not after a guessed 300 ms.
      await relisted;
      await idle(page);
      await assertSecretShown(page, width);
      assert.match(await reveal.getByLabel("Client secret").inputValue(), /^mpcs_/);
      await shoot(page, `first-hour-registered-${width}`);
      await assertAccessible(page, `registered app at ${width}`);

      // Leaving asks first; staying keeps the secret.
      // (The sidebar's link, folded away at phone width: clicked as a script would.)
      await page.locator('#sidebar-nav a[href="/account"]').dispatchEvent("click");
      const leave = page.getByRole("dialog");
      await leave.getByText("shown only this once").waitFor();
      await leave.getByRole("button", { name: "Keep it" }).click();
      await reveal.waitFor();
      assert.equal(new URL(page.url()).pathname, "/apps");
      await reveal.getByRole("button", { name: "I have copied it" }).click();
      await reveal.waitFor({ state: "detached" });
      assert.deepEqual(errors, []);
    });

    it(`new key pair at ${width}: the secret is in view and focused`, async () => {
      const { context, page, errors } = await ui.open(viewport);
      await ui.merchant(context, `key-shop-${width}`);
      await page.goto(`${base}/stores/key-shop-${width}/api-keys`);
      await heading(page, "API keys");
      await page.getByLabel("Key name").fill("Export");
      await idle(page);
      const check = page.getByRole("checkbox", { name: /See your products and stock/ });
      await assertCheckBesideLabel(check, `key form at ${width}`);
      await check.check();
      const relisted = page.waitForResponse(
        (r) => r.request().method() === "GET" && new URL(r.url()).pathname.endsWith("/api-keys"),
      );
      await page.getByRole("button", { name: "Create key pair" }).click();
      const reveal = page.getByRole("region", { name: "New key pair" });
      await reveal.waitFor();
      // Once the list below it has been fetched again and drawn, not after a guessed 300 ms.
      await relisted;
      await idle(page);
      await assertSecretShown(page, width);
      await reveal.getByRole("button", { name: "I have copied it" }).click();
      await reveal.waitFor({ state: "detached" });
      // The key's scopes in the contract's words.
      assert.match(await row(page, "Export").innerText(), new RegExp(GRANTABLE_SCOPES.read_products.label));
      assert.deepEqual(errors, []);
    });
  }

  it("your stores: a card with no stray list bullet", async () => {
    const { page } = await demoPage();
    await page.goto(`${base}/`);
    await heading(page, "Your stores");
    await page.locator(".store-card").first().waitFor();
    const bullet = await page.evaluate(() => {
      const g = globalThis as unknown as Dom;
      return g.getComputedStyle(g.document.querySelector(".store-grid li")).listStyleType;
    });
    assert.equal(bullet, "none");
  });

  it("lists keep search, sort, filter and pages in the address: reload, Back and a shared link", async () => {
    const { page, context, errors } = await demoPage();
    await page.goto(`${base}/stores/demo-store/products`);
    await heading(page, "Products");
    // A part of a SKU finds it.
    await page.getByLabel("Search by title or SKU").fill("lth");
    await page.waitForURL(/q=lth/);
    await row(page, "WAL-LTH").waitFor();
    const sorted = page.waitForResponse((r) => r.url().includes("sort=-price"));
    await page.getByLabel("Sort by").selectOption("-price");
    await page.waitForURL(/sort=-price/);
    const url = page.url();
    const shown = async (p: Page) =>
      (await p.locator("tbody tr").allInnerTexts()).map((t) => t.split("\t")[0]);
    // The previous rows stay on screen until the sorted ones have arrived (keepPreviousData).
    await sorted;
    await idle(page);
    const before = await shown(page);
    assert.ok(before.length >= 2, `${before}`);
    await page.reload();
    await row(page, "WAL-LTH").waitFor();
    assert.equal(await page.getByLabel("Search by title or SKU").inputValue(), "lth");
    assert.equal(await page.getByLabel("Sort by").inputValue(), "-price");
    assert.deepEqual(await shown(page), before, "a reload shows the same list");
    // Back undoes the sort, keeping the search.
    await page.goBack();
    await page.waitForURL((u) => !u.search.includes("sort="));
    // The address changes first; the form follows when the page has drawn it.
    await page
      .getByLabel("Sort by")
      .locator('option[value="-createdAt"]:checked')
      .waitFor({ state: "attached" });
    assert.equal(await page.getByLabel("Sort by").inputValue(), "-createdAt");
    assert.equal(await page.getByLabel("Search by title or SKU").inputValue(), "lth");
    // A shared link opens the same list in another tab.
    const other = await context.newPage();
    await other.goto(url);
    await row(other, "WAL-LTH").waitFor();
    assert.equal(await other.getByLabel("Sort by").inputValue(), "-price");
    await other.close();

    // Pages shown are kept too: Load more, reload, still 40 orders.
    await page.goto(`${base}/stores/demo-store/orders`);
    await heading(page, "Orders");
    // "of" the store's count (its count operation), formatted as the browser counts.
    const total = await page.evaluate(async (path) => {
      const res = await fetch(path);
      return new Intl.NumberFormat().format(((await res.json()) as { data: { count: number } }).data.count);
    }, "/api/v1/dashboard/stores/demo-store/orders/count");
    await page.getByText(`Showing 20 of ${total} orders`, { exact: true }).waitFor();
    await page.getByRole("button", { name: "Load more" }).click();
    await page.waitForURL(/pages=2/);
    await page.getByText(`Showing 40 of ${total} orders`, { exact: true }).waitFor();
    await page.reload();
    await page.getByText(`Showing 40 of ${total} orders`, { exact: true }).waitFor();

    // The status filter shows the contract's labels, and is in the address.
    const options = await page.getByLabel("Show orders with status").locator("option").allInnerTexts();
    assert.ok(options.includes(ORDER_STATUSES.pending.label) && !options.includes("pending"), `${options}`);
    await page.getByLabel("Show orders with status").selectOption("shipped");
    await page.waitForURL(/status=shipped/);
    assert.equal(new URL(page.url()).searchParams.get("pages"), null, "another filter starts at page 1");
    await page.reload();
    await page.locator("tbody tr .badge").first().waitFor();
    const badges = await page.locator("tbody tr .badge").allInnerTexts();
    assert.ok(badges.length > 0 && badges.every((b) => b === ORDER_STATUSES.shipped.label), `${badges}`);
    // A filtered list does not claim the store's count as its own.
    await page.getByText(/^Showing (the first \d+ matching orders|(\d+) of \2 orders)$/).waitFor();
    assert.deepEqual(errors, []);
  });

  it("the overview's status chips open the orders filtered by that status", async () => {
    const { page, errors } = await demoPage();
    await page.goto(`${base}/stores/demo-store`);
    await heading(page, "Demo Store");
    const chips = page.getByRole("region", { name: "Orders by status" });
    await chips.getByRole("link", { name: new RegExp(ORDER_STATUSES.paid.label) }).click();
    await heading(page, "Orders");
    assert.equal(new URL(page.url()).searchParams.get("status"), "paid");
    assert.equal(await page.getByLabel("Show orders with status").inputValue(), "paid");
    await page.locator("tbody tr .badge").first().waitFor();
    const badges = await page.locator("tbody tr .badge").allInnerTexts();
    assert.ok(
      badges.every((b) => b === ORDER_STATUSES.paid.label),
      `${badges}`,
    );
    await page.goBack();
    await heading(page, "Demo Store");
    assert.deepEqual(errors, []);
  });

  it("typed addresses without a page show the dashboard's not-found page; API paths keep the envelope", async () => {
    const { page } = await demoPage();
    for (const path of ["/orders", "/settings"]) {
      const res = await page.goto(`${base}${path}`);
      assert.equal(res?.status(), 404, path);
      await heading(page, "Page not found");
      // A store's section without the store: a link to it in each store.
      await page.getByRole("link", { name: /of Demo Store$/ }).waitFor();
    }
    await page.getByRole("link", { name: "Settings of Demo Store" }).click();
    await heading(page, "Settings");
    const api = await fetch(`${base}/api/v1/nothing`, { headers: { accept: "text/html" } });
    assert.equal(api.status, 404);
    assert.equal(((await api.json()) as { success: boolean }).success, false);
    const json = await fetch(`${base}/orders`);
    assert.equal(json.status, 404);
    assert.match(
      json.headers.get("content-type") ?? "",
      /json/,
      "a client that does not ask for HTML gets JSON",
    );
  });

  for (const [width, viewport] of [
    ["1366", DESKTOP],
    ["390", PHONE],
  ] as const) {
    it(`overview at ${width}: today, 7 and 30 days differ; a sales chart with its figures for screen readers`, async () => {
      const { page, errors } = await demoPage(viewport);
      await page.goto(`${base}/stores/demo-store`);
      await heading(page, "Demo Store");
      // The heading comes with the store; the figures come with the overview's own request.
      await page.locator(".stat-value").nth(2).waitFor();
      const stats = await page.locator(".stat-value").allInnerTexts();
      assert.equal(new Set(stats).size, 3, `${stats}`);
      const chart = page.getByRole("region", { name: "Sales, last 30 days" });
      await chart.locator("svg rect.bar").first().waitFor();
      assert.equal(await chart.locator("svg rect.bar").count(), 30);
      assert.match(await chart.innerText(), /best day was/);
      await chart.getByText("Show the figures").click();
      assert.equal(await chart.locator("tbody tr").count(), 30);
      const overflow = await page.evaluate(() => {
        const g = globalThis as unknown as PageGlobals;
        return g.document.documentElement.scrollWidth - g.innerWidth;
      });
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
      await assertAccessible(page, `overview at ${width}`);
      await chart.getByText("Show the figures").click();
      await shoot(page, `first-hour-overview-${width}`);
      assert.deepEqual(errors, []);
    });
  }
});
