import assert from "node:assert/strict";
import { approveConsentPage } from "./apps-harness.ts";
import type { merchantWithStore } from "./harness.ts";

type Merchant = Awaited<ReturnType<typeof merchantWithStore>>;

/**
 * The sample app installed as a merchant installs it: the app's install link (its state in a
 * cookie), the platform's authorize redirect, the merchant's approval on the consent page (through
 * the dashboard API), and back to the app's callback with the cookie. Answers the callback.
 */
export async function installThroughConsent(input: {
  merchant: Merchant;
  publicUrl: string;
  platformUrl: string;
}): Promise<Response> {
  const { merchant, publicUrl, platformUrl } = input;
  const install = await fetch(`${publicUrl}/install?store=${merchant.slug}`, { redirect: "manual" });
  assert.equal(install.status, 302);
  const cookie = install.headers.get("set-cookie")!.split(";")[0]!;
  const authorize = await fetch(install.headers.get("location")!, { redirect: "manual" });
  assert.equal(authorize.status, 302);
  const q = new URL(authorize.headers.get("location")!, platformUrl).searchParams;
  return fetch(await approveConsentPage(merchant, q), { headers: { cookie } });
}

/** Polls `check` until it gives a value (every 25 ms, up to `ms`). */
export async function until<T>(what: string, check: () => T | undefined, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A form post as the app's own page sends it (no cross-site headers), not following the redirect. */
export function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
}
