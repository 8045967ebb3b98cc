import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { createDeviceCookies, DEVICE_COOKIE_TTL_SECONDS } from "./device-cookie.ts";

describe("device cookies", () => {
  let nowMs = 1_800_000_000_000;
  const clock = { now: () => new Date(nowMs) };
  const key = randomBytes(32);
  const devices = createDeviceCookies({ key, clock });
  const account = "acct_AAAAAAAAAAAAAAAAAAAAAA";

  it("trusts its own cookie for the account it names, with one bucket per issued cookie", () => {
    const a = devices.issue(account);
    const b = devices.issue(account);
    assert.equal(a.expiresAt.getTime(), nowMs + DEVICE_COOKIE_TTL_SECONDS * 1000);
    const bucketA = devices.trustedDevice(a.value, account);
    assert.match(String(bucketA), /^login-device:[A-Za-z0-9]{22}$/);
    assert.notEqual(bucketA, devices.trustedDevice(b.value, account));
  });

  it("trusts nothing else", () => {
    const { value } = devices.issue(account);
    const [id, nonce, expires, mac] = value.split(".") as [string, string, string, string];
    const other = createDeviceCookies({ key: randomBytes(32), clock }).issue(account).value;
    for (const bad of [
      undefined,
      "",
      other,
      `${id}.${nonce}.${expires}.${mac.slice(0, -1)}${mac.endsWith("A") ? "B" : "A"}`,
      `${id}.${nonce}.${Number(expires) + 1}.${mac}`,
      `${id}.${nonce.replace(/^./, (c) => (c === "x" ? "y" : "x"))}.${expires}.${mac}`,
      `${value}.extra`,
      `${value}${"x".repeat(200)}`,
    ]) {
      assert.equal(devices.trustedDevice(bad, account), null, String(bad));
    }
    assert.equal(devices.trustedDevice(value, "acct_BBBBBBBBBBBBBBBBBBBBBB"), null, "another account");
  });

  it("stops trusting a cookie when it expires", () => {
    const { value } = devices.issue(account);
    nowMs += DEVICE_COOKIE_TTL_SECONDS * 1000 - 1000;
    assert.ok(devices.trustedDevice(value, account));
    nowMs += 1000;
    assert.equal(devices.trustedDevice(value, account), null);
  });
});
