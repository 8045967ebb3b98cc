import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { createTestContext, type TestContext } from "../harness.ts";
import { chromiumSkipReason } from "../requirements.ts";
import { launchChromium } from "./browser.ts";

const SHOTS = join(import.meta.dirname, "..", "..", ".tmp");

describe("interactive API docs, offline, in a real browser", { skip: chromiumSkipReason() }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let base: string;
  before(async () => {
    ctx = await createTestContext();
    base = await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  it("renders every tag's operations with all requests to other hosts blocked", async () => {
    const page = await browser.newPage();
    const blocked: string[] = [];
    await page.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === "127.0.0.1") return route.continue();
      blocked.push(url.href);
      return route.abort();
    });
    await page.goto(`${base}/api/docs/ui`);
    await page.locator(".opblock").first().waitFor({ timeout: 20_000 });
    const operations = await page.locator(".opblock").count();
    assert.ok(operations >= 40, `${operations} operations rendered`);
    assert.match(await page.locator("body").innerText(), /Admin API: products/);
    assert.match(await page.locator("body").innerText(), /Developer API/);
    // Interactive, not only rendered: an operation opens to show its responses.
    await page.locator(".opblock-summary").first().click();
    await page.locator(".opblock .responses-wrapper").first().waitFor();
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, "docs-offline.png") });
    assert.deepEqual(blocked, [], "the docs tried to reach another host");
  });
});
