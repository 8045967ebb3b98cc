import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { apiClient, createTestContext, type TestContext } from "../harness.ts";
import { chromiumSkipReason } from "../requirements.ts";
import { launchChromium } from "./browser.ts";
import { heading, PHONE, pages, review, row } from "./pages.ts";

const COLOURS = ["Red", "Blue"];
const SIZES = ["S", "M", "L"];
const MATERIALS = ["Cotton", "Linen"];

/**
 * A real catalogue in the dashboard (issue 30), in a real browser: a product with three options
 * (Colour × Size × Material, 12 variants) made through the API; its page lists every variant,
 * edits a price in the grid, sets stock at a location with compare-and-set (and says so when the
 * stock changed meanwhile), changes the options; checked with axe-core and photographed at
 * 1366×800 and 390×844.
 */
describe("the product page in a real browser", { skip: chromiumSkipReason() }, () => {
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

  it("shows every variant of a 3-option product, edits a price, sets stock (and refuses a stale one), edits the options", async () => {
    const { context, page, errors } = await ui.open();
    const slug = "catalogue-shop";
    await ui.merchant(context, slug, "Sara Merchant");
    const client = apiClient(ctx.app);
    const cookies = await context.cookies();
    client.jar.cookie = `mp_session=${cookies.find((c) => c.name === "mp_session")!.value}`;

    const variants = COLOURS.flatMap((colour) =>
      SIZES.flatMap((size) =>
        MATERIALS.map((material) => ({
          optionValues: [colour, size, material],
          price: material === "Linen" ? "25.00" : "20.00",
          sku: `TEE-${colour}-${size}-${material}`.toUpperCase(),
          inventoryQuantity: 5,
        })),
      ),
    );
    const created = await client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug } },
      body: {
        title: "Everyday tee",
        vendor: "Nordic Linen Co.",
        productType: "Shirts",
        tags: ["summer"],
        options: [
          { name: "Colour", values: COLOURS },
          { name: "Size", values: SIZES },
          { name: "Material", values: MATERIALS },
        ],
        variants,
      },
    });
    assert.equal(created.response.status, 201, JSON.stringify(created.error));
    const product = created.data!.data;
    assert.equal(product.variants.length, 12);
    const locations = (
      await client.GET("/api/v1/dashboard/stores/{slug}/locations", { params: { path: { slug } } })
    ).data!.data;
    const location = locations.find((l) => l.isActive)!;
    assert.ok(location, "a store has a location to keep stock at");

    // The list: the price range, the first variant's SKU with the number of variants, what can be sold.
    await page.goto(`${base}/stores/${slug}/products`);
    await heading(page, "Products");
    const listed = row(page, "Everyday tee");
    await listed.waitFor();
    const text = await listed.innerText();
    assert.match(text, /20\.00–25\.00 USD/);
    assert.match(text, /TEE-RED-S-COTTON/);
    assert.match(text, /12 variants/);
    assert.match(text, /\b60\b/);

    // The product's page, linked from the list.
    await listed.getByRole("link", { name: "Everyday tee", exact: true }).click();
    await heading(page, "Everyday tee");
    const grid = page.getByRole("region", { name: "Variants" });
    await grid.getByRole("table").waitFor();
    assert.equal(await grid.locator("tbody tr").count(), 12);
    for (const v of product.variants) {
      const r = grid.locator("tbody tr", { hasText: v.title });
      assert.equal(await r.count(), 1, `one row for ${v.title}`);
      assert.match(await r.innerText(), new RegExp(v.sku!));
    }
    // The options, as saved: three, so no fourth can be added.
    assert.equal(await page.getByLabel("Option 1 name").inputValue(), "Colour");
    assert.equal(await page.getByLabel("Option 2 values").inputValue(), "S, M, L");
    assert.equal(await page.getByRole("button", { name: "Add an option" }).isDisabled(), true);
    await review(page, "product");

    // A price edited in the grid, saved with the product (the keyboard's way: type, then the button).
    const target = product.variants.find((v) => v.title === "Red / M / Cotton")!;
    const price = page.getByLabel("Price of Red / M / Cotton");
    await price.fill("22.50");
    await page.getByRole("button", { name: "Save prices" }).click();
    await page.getByText("Price saved").waitFor();
    const current = async () =>
      (
        await client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug, id: product.id } },
        })
      ).data!.data;
    assert.equal((await current()).variants.find((v) => v.id === target.id)!.price, "22.50");

    // Stock at the location, set from what the grid showed.
    const stockCell = page.getByLabel(`Stock of Red / M / Cotton at ${location.name}`);
    assert.equal(await stockCell.inputValue(), "5");
    await stockCell.fill("9");
    await page.getByRole("button", { name: "Set stock" }).click();
    await page.getByText("Stock set").waitFor();
    const level = async (variantId: string) =>
      (
        await client.GET("/api/v1/dashboard/stores/{slug}/inventory-levels", {
          params: { path: { slug }, query: { variantId, locationId: location.id } },
        })
      ).data!.data[0]!.available;
    assert.equal(await level(target.id), 9);

    // Someone else received stock meanwhile: the set is refused, nothing is written, the grid shows it now.
    const other = product.variants.find((v) => v.title === "Blue / L / Linen")!;
    const otherCell = page.getByLabel(`Stock of Blue / L / Linen at ${location.name}`);
    await otherCell.fill("2");
    const adjusted = await client.POST("/api/v1/dashboard/stores/{slug}/inventory-levels/adjust", {
      params: { path: { slug } },
      body: { reason: "received", changes: [{ variantId: other.id, locationId: location.id, delta: 3 }] },
    });
    assert.ok(adjusted.response.ok, JSON.stringify(adjusted.error));
    await page.getByRole("button", { name: "Set stock" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: /changed since it was read/ })
      .waitFor();
    assert.equal(await level(other.id), 8, "nothing was written");
    await page.waitForFunction(
      ([label]) =>
        (
          globalThis as unknown as {
            document: { querySelector(s: string): { value: string } | null };
          }
        ).document.querySelector(`input[aria-label="${label}"]`)?.value === "8",
      [`Stock of Blue / L / Linen at ${location.name}`],
    );

    // The options: Size L dropped removes its four variants.
    await page.getByLabel("Option 2 values").fill("S, M");
    await page.getByRole("button", { name: "Save options" }).click();
    await page.getByText("Options saved").waitFor();
    await grid.locator("tbody tr").nth(7).waitFor();
    await page.waitForFunction(
      () =>
        (
          globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }
        ).document.querySelectorAll("tbody tr").length === 8,
    );
    assert.equal((await current()).variants.length, 8);
    await review(page, "product-after");
    assert.deepEqual(errors, []);
  });

  it("a phone opens a product's page at 390px: the grid is cards, every field labelled", async () => {
    const { context, page, errors } = await ui.open(PHONE);
    const slug = "catalogue-phone";
    const shop = await ui.merchant(context, slug);
    const made = await shop.post("/products", {
      title: "Canvas tote",
      options: [{ name: "Colour", values: ["Sand", "Black"] }],
      variants: [
        { optionValues: ["Sand"], price: "18.00", sku: "TOTE-SAND", inventoryQuantity: 4 },
        { optionValues: ["Black"], price: "19.00", sku: "TOTE-BLACK", inventoryQuantity: 0 },
      ],
    });
    await page.goto(`${base}/stores/${slug}/products/${made.id}`);
    await heading(page, "Canvas tote");
    const grid = page.getByRole("region", { name: "Variants" });
    await grid.getByRole("table").waitFor();
    assert.equal(await grid.locator("tbody tr").count(), 2);
    assert.equal(await grid.locator("thead").isVisible(), false, "rows are cards, labelled per value");
    await page.getByLabel("Price of Black").waitFor();
    await review(page, "product-phone");
    assert.deepEqual(errors, []);
  });
});
