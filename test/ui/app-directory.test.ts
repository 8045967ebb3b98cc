import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { createTestContext, type TestContext } from "../harness.ts";
import { chromiumSkipReason } from "../requirements.ts";
import { launchChromium } from "./browser.ts";
import { heading, pages, review, SHOTS } from "./pages.ts";

/** Where the screenshots the lead looks at are copied. */
const NOTES_SHOTS = "/work/notes/screens";

/**
 * An app as a developer would build it against the directory: its URL receives `store=<slug>`;
 * without a token for that store it starts the authorization (its own state and PKCE, the scopes
 * it is registered for); its callback checks the state and exchanges the code at the token
 * endpoint; with a token it shows itself.
 */
async function startApp(platform: () => string, scopes: string[]) {
  const credentials = { clientId: "", clientSecret: "" };
  const pending = new Map<string, { verifier: string; store: string }>();
  const connected = new Map<string, string>();
  const html = (body: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stock Sync</title></head><body><main>${body}</main></body></html>`;
  let url = "";
  const server: Server = createServer(async (req, res) => {
    const at = new URL(req.url ?? "/", url);
    if (at.pathname === "/") {
      const store = at.searchParams.get("store") ?? "";
      if (connected.has(store)) {
        res.writeHead(200, { "content-type": "text/html" });
        return res.end(html(`<h1>Stock Sync for ${store}</h1><p>Stock is in step.</p>`));
      }
      const state = randomBytes(16).toString("hex");
      const verifier = randomBytes(32).toString("base64url");
      pending.set(state, { verifier, store });
      const authorize = new URL("/api/v1/apps/authorize", platform());
      for (const [k, v] of Object.entries({
        response_type: "code",
        client_id: credentials.clientId,
        redirect_uri: `${url}/callback`,
        scope: scopes.join(" "),
        state,
        code_challenge: createHash("sha256").update(verifier).digest("base64url"),
        code_challenge_method: "S256",
        store,
      }))
        authorize.searchParams.set(k, v);
      res.writeHead(302, { location: authorize.toString() });
      return res.end();
    }
    if (at.pathname === "/callback") {
      const started = pending.get(at.searchParams.get("state") ?? "");
      const slug = at.searchParams.get("slug") ?? "";
      if (!started || started.store !== slug) {
        res.writeHead(400, { "content-type": "text/html" });
        return res.end(html("<h1>Unknown state</h1>"));
      }
      pending.delete(at.searchParams.get("state")!);
      const token = await fetch(new URL("/api/v1/apps/token", platform()), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          slug,
          code: at.searchParams.get("code"),
          redirectUri: `${url}/callback`,
          clientId: credentials.clientId,
          clientSecret: credentials.clientSecret,
          codeVerifier: started.verifier,
        }),
      });
      const body = (await token.json()) as { data?: { accessToken: string } };
      if (token.status !== 200 || !body.data) {
        res.writeHead(502, { "content-type": "text/html" });
        return res.end(html(`<h1>Token exchange failed</h1><p>${token.status}</p>`));
      }
      connected.set(slug, body.data.accessToken);
      res.writeHead(200, { "content-type": "text/html" });
      return res.end(
        html(
          `<h1>Stock Sync is connected to ${slug}</h1><a href="${platform()}/stores/${slug}/app-directory">Back to your dashboard</a>`,
        ),
      );
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    credentials,
    connected,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The app directory (issue 32, part 4) in a real browser: a developer writes a listing, saves it as
 * a draft and publishes it; another merchant finds the app in their store's directory (a draft of
 * another app stays invisible), searches, clicks Install, goes through the consent page, comes back
 * and sees Open app. Every page checked with axe-core and photographed at 1366×800 and 390×844.
 */
describe("the app directory in a real browser", { skip: chromiumSkipReason() }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let base: string;
  let app: Awaited<ReturnType<typeof startApp>>;
  const ui = pages(
    () => browser,
    () => base,
  );

  before(async () => {
    // The privacy endpoint an app needs before publishing, on localhost (nothing is sent to it here).
    ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" });
    base = await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    browser = await launchChromium();
    app = await startApp(() => base, ["read_products", "write_inventory"]);
  });
  after(async () => {
    await ui.close();
    await browser?.close();
    await app?.close();
    await ctx?.close();
  });

  it("a developer publishes a listing; a merchant finds the app, installs it through consent and opens it", async () => {
    // The developer registers two apps; one will stay a draft.
    const dev = await ui.open();
    await ui.merchant(dev.context, "dev-shop", "Dana Developer");
    const register = async (name: string, scopes: string[]) => {
      const res = await dev.context.request.post(`${base}/api/v1/dashboard/apps`, {
        data: {
          name,
          redirectUris: [`${app.url}/callback`],
          scopes,
          privacyWebhookUrl: "http://localhost:9/privacy",
        },
      });
      assert.equal(res.status(), 201, await res.text());
      return (await res.json()).data as { clientId: string; clientSecret: string };
    };
    const stock = await register("Stock Sync", ["read_products", "write_inventory"]);
    app.credentials.clientId = stock.clientId;
    app.credentials.clientSecret = stock.clientSecret;
    const draft = await register("Draft Helper", ["read_orders"]);
    const saved = await dev.context.request.put(`${base}/api/v1/dashboard/apps/${draft.clientId}/listing`, {
      data: {
        tagline: "Not ready yet",
        description: "A helper still being written.",
        appUrl: "https://draft-helper.example.com/",
        supportEmail: "dev@draft-helper.example.com",
        iconColor: "rose",
        status: "draft",
      },
    });
    assert.equal(saved.status(), 200, await saved.text());

    // The listing, written on the app's page: a draft first, with a preview of the card.
    const { page } = dev;
    await page.goto(`${base}/apps/${stock.clientId}`);
    await heading(page, "Stock Sync");
    const panel = page.getByRole("region", { name: "Directory listing" });
    await panel.getByText("Not saved yet").waitFor();
    const hostile =
      'Syncs stock with your warehouse every five minutes.\n<img src=x onerror="window.__xss=1">';
    await panel.getByLabel("Tagline").fill("Keeps stock in step with your warehouse");
    await panel.getByLabel("Description").fill(hostile);
    await panel.getByLabel("App URL").fill(`${app.url}/`);
    await panel.getByLabel("Support e-mail").fill("help@stock-sync.example.com");
    await panel.getByRole("radio", { name: "Teal" }).check();
    await panel.getByRole("button", { name: "Save draft" }).click();
    await page.getByText("Listing saved").first().waitFor();
    await panel.getByText("Only you can see a draft").waitFor();
    await review(page, "app-listing-draft");

    // Still a draft: nobody else finds it.
    const merchant = await ui.open();
    await ui.merchant(merchant.context, "buyer-shop", "Maya Merchant");
    const m = merchant.page;
    await m.goto(`${base}/stores/buyer-shop`);
    await m.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "App directory" }).click();
    await heading(m, "App directory");
    await m.getByText("No app is published yet").waitFor();

    // Two more apps, published through the API, so the directory reads as it will in use.
    for (const [name, scopes, listing] of [
      [
        "Label Printer",
        ["read_orders", "write_orders"],
        {
          tagline: "Shipping labels for every carrier, in one click",
          description:
            "Prints labels for paid orders and marks them shipped with their tracking numbers. Works with DHL, UPS and Aramex.",
          appUrl: "https://labels.example.com/",
          supportEmail: "care@labels.example.com",
          iconColor: "orange",
        },
      ],
      [
        "Review Garden",
        ["read_products", "read_customers"],
        {
          tagline: "Collect product reviews after delivery",
          description:
            "Asks customers for a review a week after delivery and shows the best ones on your storefront.",
          appUrl: "https://reviews.example.com/install",
          supportEmail: "hello@reviews.example.com",
          iconColor: "violet",
        },
      ],
    ] as const) {
      const made = await register(name, [...scopes]);
      const res = await dev.context.request.put(`${base}/api/v1/dashboard/apps/${made.clientId}/listing`, {
        data: { ...listing, status: "published" },
      });
      assert.equal(res.status(), 200, await res.text());
    }

    await panel.getByRole("button", { name: "Publish" }).click();
    await page.getByText("Listing published").first().waitFor();
    await panel.getByText(/In every store's app directory since/).waitFor();
    await panel.getByRole("button", { name: "Unpublish" }).waitFor();

    // The merchant finds it; the draft stays invisible.
    await m.reload();
    await heading(m, "App directory");
    const card = m.getByRole("article", { name: "Stock Sync" });
    await card.waitFor();
    assert.equal(await m.getByText("Draft Helper").count(), 0, "a draft is in no one else's directory");
    await card.getByText("Keeps stock in step with your warehouse").waitFor();
    await card.getByText("See your products and stock").waitFor();
    await card.getByText(/127\.0\.0\.1:\d+/).waitFor();
    // The description is text: its markup is shown as characters and never runs.
    await card.getByRole("button", { name: "Read more" }).click();
    assert.match(await card.locator(".app-card-description").innerText(), /<img src=x onerror=/);
    assert.equal(await card.locator("img").count(), 0);
    assert.equal(await m.evaluate(() => (globalThis as { __xss?: number }).__xss), undefined);
    const install = card.getByRole("link", { name: "Install Stock Sync" });
    assert.equal(await install.getAttribute("href"), `${app.url}/?store=buyer-shop`);
    await review(m, "app-directory");

    // Search: by what it does, a miss, and a text too short to search by.
    const search = m.getByLabel("Search apps");
    assert.equal(await m.getByRole("article").count(), 3);
    await search.fill("warehouse");
    await m.waitForURL(/q=warehouse/);
    await card.waitFor();
    await m.getByRole("article", { name: "Label Printer" }).waitFor({ state: "detached" });
    assert.equal(await m.getByRole("article").count(), 1);
    await search.fill("invoices");
    await m.getByText("No app matches").waitFor();
    await search.fill("wa");
    await m.getByText("Type 3 characters or more to search").waitFor();
    await card.waitFor();
    await search.fill("");
    await m.waitForURL((u) => !u.search.includes("q="));

    // Install: to the app, which brings the merchant to the consent page, then back to the app.
    await install.click();
    await heading(m, "Install Stock Sync?");
    await m.getByText("See your products and stock").waitFor();
    assert.equal(
      await m.getByLabel("Install into").inputValue(),
      "buyer-shop",
      "the store the merchant came from",
    );
    await review(m, "app-directory-consent");
    await m.getByRole("button", { name: "Approve and install" }).click();
    await heading(m, "Stock Sync is connected to buyer-shop");
    assert.ok(app.connected.has("buyer-shop"), "the app holds a token for the store");

    // Back in the dashboard: installed, with Open app instead of Install.
    await m.getByRole("link", { name: "Back to your dashboard" }).click();
    await heading(m, "App directory");
    await card.getByText("Installed").waitFor();
    assert.equal(await card.getByRole("link", { name: "Install Stock Sync" }).count(), 0);
    const open = card.getByRole("link", { name: "Open app Stock Sync" });
    assert.equal(await open.getAttribute("href"), `${app.url}/?store=buyer-shop`);
    await review(m, "app-directory-installed");
    await open.click();
    await heading(m, "Stock Sync for buyer-shop");

    // The developer's own store sees it too, not installed there.
    await page.goto(`${base}/stores/dev-shop/app-directory`);
    await heading(page, "App directory");
    const own = page.getByRole("article", { name: "Stock Sync" });
    await own.getByRole("link", { name: "Install Stock Sync" }).waitFor();
    assert.equal(await page.getByText("Draft Helper").count(), 0, "nor in the developer's own directory");

    assert.deepEqual(dev.errors, []);
    assert.deepEqual(
      merchant.errors.filter((e) => !/127\.0\.0\.1:\d+\/(\?|callback)/.test(e)),
      [],
    );
    mkdirSync(NOTES_SHOTS, { recursive: true });
    for (const name of [
      "app-directory",
      "app-directory-installed",
      "app-listing-draft",
      "app-directory-consent",
    ])
      for (const size of ["1366", "390"])
        copyFileSync(join(SHOTS, `${name}-${size}.png`), join(NOTES_SHOTS, `${name}-${size}.png`));
  });
});
