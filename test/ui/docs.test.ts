import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { createTestContext, type TestContext } from "../harness.ts";
import { portIsFree } from "../ports.ts";
import { chromiumSkipReason } from "../requirements.ts";
import { launchChromium } from "./browser.ts";

const SHOTS = join(import.meta.dirname, "..", "..", ".tmp");

/** A free loopback port, so the documented server (PUBLIC_BASE_URL) is this test's own. */
async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 24000 + Math.floor(Math.random() * 4000);
    if (await portIsFree(port)) return port;
  }
  throw new Error("no free port");
}

describe("interactive API docs, offline, in a real browser", { skip: chromiumSkipReason() }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let base: string;
  before(async () => {
    const port = await freePort();
    ctx = await createTestContext({ PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
    base = await ctx.app.listen({ port, host: "127.0.0.1" });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  it("serves the docs page and every file it loads with the dashboard's security headers", async () => {
    const html = await (await fetch(`${base}/api/docs/ui/`)).text();
    const files = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map(
      (m) => new URL(m[1]!, `${base}/api/docs/ui/`).href,
    );
    assert.ok(files.some((f) => f.endsWith(".js")) && files.some((f) => f.endsWith(".css")), html);
    for (const url of [`${base}/api/docs/ui`, `${base}/api/docs/ui/`, `${base}/api/docs/ui/json`, ...files]) {
      const res = await fetch(url, { redirect: "manual" });
      assert.ok(res.status === 200 || res.status === 302, `${url}: ${res.status}`);
      const csp = res.headers.get("content-security-policy") ?? "";
      assert.match(csp, /default-src 'self'/, url);
      assert.match(csp, /script-src 'self'(;|$)/, url);
      assert.match(csp, /frame-ancestors 'none'/, url);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/, url);
      assert.equal(res.headers.get("x-frame-options"), "DENY", url);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", url);
      assert.equal(res.headers.get("referrer-policy"), "same-origin", url);
    }
  });

  it("renders every tag's operations and runs one, with no request to another host and no CSP violation", async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(60_000); // an upper bound for a loaded machine, not an expectation
    const blocked: string[] = [];
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    page.on("pageerror", (error) => violations.push(`page error: ${error.message}`));
    // Every violation, also those the browser does not log (the project's tsconfig has no DOM types).
    await page.addInitScript({
      content: `document.addEventListener("securitypolicyviolation", (e) =>
        console.error("Content Security Policy: " + e.violatedDirective + " blocked " + e.blockedURI));`,
    });
    await page.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === "127.0.0.1") return route.continue();
      blocked.push(url.href);
      return route.abort();
    });
    await page.goto(`${base}/api/docs/ui`);
    await page.locator(".opblock").first().waitFor({ timeout: 120_000 });
    // Swagger UI (5.32+) draws a document of 150 tags and operations or more as a virtual list:
    // only what is in view is in the page. Scroll through it and collect every operation drawn.
    const drawn = new Set<string>();
    const tags = new Set<string>();
    for (let step = 0; step < 400; step++) {
      for (const id of await page.locator(".opblock[id]").evaluateAll((els) => els.map((e) => e.id)))
        drawn.add(id);
      for (const tag of await page.locator(".opblock-tag").evaluateAll((els) => els.map((e) => e.id)))
        tags.add(tag);
      const end = await page.evaluate(
        "window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2",
      );
      if (end) break;
      await page.mouse.wheel(0, 500);
      await page.waitForTimeout(50);
    }
    const document = (await (await fetch(`${base}/api/docs/ui/json`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
      tags: { name: string }[];
    };
    const operationIds = Object.values(document.paths).flatMap((ops) =>
      Object.values(ops).flatMap((op) => (op?.operationId ? [op.operationId] : [])),
    );
    const drawnIds = [...drawn].join(" ");
    const missing = operationIds.filter((id) => !drawnIds.includes(`-${id}`));
    assert.deepEqual(missing, [], `${drawn.size} operations drawn; these never were`);
    assert.equal(
      tags.size >= document.tags.length,
      true,
      `${tags.size} of ${document.tags.length} tags drawn`,
    );
    await page.evaluate("window.scrollTo(0, 0)");
    // Interactive, not only rendered: an operation opens to show its responses, and runs.
    const health = page.locator("#operations-Operations-healthz");
    await health.locator(".opblock-summary").click();
    await health.locator(".responses-wrapper").waitFor();
    await health.locator("button.try-out__btn").click();
    await health.locator("button.execute").click();
    await health.locator(".live-responses-table .response-col_status").first().waitFor();
    assert.match(await health.locator(".live-responses-table").innerText(), /200[\s\S]*"status": "ok"/);
    // The dialog of the security schemes opens too (a modal with its own styles).
    await page.locator("button.authorize").click();
    await page.locator(".modal-ux").waitFor();
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, "docs-offline.png") });
    assert.deepEqual(blocked, [], "the docs tried to reach another host");
    assert.deepEqual(violations, [], "the docs' Content-Security-Policy broke something");
  });
});
