import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { createTestContext, type TestContext } from "../harness.ts";
import { chromiumSkipReason } from "../requirements.ts";
import { launchChromium } from "./browser.ts";
import { heading, PASSWORD, pages, review } from "./pages.ts";

const NEW_PASSWORD = "a fresh long password";

/**
 * The pages of the e-mailed links in a real browser: forgot password, reset password, a new
 * address and its confirmation, and the operator's mail outbox (the embedded default keeps every
 * message there), each checked with axe-core and photographed at desktop and phone width.
 */
describe("e-mailed links and the mail outbox in a real browser", { skip: chromiumSkipReason() }, () => {
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

  /** The secret of the newest link e-mailed to `to` (the outbox holds what would have been sent). */
  async function linkTokenTo(to: string): Promise<string> {
    await ctx.platform.accountLinks.idle();
    await ctx.platform.mail.worker.drain();
    const row = await ctx.platform.db
      .selectFrom("mail_messages")
      .select("text_body")
      .where("to_address", "=", to)
      .where("text_body", "like", "%#token=%")
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    return /#token=([A-Za-z0-9_.]+)/.exec(row.text_body)![1]!;
  }

  it("forgot password, the outbox, and the reset page", async () => {
    const signedIn = await ui.open();
    const { email } = await ui.merchant(signedIn.context, "mail-shop", "Amira Saleh");

    const { page, errors } = await ui.open();
    await page.goto(`${base}/login`);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await heading(page, "Reset your password");
    await review(page, "mail-forgot");
    await page.getByLabel("E-mail").fill(email);
    await page.getByRole("button", { name: "Send the link" }).click();
    await page.getByRole("status").getByText("Check your inbox").waitFor();
    await review(page, "mail-forgot-sent");
    const token = await linkTokenTo(email);

    // The outbox: closed without the key, open with the start log's link.
    const outbox = await ui.open();
    await outbox.page.goto(`${base}/outbox`);
    await outbox.page
      .getByRole("alert")
      .getByText(/link the platform prints in its log/)
      .waitFor();
    const url = ctx.platform.mail.outboxUrl(base);
    assert.ok(url);
    // The start log's link, opened in a new tab.
    outbox.page = await outbox.context.newPage();
    await outbox.page.goto(url);
    await heading(outbox.page, "Mail outbox");
    await outbox.page.getByRole("button", { name: /Reset your Merchant Platform password/ }).click();
    assert.equal(new URL(outbox.page.url()).hash, "", "the key leaves the address bar");
    const frame = outbox.page.frameLocator("iframe.outbox-frame");
    await frame.getByRole("link", { name: "Choose a new password" }).waitFor();
    await review(outbox.page, "mail-outbox");
    assert.deepEqual(outbox.errors, []);

    // The link, opened: the token leaves the address bar; the new password works, the old does not.
    await page.goto(`${base}/reset-password#token=${token}`);
    await heading(page, "Choose a new password");
    assert.equal(new URL(page.url()).hash, "", "the secret leaves the address bar and the history");
    await review(page, "mail-reset");
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("Repeat the new password").fill("not the same one");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await page.getByText("does not match the new password").waitFor();
    await page.getByLabel("Repeat the new password").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Set the new password" }).click();
    await heading(page, "Your password was changed");
    await review(page, "mail-reset-done");
    assert.deepEqual(errors, []);
    // The other browser's session ended with the reset.
    assert.equal((await signedIn.context.request.get(`${base}/api/v1/dashboard/me`)).status(), 401);
    const login = await signedIn.context.request.post(`${base}/api/v1/dashboard/auth/login`, {
      data: { email, password: NEW_PASSWORD },
    });
    assert.equal(login.status(), 200);
  });

  it("a new e-mail address waits for the link sent to it, then the confirm page changes it", async () => {
    const { page, context, errors } = await ui.open();
    const { email } = await ui.merchant(context, "mail-move", "Jonas Berg");
    const newEmail = `moved-${email}`;
    await page.goto(`${base}/account`);
    await heading(page, "Account");
    await page.getByLabel("E-mail", { exact: true }).fill(newEmail);
    await page.getByRole("region", { name: "Profile" }).getByLabel("Current password").fill(PASSWORD);
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.locator(".alert.info").getByText(newEmail).waitFor();
    await review(page, "mail-account-pending");

    const token = await linkTokenTo(newEmail);
    const other = await ui.open();
    await other.page.goto(`${base}/confirm-email#token=${token}`);
    await heading(other.page, "Confirm your new e-mail address");
    await review(other.page, "mail-confirm");
    await other.page.getByRole("button", { name: "Confirm this address" }).click();
    await heading(other.page, "Your new address is confirmed");
    await review(other.page, "mail-confirm-done");
    // Used: opening it again says so.
    const again = await ui.open();
    await again.page.goto(`${base}/confirm-email#token=${token}`);
    await again.page.getByRole("button", { name: "Confirm this address" }).click();
    await again.page
      .getByRole("alert")
      .getByText(/not valid/)
      .waitFor();
    assert.deepEqual([...errors, ...other.errors], []);

    await page.reload();
    await heading(page, "Account");
    await page.getByText(`Jonas Berg · ${newEmail}`).waitFor();
  });
});
