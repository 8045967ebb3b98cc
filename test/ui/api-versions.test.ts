import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext } from "playwright-core";
import type { VersionSpec } from "../../src/modules/versions/api-versions.ts";
import { installedApp } from "../apps-harness.ts";
import { createTestContext, type TestContext } from "../harness.ts";
import { chromiumSkipReason } from "../requirements.ts";
import { launchChromium } from "./browser.ts";
import { heading, pages, row, shoot } from "./pages.ts";

/**
 * The API versions in the dashboard (issue 29): an app's page shows its pin and its status, says
 * loudly when the pin is deprecated or retired, upgrades it and rolls it back, and lists the calls
 * that used something deprecated; a key pair's version is changed from the key list.
 */
const OLD = "2026-06-01";
const NEW = "2026-11-28";
const VERSIONS: VersionSpec[] = [
  { version: OLD, changes: [], deprecation: { at: NEW, sunset: "2027-12-01" } },
  { version: NEW, changes: [] },
];

describe("API versions in the dashboard", { skip: chromiumSkipReason() }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let base: string;
  const ui = pages(
    () => browser,
    () => base,
  );
  before(async () => {
    ctx = await createTestContext({}, { apiVersions: VERSIONS, startAt: Date.parse("2027-11-30T10:00:00Z") });
    base = await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    browser = await launchChromium();
  });
  after(async () => {
    await ui.close();
    await browser?.close();
    await ctx?.close();
  });

  /** The developer's session in the browser. */
  async function signedIn(context: BrowserContext, cookie: string) {
    const [name, value] = cookie.split("=") as [string, string];
    await context.addCookies([{ name, value, url: base }]);
  }

  it("a key pair's version is shown in the key list and changed there; its requests follow at once", async () => {
    const { context, page, errors } = await ui.open();
    await ui.merchant(context, "versioned-keys");
    const made = await context.request.post(`${base}/api/v1/dashboard/stores/versioned-keys/api-keys`, {
      data: { name: "Nightly", scopes: ["read_products"] },
    });
    const key = (await made.json()).data as { keyId: string; secret: string; apiVersion: string };
    assert.equal(key.apiVersion, NEW);
    const headers = { "x-api-key": key.keyId, "x-api-secret": key.secret };
    assert.equal(
      (await fetch(`${base}/api/v1/developer/store`, { headers })).headers.get("api-version"),
      NEW,
    );

    await page.goto(`${base}/stores/versioned-keys/api-keys`);
    await heading(page, "API keys");
    const keyRow = row(page, key.keyId);
    await keyRow.waitFor();
    const pick = keyRow.getByLabel("API version of Nightly");
    assert.equal(await pick.inputValue(), NEW);
    await pick.selectOption(OLD);
    await page.getByText(`Nightly now uses ${OLD}`).waitFor();
    const answer = await fetch(`${base}/api/v1/developer/store`, { headers });
    assert.equal(answer.headers.get("api-version"), OLD);
    assert.ok(answer.headers.get("deprecation"), "served at the deprecated version, and told so");
    await page.reload();
    assert.equal(await row(page, key.keyId).getByLabel("API version of Nightly").inputValue(), OLD);
    assert.deepEqual(errors, []);
  });
  it("an app's page: its pin and status, deprecated calls, upgrade, roll back, and a retired pin said loudly", async () => {
    const app = await installedApp(ctx.app, ["read_products"]);
    await ctx.platform.db
      .updateTable("apps")
      .set({ api_version: OLD })
      .where("client_id", "=", app.clientId)
      .execute();
    for (let i = 0; i < 3; i++)
      assert.equal(
        (await app.api.GET("/api/v1/apps/api/products", { headers: { "api-version": OLD } })).response.status,
        200,
      );
    await app.api.GET("/api/v1/apps/api/store", { headers: { "api-version": OLD } });

    const { context, page, errors } = await ui.open();
    await signedIn(context, app.dev.client.jar.cookie!);
    await page.goto(`${base}/apps/${app.clientId}`);
    const panel = page.getByRole("region", { name: "API version" });
    await panel.waitFor();
    await panel
      .getByText(`Your app is pinned to ${OLD}, which is deprecated and retires on 2027-12-01`)
      .waitFor();
    assert.match(
      await panel.innerText(),
      new RegExp(`Pinned version\\s+${OLD}\\s+deprecated\\s+retires 2027-12-01`, "i"),
    );
    const calls = panel.getByRole("region", { name: "Deprecated calls" });
    const listed = row(page, "adminListProducts");
    await listed.waitFor();
    assert.match(await listed.innerText(), new RegExp(`${OLD}\\s+adminListProducts\\s+the version\\s+3`));
    assert.match(await row(page, "adminGetStore").innerText(), /the version\s+1/);
    await shoot(page, "app-api-version");

    // Upgrade: asked first, then served at once.
    await panel.getByLabel("Upgrade to").selectOption(NEW);
    await panel.getByRole("button", { name: "Upgrade", exact: true }).click();
    await page
      .getByRole("dialog")
      .getByRole("button", { name: `Upgrade to ${NEW}` })
      .click();
    await panel.getByText("This is the newest version.").waitFor();
    assert.match(await panel.innerText(), new RegExp(`Pinned version\\s+${NEW}\\s+current`, "i"));
    // Roll back within 72 hours.
    await panel.getByRole("button", { name: `Roll back to ${OLD}` }).click();
    await page
      .getByRole("dialog")
      .getByRole("button", { name: `Roll back to ${OLD}` })
      .click();
    await panel.getByText(`which is deprecated and retires on 2027-12-01`).waitFor();
    assert.equal(
      (
        await ctx.platform.db
          .selectFrom("apps")
          .select("api_version")
          .where("client_id", "=", app.clientId)
          .executeTakeFirstOrThrow()
      ).api_version,
      OLD,
    );
    assert.ok(await calls.isVisible());

    // Past the sunset, two days on (the file's last step; the session still open): the page says every call without Api-Version is refused.
    ctx.clock.advance(Date.parse("2027-12-02T00:00:00Z") - ctx.clock.now().getTime());
    await page.reload();
    const alert = panel.getByRole("alert");
    await alert.waitFor();
    assert.match(
      await alert.innerText(),
      new RegExp(`pinned to ${OLD}, which is retired: .*400 UNSUPPORTED_API_VERSION`),
    );
    assert.match(await panel.innerText(), /retired/);
    await shoot(page, "app-api-version-retired");
    assert.deepEqual(errors, []);
  });
});
