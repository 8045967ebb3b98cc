import { createHmac } from "node:crypto";
import type { Clock } from "../../lib/clock.ts";
import { randomBase62, safeEqual } from "../../lib/crypto.ts";

export const DEVICE_COOKIE = "mp_device";
/** How long a browser stays trusted after its last successful sign-in. */
export const DEVICE_COOKIE_TTL_SECONDS = 365 * 24 * 3600;

const FORMAT = /^([A-Za-z0-9_]{1,80})\.([A-Za-z0-9]{22})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/;

/**
 * OWASP's device cookies (Authentication Cheat Sheet, "Device cookies"): a successful sign-in
 * gives the browser `<accountId>.<nonce>.<expires>.<HMAC-SHA256>`. A later sign-in to that account
 * presenting it is a trusted device's: its failures count in the device's own bucket (keyed by the
 * nonce), and the lockout that guessing elsewhere causes for the account does not apply to it.
 * The key is derived from the secrets key, so every instance and every restart accepts the cookie.
 */
export function createDeviceCookies(deps: { key: Buffer; clock: Clock }) {
  const mac = (accountId: string, nonce: string, expires: string) =>
    createHmac("sha256", deps.key).update(`v1|${accountId}|${nonce}|${expires}`).digest("base64url");
  return {
    /** A fresh cookie value for the account (a new nonce each sign-in, so a new failure bucket). */
    issue(accountId: string): { value: string; expiresAt: Date } {
      const nonce = randomBase62(22);
      const expiresAt = new Date(deps.clock.now().getTime() + DEVICE_COOKIE_TTL_SECONDS * 1000);
      const expires = String(Math.floor(expiresAt.getTime() / 1000));
      return { value: `${accountId}.${nonce}.${expires}.${mac(accountId, nonce, expires)}`, expiresAt };
    },
    /**
     * The device's failure-bucket id when `value` is an unexpired cookie this platform issued for
     * `accountId`; null for anything else (absent, malformed, forged, expired, another account's).
     */
    trustedDevice(value: string | undefined, accountId: string): string | null {
      const parts = value && value.length <= 200 ? FORMAT.exec(value) : null;
      if (!parts) return null;
      const [, forAccount = "", nonce = "", expires = "", signature = ""] = parts;
      if (!safeEqual(signature, mac(forAccount, nonce, expires))) return null;
      if (forAccount !== accountId) return null;
      if (Number(expires) * 1000 <= deps.clock.now().getTime()) return null;
      return `login-device:${nonce}`;
    },
  };
}
export type DeviceCookies = ReturnType<typeof createDeviceCookies>;

export function deviceCookieOptions(secure: boolean, path: string, expires: Date) {
  return { path, httpOnly: true, sameSite: "lax" as const, secure, expires };
}
