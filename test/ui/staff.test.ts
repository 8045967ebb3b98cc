import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { createTestContext, type TestContext, uniqueEmail } from "../harness.ts";
import { chromiumSkipReason } from "../requirements.ts";
import { launchChromium } from "./browser.ts";
import { heading, PASSWORD, pages, review, row } from "./pages.ts";

/**
 * The staff page and the invitation page (issue 32, part 3) in a real browser: the owner invites
 * someone by e-mail; the invited person opens the e-mail's link signed out, creates an account with
 * the invited address and joins, and sees only the sections their role allows; the owner changes
 * their role (their menu follows) and removes them (they are signed out). Both pages checked with
 * axe-core and photographed at 1366×800 and 390×844.
 */
describe("the staff pages in a real browser", { skip: chromiumSkipReason() }, () => {
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

  const menu = async (page: Page) =>
    (await page.getByRole("navigation", { name: "Main" }).getByRole("link").allTextContents()).map((t) =>
      t.trim(),
    );

  it("invites, accepts, changes a role and removes a member", async () => {
    const owner = await ui.open();
    const slug = "staff-shop";
    await ui.merchant(owner.context, slug, "Olivia Owner");

    // The owner reaches Staff from the store menu.
    await owner.page.goto(`${base}/stores/${slug}/products`);
    await heading(owner.page, "Products");
    await owner.page.getByRole("link", { name: "Staff", exact: true }).click();
    await heading(owner.page, "Staff");
    await row(owner.page, "Olivia Owner").waitFor();
    await owner.page.getByText("No open invitations.").waitFor();
    await review(owner.page, "staff-owner-alone");

    // Invite: a bad address is refused beside the field, then a good one is sent.
    const email = uniqueEmail("sam");
    await owner.page.getByLabel("E-mail").fill("not an address");
    await owner.page.getByRole("button", { name: "Send invitation" }).click();
    await owner.page.locator(".field-error").first().waitFor();
    await owner.page.getByLabel("E-mail").fill(email);
    await owner.page.getByLabel("Role", { exact: true }).selectOption({ label: "Catalogue" });
    await owner.page.getByRole("button", { name: "Send invitation" }).click();
    await owner.page.getByRole("heading", { name: `Invitation sent to ${email}` }).waitFor();
    await row(owner.page, email).waitFor();
    // The e-mail, from the mail outbox it leaves through.
    const message = await ctx.platform.db
      .selectFrom("mail_messages")
      .select("text_body")
      .where("to_address", "=", email)
      .executeTakeFirstOrThrow();
    const link = /https?:\/\/\S+\/invitation#token=\S+/.exec(message.text_body)![0];
    assert.equal(
      await owner.page.getByLabel("Invitation link").inputValue(),
      link,
      "the page shows the e-mail's link",
    );
    await review(owner.page, "staff-invited");

    // The invited person opens the e-mail's link, signed out.
    const sam = await ui.open();
    await sam.page.goto(`${base}${new URL(link).pathname}${new URL(link).hash}`);
    await heading(sam.page, "Join Shop staff-shop");
    await sam.page.getByText("as Catalogue").waitFor();
    assert.ok(!sam.page.url().includes("token"), "the token leaves the address bar");
    await review(sam.page, "invitation-signed-out");
    await sam.page.getByRole("link", { name: "Create an account" }).click();
    await heading(sam.page, "Create your account");
    assert.equal(await sam.page.getByLabel("E-mail").inputValue(), email, "the invited address is filled in");
    await sam.page.getByLabel("Your name").fill("Sam Staff");
    await sam.page.getByLabel("Password").fill(PASSWORD);
    await sam.page.getByRole("button", { name: "Create account" }).click();
    await heading(sam.page, "Join Shop staff-shop");
    await review(sam.page, "invitation-signed-in");
    await sam.page.getByRole("button", { name: "Accept and open Shop staff-shop" }).click();
    await heading(sam.page, "Shop staff-shop");
    // The store's menu, once the store list (with the role) has arrived.
    await sam.page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Products", exact: true })
      .waitFor();
    const catalogueMenu = await menu(sam.page);
    for (const shown of ["Overview", "Orders", "Products", "Collections", "Discounts"])
      assert.ok(catalogueMenu.includes(shown), `${shown} in ${catalogueMenu.join(", ")}`);
    for (const hidden of ["Customers", "Staff", "Settings", "API keys", "Installed apps"])
      assert.ok(!catalogueMenu.includes(hidden), `${hidden} not in ${catalogueMenu.join(", ")}`);
    await sam.page.getByText("· Catalogue").first().waitFor();

    // The owner sees Sam and gives them orders and fulfilment: Sam's menu follows.
    await owner.page.getByRole("button", { name: "Done" }).click();
    await owner.page.reload();
    await heading(owner.page, "Staff");
    await row(owner.page, "Sam Staff").waitFor();
    await review(owner.page, "staff-with-member");
    await owner.page.getByLabel("Role of Sam Staff").selectOption({ label: "Orders and fulfilment" });
    await owner.page.getByText("Sam Staff is now Orders and fulfilment").waitFor();
    await sam.page.reload();
    await heading(sam.page, "Shop staff-shop");
    await sam.page.getByRole("link", { name: "Customers", exact: true }).waitFor();
    assert.ok(!(await menu(sam.page)).includes("Staff"));

    // Removed: Sam's next request is refused and they are sent to sign in.
    await owner.page.getByRole("button", { name: "Remove Sam Staff" }).click();
    await owner.page.getByRole("dialog").getByRole("button", { name: "Remove" }).click();
    await owner.page.getByText("Sam Staff removed").waitFor();
    assert.equal(await row(owner.page, "Sam Staff").count(), 0);
    await sam.page.getByRole("link", { name: "Customers", exact: true }).click();
    await heading(sam.page, "Log in");

    assert.deepEqual([...owner.errors, ...sam.errors], []);
  });
});
