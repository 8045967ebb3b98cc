import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertSafeTargetUrl, embeddedIPv4, isBlockedAddress } from "./ssrf.ts";

const publicResolver = async () => [{ address: "93.184.215.14", family: 4 }];
const loopbackResolver = async () => [{ address: "127.0.0.1", family: 4 }];
const mixedResolver = async () => [
  { address: "93.184.215.14", family: 4 },
  { address: "10.1.2.3", family: 4 },
];

async function refused(url: string, resolve = publicResolver) {
  await assert.rejects(
    assertSafeTargetUrl(url, { allowPrivate: false, resolve }),
    (e: { code?: string }) => e.code === "VALIDATION_FAILED",
  );
}

describe("SSRF guard", () => {
  it("classifies internal and reserved addresses", () => {
    for (const a of [
      "127.0.0.1",
      "127.8.9.10",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "255.255.255.255",
      "224.0.0.1",
      "::1",
      "::",
      "fe80::1",
      "fc00::1",
      "fd00:ec2::254",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a9fe:a9fe",
      "64:ff9b::10.0.0.1",
      "2002:7f00:0001::1",
      "ff02::1",
      "not-an-ip",
    ]) {
      assert.equal(isBlockedAddress(a), true, a);
    }
    for (const a of ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      assert.equal(isBlockedAddress(a), false, a);
    }
    assert.equal(embeddedIPv4("::ffff:7f00:1"), "127.0.0.1");
  });

  it("refuses the issue's examples by default", async () => {
    await refused("https://127.0.0.1/hook");
    await refused("https://[::1]/hook");
    await refused("https://10.0.0.1/hook");
    await refused("https://169.254.169.254/latest/meta-data");
    await refused("https://internal.example.com/hook", loopbackResolver);
    await refused("https://sneaky.example.com/hook", mixedResolver);
  });

  it("requires https and refuses credentials or fragments", async () => {
    await refused("http://example.com/hook");
    await refused("ftp://example.com/hook");
    await refused("https://user:pw@example.com/hook");
    await refused("not a url");
  });

  it("accepts public https targets, and private ones only when allowed", async () => {
    await assertSafeTargetUrl("https://hooks.example.com/x", {
      allowPrivate: false,
      resolve: publicResolver,
    });
    await assertSafeTargetUrl("https://127.0.0.1:8443/x", { allowPrivate: true });
    await assert.rejects(assertSafeTargetUrl("http://127.0.0.1/x", { allowPrivate: true }));
  });
});
