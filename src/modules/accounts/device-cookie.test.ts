import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { createDeviceCookies, DEVICE_COOKIE_TTL_SECONDS } from "./device-cookie.ts";

describe("device cookies", () => {
  let nowMs = 1_800_000_000_000;
  const clock = { now: () => new Date(nowMs) };
  const key = randomBytes(32);
  const devices = createDeviceCookies({ key, clock });
  const account = { id: "acct_AAAAAAAAAAAAAAAAAAAAAA", device_epoch: 0 };

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
    const another = { id: "acct_BBBBBBBBBBBBBBBBBBBBBB", device_epoch: 0 };
    assert.equal(devices.trustedDevice(value, another), null, "another account");
  });

  it("stops trusting a cookie when it expires", () => {
    const { value } = devices.issue(account);
    nowMs += DEVICE_COOKIE_TTL_SECONDS * 1000 - 1000;
    assert.ok(devices.trustedDevice(value, account));
    nowMs += 1000;
    assert.equal(devices.trustedDevice(value, account), null);
  });

  it("stops trusting every cookie of the account when its device epoch moves on", () => {
    const before = devices.issue({ ...account, device_epoch: 4 });
    assert.ok(devices.trustedDevice(before.value, { ...account, device_epoch: 4 }));
    assert.equal(devices.trustedDevice(before.value, { ...account, device_epoch: 5 }), null);
    const after = devices.issue({ ...account, device_epoch: 5 });
    assert.ok(devices.trustedDevice(after.value, { ...account, device_epoch: 5 }));
    assert.equal(devices.trustedDevice(after.value, { ...account, device_epoch: 4 }), null, "nor back");
    assert.equal(devices.trustedDevice(after.value, account), null);
  });

  it("still trusts a cookie issued before there was an epoch, until the first change", () => {
    // What createDeviceCookies issued before the epoch existed: the HMAC of v1|account|nonce|expires.
    const nonce = "N".repeat(22);
    const expires = String(Math.floor(nowMs / 1000) + 3600);
    const mac = createHmac("sha256", key).update(`v1|${account.id}|${nonce}|${expires}`).digest("base64url");
    const old = `${account.id}.${nonce}.${expires}.${mac}`;
    assert.equal(devices.trustedDevice(old, account), `login-device:${nonce}`);
    assert.equal(devices.trustedDevice(old, { ...account, device_epoch: 1 }), null);
  });
});
