import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppError } from "../../../lib/errors.ts";
import { assertSafeTargetUrl, blockedRange, embeddedIPv4, isBlockedAddress, type Resolver } from "./ssrf.ts";

// No test here touches real DNS except for `localhost`; every other name goes to a fake resolver.
const answer =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
const publicResolver = answer("93.184.215.14");

async function refusedBecause(url: string, pattern: RegExp, resolve: Resolver = publicResolver) {
  await assert.rejects(assertSafeTargetUrl(url, { allowPrivate: false, resolve }), (e: unknown) => {
    assert.ok(e instanceof AppError, String(e));
    assert.equal(e.code, "VALIDATION_FAILED");
    assert.deepEqual(
      (e.details as Array<{ field: string }>).map((d) => d.field),
      ["targetUrl"],
    );
    assert.match(e.message, pattern, url);
    return true;
  });
}

describe("SSRF guard: address classification", () => {
  it("labels every internal, reserved and special IPv4 range", () => {
    const cases: Array<[string, string]> = [
      ["127.0.0.1", "loopback"],
      ["127.8.9.10", "loopback"],
      ["10.0.0.1", "private"],
      ["172.16.5.4", "private"],
      ["172.31.255.255", "private"],
      ["192.168.1.1", "private"],
      ["169.254.169.254", "link-local"],
      ["100.64.0.1", "cgnat"],
      ["100.127.255.255", "cgnat"],
      ["0.0.0.0", "unspecified"],
      ["0.1.2.3", "this-network"],
      ["255.255.255.255", "broadcast"],
      ["224.0.0.1", "multicast"],
      ["239.255.255.250", "multicast"],
      ["240.0.0.1", "reserved"],
      ["192.0.2.1", "documentation"],
      ["198.51.100.7", "documentation"],
      ["203.0.113.9", "documentation"],
      ["198.18.0.1", "benchmarking"],
      ["192.0.0.8", "ietf-protocol"],
    ];
    for (const [address, label] of cases) assert.equal(blockedRange(address), label, address);
  });

  it("labels IPv6 ranges, and judges IPv4 embedded in IPv6 by the IPv4 address", () => {
    const cases: Array<[string, string]> = [
      ["::1", "loopback"],
      ["[::1]", "loopback"],
      ["0:0:0:0:0:0:0:1", "loopback"],
      ["::", "unspecified"],
      ["fe80::1", "link-local"],
      ["fe80::1%eth0", "link-local"],
      ["fc00::1", "unique-local"],
      ["fd00:ec2::254", "unique-local"], // AWS metadata over IPv6
      ["fec0::1", "site-local"],
      ["ff02::1", "multicast"],
      ["2001:db8::1", "documentation"],
      ["3fff::1", "documentation"],
      ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "teredo"],
      ["2001:2::1", "ietf-protocol"],
      ["100::1", "reserved"],
      ["64:ff9b:1::a00:1", "nat64-local"],
      ["5f00::1", "non-global"],
      ["4000::1", "non-global"],
      // IPv4-mapped, in both notations and spelled out in full.
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["0:0:0:0:0:ffff:7f00:1", "loopback"],
      ["::ffff:a9fe:a9fe", "link-local"],
      ["::ffff:10.1.2.3", "private"],
      // IPv4-compatible (deprecated) and SIIT-translated forms.
      ["::127.0.0.1", "loopback"],
      ["::ffff:0:7f00:1", "loopback"],
      ["::ffff:0:192.168.0.1", "private"],
      // NAT64 well-known prefix: the translator would connect to the IPv4 address.
      ["64:ff9b::10.0.0.1", "private"],
      ["64:ff9b::a9fe:a9fe", "link-local"],
      // 6to4.
      ["2002:7f00:1::1", "loopback"],
      ["2002:7f00::", "loopback"],
      ["2002:a9fe:a9fe::1", "link-local"],
    ];
    for (const [address, label] of cases) assert.equal(blockedRange(address), label, address);
  });

  it("allows public unicast addresses, including public IPv4 embedded in IPv6", () => {
    for (const address of [
      "93.184.215.14",
      "8.8.8.8",
      "1.1.1.1",
      "11.0.0.1",
      "172.32.0.1", // just above 172.16.0.0/12
      "100.128.0.1", // just above 100.64.0.0/10
      "169.255.0.1",
      "2606:4700:4700::1111",
      "2a00:1450:4001:80b::200e",
      "::ffff:8.8.8.8",
      "64:ff9b::8.8.8.8",
      "2002:808:808::1",
    ]) {
      assert.equal(blockedRange(address), null, address);
      assert.equal(isBlockedAddress(address), false, address);
    }
  });

  it("treats anything that is not an IP literal as blocked", () => {
    for (const text of ["not-an-ip", "", "localhost", "127.1", "1.2.3.4.5", "::g"]) {
      assert.equal(blockedRange(text), "not-an-ip", text);
    }
  });

  it("extracts the IPv4 address carried by an IPv6 one", () => {
    assert.equal(embeddedIPv4("::ffff:7f00:1"), "127.0.0.1");
    assert.equal(embeddedIPv4("::ffff:169.254.169.254"), "169.254.169.254");
    assert.equal(embeddedIPv4("64:ff9b::c000:221"), "192.0.2.33");
    assert.equal(embeddedIPv4("2002:c000:221::1"), "192.0.2.33");
    assert.equal(embeddedIPv4("::1"), null);
    assert.equal(embeddedIPv4("2606:4700:4700::1111"), null);
    assert.equal(embeddedIPv4("10.0.0.1"), null);
  });
});

describe("SSRF guard: subscription-time target check", () => {
  it("refuses the issue's examples by default", async () => {
    await refusedBecause("https://127.0.0.1/hook", /loopback/);
    await refusedBecause("https://[::1]/hook", /loopback/);
    await refusedBecause("https://10.0.0.1/hook", /private/);
    await refusedBecause("https://169.254.169.254/latest/meta-data", /link-local/);
    await refusedBecause("https://internal.example.com/hook", /resolves to a loopback/, answer("127.0.0.1"));
  });

  it("refuses a real name resolving to loopback (`localhost`, the only real DNS lookup here)", async () => {
    await assert.rejects(
      assertSafeTargetUrl("https://localhost:8443/hook", { allowPrivate: false }),
      /resolves to a loopback/,
    );
  });

  it("refuses a name if ANY of its addresses is blocked", async () => {
    await refusedBecause("https://sneaky.example.com/hook", /private/, answer("93.184.215.14", "10.1.2.3"));
    await refusedBecause(
      "https://sneaky.example.com/hook",
      /unique-local/,
      answer("2606:4700::1", "fd00::1"),
    );
  });

  it("refuses other spellings of internal addresses", async () => {
    // The WHATWG URL parser canonicalises these to 127.0.0.1 before the check sees them.
    await refusedBecause("https://0x7f.1/hook", /loopback/);
    await refusedBecause("https://2130706433/hook", /loopback/);
    await refusedBecause("https://[::ffff:7f00:1]/hook", /loopback/);
    await refusedBecause("https://[fd00:ec2::254]/hook", /unique-local/);
    await refusedBecause("https://[64:ff9b::a9fe:a9fe]/hook", /link-local/);
  });

  it("requires an absolute https URL without credentials or fragment", async () => {
    await refusedBecause("http://example.com/hook", /https/);
    await refusedBecause("ftp://example.com/hook", /https/);
    await refusedBecause("https://user:pw@example.com/hook", /credentials/);
    await refusedBecause("https://example.com/hook#frag", /fragment/);
    await refusedBecause("not a url", /absolute https URL/);
    await refusedBecause("/relative/hook", /absolute https URL/);
  });

  it("refuses names that do not resolve, resolve to nothing, or take too long", async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    await refusedBecause("https://nowhere.example/hook", /does not resolve/, failing);
    await refusedBecause("https://empty.example/hook", /does not resolve/, answer());
    const hanging: Resolver = () => new Promise(() => {});
    const started = performance.now();
    await assert.rejects(
      assertSafeTargetUrl("https://slow.example/hook", {
        allowPrivate: false,
        resolve: hanging,
        resolveTimeoutMs: 50,
      }),
      /does not resolve/,
    );
    assert.ok(performance.now() - started < 1000);
  });

  it("accepts public targets, resolving the bare host name and not resolving IP literals", async () => {
    const asked: string[] = [];
    const recording: Resolver = async (host) => {
      asked.push(host);
      return [{ address: "2606:4700:4700::1111", family: 6 }];
    };
    await assertSafeTargetUrl("https://hooks.example.com:8443/x?y=1", {
      allowPrivate: false,
      resolve: recording,
    });
    await assertSafeTargetUrl("https://93.184.215.14/x", { allowPrivate: false, resolve: recording });
    await assertSafeTargetUrl("https://[2606:4700:4700::1111]/x", {
      allowPrivate: false,
      resolve: recording,
    });
    assert.deepEqual(asked, ["hooks.example.com"]);
  });

  it("with allowPrivate accepts internal targets, and plain http on localhost only", async () => {
    const never: Resolver = async () => assert.fail("no lookup when private targets are allowed");
    await assertSafeTargetUrl("https://127.0.0.1:8443/x", { allowPrivate: true, resolve: never });
    await assertSafeTargetUrl("https://[::1]:8443/x", { allowPrivate: true, resolve: never });
    await assertSafeTargetUrl("https://internal.example/x", { allowPrivate: true, resolve: never });
    for (const local of ["http://127.0.0.1:8080/x", "http://localhost:8080/webhooks", "http://[::1]/x"])
      await assertSafeTargetUrl(local, { allowPrivate: true, resolve: never });
    for (const remote of ["http://internal.example/x", "http://10.0.0.5/x", "http://localhost.example.com/x"])
      await assert.rejects(
        assertSafeTargetUrl(remote, { allowPrivate: true }),
        /https \(or http on localhost\)/,
      );
    await assert.rejects(
      assertSafeTargetUrl("http://127.0.0.1/x", { allowPrivate: false }),
      /must use https/,
    );
  });
});
