import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { createTestContext, type TestContext } from "../harness.ts";
import { chromiumSkipReason } from "../requirements.ts";
import { launchChromium } from "./browser.ts";
import { heading, pages, review } from "./pages.ts";

const CSV = [
  "Handle,Title,Vendor,Tags,Option1 Name,Option1 Value,Variant SKU,Variant Price,Variant Inventory Qty",
  'linen-shirt,Linen shirt,Nordic Linen Co.,"summer, linen",Size,S,LIN-S,49.00,5',
  "linen-shirt,,,,,M,LIN-M,49.00,3",
  "linen-shirt,,,,,L,LIN-L,49.00,0",
  "canvas-tote,Canvas tote,Harbour Goods,bags,,,TOTE-1,18.50,12",
  "wool-scarf,Wool scarf,Harbour Goods,winter,,,SCARF-1,24.999,4",
  ",Desk lamp,,,,,LAMP-1,60.00,2",
  "ceramic-mug,Ceramic mug,Kiln & Co.,kitchen,,,MUG-1,12.00,30",
].join("\n");

/**
 * Import and export in a real browser (issue 32, part 5): a merchant uploads a products CSV, reads
 * the preview with its per-row problems, runs a dry run, then the import, watching its progress,
 * and downloads the products as CSV. Checked with axe-core and photographed at both widths.
 */
describe("CSV import and export in a real browser", { skip: chromiumSkipReason() }, () => {
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

  it("uploads a CSV, shows the preview with per-row errors, dry-runs, imports with progress and downloads the export", async () => {
    const { context, page } = await ui.open();
    const slug = "import-shop";
    await ui.merchant(context, slug, "Ines Merchant");
    await page.goto(`${base}/stores/${slug}/import-export`);
    await heading(page, "Import and export");
    await page.getByLabel("CSV file").setInputFiles({
      name: "catalogue.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(CSV),
    });
    await page.getByRole("button", { name: "Check the file" }).click();
    await heading(page, "Import and export");
    await page.getByRole("region", { name: "Preview of catalogue.csv" }).waitFor();
    const problems = page.getByRole("region", { name: "Problems by row" });
    await problems.getByText('"24.999" is not an amount in USD: at most 2 decimals').waitFor();
    await problems.getByText(/is required: it says which product/).waitFor();
    await review(page, "import-preview");

    await page.getByRole("button", { name: "Dry run" }).click();
    await page
      .getByText(/Dry run/)
      .first()
      .waitFor();
    // The worker's turn: the run was queued by the click; the page polls its progress.
    assert.equal(await ctx.platform.imports.work(), true);
    await page.getByText("would be created").waitFor();
    await page.getByText(/4 of 4 products gone through/).waitFor();
    assert.equal((await ctx.platform.db.selectFrom("products").select("id").execute()).length, 0);

    await page.getByRole("button", { name: /^Import/ }).click();
    await page
      .getByText(/^Import$/)
      .first()
      .waitFor();
    assert.equal(await ctx.platform.imports.work(), true);
    await page
      .getByText(/\bcreated\b/)
      .first()
      .waitFor();
    await page.getByText(/4 of 4 products gone through/).waitFor();
    await review(page, "import-done");
    assert.equal((await ctx.platform.db.selectFrom("products").select("id").execute()).length, 3);

    // A larger file of customers: its progress shown batch by batch, as the worker commits them.
    await page.getByLabel("What the file holds").selectOption("customers");
    const people = Array.from({ length: 120 }, (_, i) => `shopper${i}@example.com,Shopper,${i},yes`);
    await page.getByLabel("CSV file").setInputFiles({
      name: "customers.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(["Email,First Name,Last Name,Tax Exempt", ...people].join("\n")),
    });
    await page.getByRole("button", { name: "Check the file" }).click();
    await page.getByRole("region", { name: "Preview of customers.csv" }).waitFor();
    await page.getByText("No problems found: every row can be imported.").waitFor();
    await page.getByRole("button", { name: "Import customers" }).click();
    await page.getByText(/0 of 120 customers gone through/).waitFor();
    // One batch, then this worker stops (a restart): the page shows how far it got.
    assert.equal(await ctx.platform.imports.work({ afterBatch: () => true }), true);
    await page.getByText(/50 of 120 customers gone through/).waitFor();
    assert.equal(
      await page.getByRole("progressbar", { name: "Import progress" }).getAttribute("value"),
      "50",
    );
    await review(page, "import-progress");
    // The next worker takes the run up once the stopped one's lease has lapsed.
    ctx.clock.advance(61_000);
    assert.equal(await ctx.platform.imports.work(), true);
    await page.getByText(/120 of 120 customers gone through/).waitFor();
    await page.getByText("Finished").waitFor();

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download products" }).click(),
    ]);
    const csv = await readFile((await download.path())!, "utf8");
    assert.match(csv, /^Handle,Title,Description/);
    assert.match(csv, /LIN-M/);
    assert.match(download.suggestedFilename(), /^import-shop-products-\d{4}-\d{2}-\d{2}\.csv$/);
  });
});
