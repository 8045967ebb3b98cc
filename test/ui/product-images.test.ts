import assert from "node:assert/strict";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import sharp from "sharp";
import { createTestContext, type TestContext } from "../harness.ts";
import { portIsFree } from "../ports.ts";
import { chromiumSkipReason } from "../requirements.ts";
import { waitUntil as waitFor } from "../webhooks-harness.ts";
import { launchChromium } from "./browser.ts";
import { heading, PHONE, pages, review, row, SHOTS } from "./pages.ts";

/**
 * Every image on the page has loaded and decoded (a broken one has no natural width). Evaluated
 * through the browser's protocol (page.evaluate), which the page's CSP allows; waitForFunction's
 * string form would be an eval the CSP refuses.
 */
const ALL_IMAGES_LOADED = `[...document.querySelectorAll("img")].every((img) => img.complete && img.naturalWidth > 0)`;

/** Where the reviewed screenshots are kept for the report. */
const NOTES = "/work/notes/screens";

/**
 * A product photo for the test: a shirt on a soft background, drawn here (SVG rasterised by the
 * test's own sharp before the server has restricted its decoders to photos' formats).
 */
function shirtSvg(colour: string, background: string, angle = 0) {
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="1200" viewBox="0 0 1200 1200">
  <defs><radialGradient id="bg" cx="50%" cy="40%" r="75%"><stop offset="0" stop-color="#ffffff"/><stop offset="1" stop-color="${background}"/></radialGradient>
  <linearGradient id="cloth" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${colour}"/><stop offset="1" stop-color="${colour}" stop-opacity="0.82"/></linearGradient></defs>
  <rect width="1200" height="1200" fill="url(#bg)"/>
  <ellipse cx="600" cy="1040" rx="330" ry="38" fill="#000" opacity="0.08"/>
  <g transform="rotate(${angle} 600 600)">
  <path d="M430 230 L520 200 Q600 260 680 200 L770 230 L960 360 L880 500 L800 450 L800 1000 L400 1000 L400 450 L320 500 L240 360 Z" fill="url(#cloth)" stroke="#00000022" stroke-width="6"/>
  <path d="M520 200 Q600 300 680 200" fill="none" stroke="#00000033" stroke-width="8"/>
  <line x1="600" y1="290" x2="600" y2="1000" stroke="#00000014" stroke-width="4"/>
  </g></svg>`);
}

async function photo(colour: string, background: string, angle = 0) {
  return sharp(shirtSvg(colour, background, angle))
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** A port nothing listens on, for a server whose PUBLIC_BASE_URL must name it before it starts. */
async function freePort(): Promise<number> {
  const start = 24000 + Math.floor(Math.random() * 900);
  for (let port = start; port < start + 100; port++) if (await portIsFree(port)) return port;
  throw new Error("no free port");
}

/**
 * Product images in the dashboard (issue 32), in a real browser: the product list links each
 * product to its own page (/stores/:slug/products/:id) and shows its main image; on the page,
 * several files are chosen at once and one is dropped, a refused file says why, the order is
 * changed with the buttons, alt text and a variant are saved, an image is deleted. Checked with
 * axe-core and photographed at 1366×800 and 390×844.
 */
describe("product images in a real browser", { skip: chromiumSkipReason() }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let base: string;
  const files: Record<string, Buffer> = {};
  const ui = pages(
    () => browser,
    () => base,
  );

  before(async () => {
    // Drawn before the server runs: it blocks SVG in this process once it decodes an upload.
    files["linen-shirt-sand.jpg"] = await photo("#d8c3a0", "#eef0f3");
    files["linen-shirt-navy.jpg"] = await photo("#2b3f63", "#e9edf2", -6);
    files["linen-shirt-sage.jpg"] = await photo("#8fa888", "#f1f2ee", 5);
    files["linen-shirt-rust.png"] = await sharp(shirtSvg("#b4573a", "#f3efeb")).png().toBuffer();
    const port = await freePort();
    // Image URLs are absolute under PUBLIC_BASE_URL: the server's own address here.
    ctx = await createTestContext({ PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
    base = await ctx.app.listen({ port, host: "127.0.0.1" });
    browser = await launchChromium();
  });
  after(async () => {
    await ui.close();
    await browser?.close();
    await ctx?.close();
  });

  it("adds, orders, describes and deletes a product's images on its own page", async () => {
    const { context, page, errors } = await ui.open();
    const slug = "images-shop";
    const shop = await ui.merchant(context, slug, "Sara Merchant");
    const made = await shop.post("/products", {
      title: "Linen camp shirt",
      vendor: "Nordic Linen Co.",
      productType: "Shirts",
      tags: ["summer", "linen"],
      description: "Breathable, pre-washed European linen with a relaxed camp collar.",
      options: [{ name: "Colour", values: ["Sand", "Navy", "Sage"] }],
      variants: [
        { optionValues: ["Sand"], price: "59.00", sku: "CAMP-SAND", inventoryQuantity: 14 },
        { optionValues: ["Navy"], price: "59.00", sku: "CAMP-NAVY", inventoryQuantity: 9 },
        { optionValues: ["Sage"], price: "64.00", sku: "CAMP-SAGE", inventoryQuantity: 3 },
      ],
    });

    // The list links to the product's own page.
    await page.goto(`${base}/stores/${slug}/products`);
    await heading(page, "Products");
    await row(page, "Linen camp shirt").getByRole("link", { name: "Linen camp shirt", exact: true }).click();
    await heading(page, "Linen camp shirt");
    assert.equal(new URL(page.url()).pathname, `/stores/${slug}/products/${made.id}`);
    const images = page.getByRole("region", { name: "Images" });
    await page.getByText("No image yet").waitFor();

    // Three files chosen at once, and a refused one among them: the others are added.
    const input = images.locator('input[type="file"]');
    await input.setInputFiles([
      { name: "linen-shirt-sand.jpg", mimeType: "image/jpeg", buffer: files["linen-shirt-sand.jpg"]! },
      { name: "linen-shirt-navy.jpg", mimeType: "image/jpeg", buffer: files["linen-shirt-navy.jpg"]! },
      // An SVG renamed to .png, with a script: refused, and the merchant told which and why.
      {
        name: "logo.png",
        mimeType: "image/png",
        buffer: Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>',
        ),
      },
      { name: "linen-shirt-sage.jpg", mimeType: "image/jpeg", buffer: files["linen-shirt-sage.jpg"]! },
    ]);
    const refused = images.getByRole("alert");
    await refused.waitFor();
    assert.match(
      await refused.innerText(),
      /One file was not added[\s\S]*logo\.png is not a JPEG, PNG, WebP or GIF image/,
    );
    await images.locator("li.image-card").nth(2).waitFor();
    assert.equal(await images.locator("li.image-card").count(), 3);

    // One more, dropped on the zone as from the desktop.
    const rust = files["linen-shirt-rust.png"]!.toString("base64");
    // In the page (this project's tsconfig has no DOM types): a DataTransfer holding the file.
    const dataTransfer = await page.evaluateHandle(`(() => {
      const bytes = Uint8Array.from(atob("${rust}"), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], "linen-shirt-rust.png", { type: "image/png" }));
      return transfer;
    })()`);
    await images.locator(".drop-zone").dispatchEvent("drop", { dataTransfer });
    await images.locator("li.image-card").nth(3).waitFor();

    const current = async () =>
      (
        await (
          await context.request.get(`${base}/api/v1/dashboard/stores/${slug}/products/${made.id}`)
        ).json()
      ).data as { images: Array<{ id: string; alt: string; variantId: string | null; position: number }> };
    const before = (await current()).images.map((i) => i.id);
    assert.equal(before.length, 4);

    // The sage shirt (third) becomes the main image, with the keyboard's way: the buttons.
    await images.getByRole("button", { name: "Move image 3 earlier" }).click();
    await waitFor(async () => (await current()).images[1]?.id === before[2]);
    await images.locator("li.image-card").nth(1).locator(`img[src*="${before[2]}"]`).waitFor();
    await images.getByRole("button", { name: "Move image 2 earlier" }).click();
    await waitFor(async () => (await current()).images[0]?.id === before[2]);
    // The grid has drawn the new order (the server's answer can come before the page's refetch):
    // the first card is the sage shirt's before its alt text is typed into it.
    await images.locator("li.image-card").first().locator(`img[src*="${before[2]}"]`).waitFor();
    await images.locator(".image-badge", { hasText: "Main image" }).waitFor();

    // Alt text and a variant for the main image.
    const first = images.locator("li.image-card").first();
    await first.getByLabel("Alt text").fill("Sage linen camp shirt, front");
    await first.getByLabel("Variant").selectOption({ label: "Sage" });
    await first.getByRole("button", { name: "Save" }).click();
    await waitFor(async () => (await current()).images[0]?.alt === "Sage linen camp shirt, front");
    const saved = (await current()).images[0]!;
    assert.equal(saved.variantId, made.variants[2].id);
    // The hero shows the main image with its alt text, from a srcset of the three sizes.
    const hero = page.locator(".hero-image img");
    await page.locator('.hero-image img[alt="Sage linen camp shirt, front"]').waitFor();
    assert.match(
      (await hero.getAttribute("srcset")) ?? "",
      /list\.webp 200w, .*phone\.webp 640w, .*page\.webp 1200w/,
    );
    await waitFor(async () => Boolean(await page.evaluate(ALL_IMAGES_LOADED)), 30_000, "every image loaded");

    // The last image (the rust one) deleted, after asking.
    await images.getByRole("button", { name: "Delete image 4" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete image" }).click();
    await page.getByText("Image deleted").waitFor();
    await waitFor(async () => (await current()).images.length === 3);
    await waitFor(async () => (await images.locator("li.image-card").count()) === 3, 30_000, "three images");
    await waitFor(async () => Boolean(await page.evaluate(ALL_IMAGES_LOADED)), 30_000, "every image loaded");
    await review(page, "product-images");

    // The list shows the main image beside the title.
    await page.getByRole("link", { name: "Back to products" }).click();
    await heading(page, "Products");
    const thumb = row(page, "Linen camp shirt").locator(".thumb img");
    await thumb.waitFor();
    assert.equal(await thumb.getAttribute("alt"), "", "decorative beside the title");
    await review(page, "product-images-list");

    mkdirSync(NOTES, { recursive: true });
    for (const name of [
      "product-images-1366",
      "product-images-390",
      "product-images-list-1366",
      "product-images-list-390",
    ])
      copyFileSync(join(SHOTS, `${name}.png`), join(NOTES, `${name}.png`));
    assert.deepEqual(errors, []);
  });

  it("a phone uploads from its picker at 390px", async () => {
    const { context, page, errors } = await ui.open(PHONE);
    const slug = "images-phone";
    const shop = await ui.merchant(context, slug);
    const made = await shop.post("/products", { title: "Canvas tote", variants: [{ price: "18.00" }] });
    await page.goto(`${base}/stores/${slug}/products/${made.id}`);
    await heading(page, "Canvas tote");
    const images = page.getByRole("region", { name: "Images" });
    await images.locator('input[type="file"]').setInputFiles({
      name: "tote.jpg",
      mimeType: "image/jpeg",
      buffer: files["linen-shirt-sand.jpg"]!,
    });
    await images.locator("li.image-card").first().waitFor();
    await waitFor(async () => Boolean(await page.evaluate(ALL_IMAGES_LOADED)), 30_000, "every image loaded");
    // The phone is given the phone's size, not the page's.
    const chosen = String(await page.evaluate(`document.querySelector(".hero-image img").currentSrc`));
    assert.match(chosen, /\/(phone|page)\.webp$/);
    await review(page, "product-images-phone");
    assert.deepEqual(errors, []);
  });
});
