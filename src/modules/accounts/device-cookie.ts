import { createHmac, createSecretKey } from "node:crypto";
import type { Clock } from "../../lib/clock.ts";
import { randomBase62, safeEqual } from "../../lib/crypto.ts";

export const DEVICE_COOKIE = "mp_device";
/** How long a browser stays trusted after its last successful sign-in. */
export const DEVICE_COOKIE_TTL_SECONDS = 365 * 24 * 3600;

const FORMAT = /^([A-Za-z0-9_]{1,80})\.([A-Za-z0-9]{22})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/;

/** What a device cookie is checked against: the account, and its device epoch at the time. */
export interface DeviceAccount {
  id: string;
  device_epoch: number;
}

/**
 * OWASP's device cookies (Authentication Cheat Sheet, "Device cookies"): a successful sign-in
 * gives the browser `<accountId>.<nonce>.<expires>.<HMAC-SHA256>`. A later sign-in to that account
 * presenting it is a trusted device's: its failures count in the device's own bucket (keyed by the
 * nonce), and the lockout that guessing elsewhere causes for the account does not apply to it.
 * The key is derived from the secrets key, so every instance and every restart accepts the cookie.
 *
 * The HMAC also covers the account's device epoch (not written in the cookie): a password change
 * or a sign-out everywhere moves the epoch on, and every cookie issued before no longer verifies.
 */
export function createDeviceCookies(deps: { key: Buffer; clock: Clock }) {
  const key = createSecretKey(deps.key); // a KeyObject: a Buffer key costs ~10 µs more a MAC on Node 24
  const mac = (account: DeviceAccount, nonce: string, expires: string) => {
    // Epoch 0 signs what cookies signed before there was an epoch, so those issued then stay
    // trusted until the account's first password change or sign-out everywhere.
    const text =
      account.device_epoch === 0
        ? `v1|${account.id}|${nonce}|${expires}`
        : `v2|${account.id}|${nonce}|${expires}|${account.device_epoch}`;
    return createHmac("sha256", key).update(text).digest("base64url");
  };
  return {
    /** A fresh cookie value for the account (a new nonce each sign-in, so a new failure bucket). */
    issue(account: DeviceAccount): { value: string; expiresAt: Date } {
      const nonce = randomBase62(22);
      const expiresAt = new Date(deps.clock.now().getTime() + DEVICE_COOKIE_TTL_SECONDS * 1000);
      const expires = String(Math.floor(expiresAt.getTime() / 1000));
      return { value: `${account.id}.${nonce}.${expires}.${mac(account, nonce, expires)}`, expiresAt };
    },
    /**
     * The device's failure-bucket id when `value` is an unexpired cookie this platform issued for
     * `account` at its current device epoch; null for anything else (absent, malformed, forged,
     * expired, another account's, issued before the password changed or a sign-out everywhere).
     */
    trustedDevice(value: string | undefined, account: DeviceAccount): string | null {
      const parts = value && value.length <= 200 ? FORMAT.exec(value) : null;
      if (!parts) return null;
      const [, forAccount = "", nonce = "", expires = "", signature = ""] = parts;
      if (forAccount !== account.id) return null;
      if (!safeEqual(signature, mac(account, nonce, expires))) return null;
      if (Number(expires) * 1000 <= deps.clock.now().getTime()) return null;
      return `login-device:${nonce}`;
    },
  };
}
export type DeviceCookies = ReturnType<typeof createDeviceCookies>;

export function deviceCookieOptions(secure: boolean, path: string, expires?: Date) {
  return { path, httpOnly: true, sameSite: "lax" as const, secure, ...(expires ? { expires } : {}) };
}
