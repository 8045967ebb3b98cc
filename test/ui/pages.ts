import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { uniqueEmail } from "../harness.ts";

/** Where the browser tests save their screenshots (ignored by git). */
export const SHOTS = join(import.meta.dirname, "..", "..", ".tmp", "screenshots");
export const PASSWORD = "a long password";
export const DESKTOP = { width: 1366, height: 800 };
export const PHONE = { width: 390, height: 844 };

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** The few page globals the tests read inside page.evaluate (the project's tsconfig has no DOM types). */
export type PageGlobals = {
  __xss?: number;
  innerWidth: number;
  navigator: { clipboard: { readText(): Promise<string> } };
  document: { documentElement: { scrollWidth: number } };
  axe: { run(context?: unknown, options?: unknown): Promise<{ violations: AxeViolation[] }> };
};
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown }>;
}

/** Browser pages of one test file: each with its own profile, recording script errors and CSP violations. */
export function pages(browser: () => Browser, base: () => string) {
  const contexts: BrowserContext[] = [];
  mkdirSync(SHOTS, { recursive: true });
  return {
    async open(viewport = DESKTOP, options: BrowserContextOptions = {}) {
      const context = await browser().newContext({ ...options, viewport });
      contexts.push(context);
      const page = await context.newPage();
      // An upper bound for a loaded machine (CI runs two test files at once on two cores), not an expectation.
      page.setDefaultTimeout(60_000);
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      // 4xx answers are expected in some steps; every other console error (CSP included) is a defect.
      page.on("console", (m) => {
        if (m.type() === "error" && !/Failed to load resource/.test(m.text())) errors.push(m.text());
      });
      return { context, page, errors };
    },
    /** Signs up and opens a store through the API (the context keeps the session cookie). */
    async merchant(context: BrowserContext, slug: string, name = "Api Merchant") {
      const email = uniqueEmail("ui");
      const signup = await context.request.post(`${base()}/api/v1/dashboard/auth/signup`, {
        data: { email, password: PASSWORD, name },
      });
      assert.equal(signup.status(), 201);
      const store = await context.request.post(`${base()}/api/v1/dashboard/stores`, {
        data: { name: `Shop ${slug}`, slug },
      });
      assert.equal(store.status(), 201);
      const post = async (path: string, data: unknown) => {
        const res = await context.request.post(`${base()}/api/v1/dashboard/stores/${slug}${path}`, { data });
        assert.ok(res.status() === 201 || res.status() === 200, await res.text());
        return (await res.json()).data;
      };
      return { post, email };
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => {});
    },
  };
}

export function row(page: Page, text: string | RegExp) {
  return page.locator("tbody tr", { hasText: text });
}

export async function buttonsIn(locator: ReturnType<Page["locator"]>) {
  return (await locator.getByRole("button").allTextContents()).map((t) => t.trim());
}

/** The page's heading, once it is there (the dashboard focuses it after each navigation). */
export async function heading(page: Page, name: string | RegExp) {
  const h = page.getByRole("heading", { level: 1, name });
  await h.waitFor();
  return h;
}

/**
 * axe-core on the page as it is: no serious or critical violation. The script is evaluated
 * through the browser's protocol (no <script> tag), so the page's CSP stays as strict as served.
 */
export async function assertAccessible(page: Page, what: string) {
  await page.evaluate(AXE);
  const { violations } = await page.evaluate(() => (globalThis as unknown as PageGlobals).axe.run());
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.help} (${v.nodes.length}: ${JSON.stringify(v.nodes[0]?.target)})`),
    [],
    `${what}: axe-core violations`,
  );
}

/**
 * A screenshot of the page at desktop and phone width (saved, not compared). Scrolled to the top
 * first: a full-page capture draws the sticky sidebar where the scroll left it, mid-page.
 */
export async function shoot(page: Page, name: string) {
  await page.evaluate("window.scrollTo(0, 0)");
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/**
 * One page at both widths: axe-core (0 serious or critical) and a screenshot at each, and no
 * sideways scrolling on the phone; left at desktop width.
 */
export async function review(page: Page, name: string) {
  await page.setViewportSize(DESKTOP);
  await assertAccessible(page, name);
  await shoot(page, `${name}-1366`);
  await page.setViewportSize(PHONE);
  await assertAccessible(page, `${name} (phone)`);
  await shoot(page, `${name}-390`);
  const overflow = await page.evaluate(() => {
    const g = globalThis as unknown as PageGlobals;
    return g.document.documentElement.scrollWidth - g.innerWidth;
  });
  assert.ok(overflow <= 0, `${name}: the page scrolls sideways by ${overflow}px at 390px`);
  await page.setViewportSize(DESKTOP);
}
