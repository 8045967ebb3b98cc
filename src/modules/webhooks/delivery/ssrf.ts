import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { AppError } from "../../../lib/errors.ts";

/**
 * Addresses a webhook must never reach by default: loopback, private, link-local (cloud metadata
 * at 169.254.169.254 and fd00:ec2::254 included), unique-local, CGNAT, unspecified, multicast,
 * broadcast, documentation and other reserved ranges. IPv4 embedded in IPv6 (mapped, NAT64, 6to4)
 * is judged by its IPv4 address.
 */
const blocked = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(net, bits, "ipv4");
}
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(net, bits, "ipv6");
}

/** The IPv4 address carried inside an IPv6 one (::ffff:a.b.c.d, ::a.b.c.d, 64:ff9b::/96, 2002::/16), if any. */
export function embeddedIPv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:::ffff:|64:ff9b::|::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = Number.parseInt(hex[1]!, 16);
    const lo = Number.parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4}):/.exec(lower);
  if (sixToFour) {
    const hi = Number.parseInt(sixToFour[1]!, 16);
    const lo = Number.parseInt(sixToFour[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return null;
}

/** True when `address` (an IP literal) is one webhooks may not reach. Unparseable counts as blocked. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, "ipv4");
  if (family === 6) {
    const v4 = embeddedIPv4(bare);
    if (v4) return blocked.check(v4, "ipv4");
    return blocked.check(bare, "ipv6");
  }
  return true;
}

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;
export const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

function invalidTarget(message: string): AppError {
  return new AppError("VALIDATION_FAILED", { message, details: [{ field: "targetUrl", message }] });
}

/**
 * Subscription-time check: https only, no credentials in the URL, and every address the host
 * resolves to must be allowed. Delivery checks again on the address actually connected to.
 */
export async function assertSafeTargetUrl(
  text: string,
  options: { allowPrivate: boolean; resolve?: Resolver | undefined },
): Promise<void> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidTarget("must be an absolute https URL");
  }
  if (url.protocol !== "https:") throw invalidTarget("must use https");
  if (url.username || url.password) throw invalidTarget("must not contain credentials");
  if (url.hash) throw invalidTarget("must not contain a fragment");
  if (options.allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) {
    if (isBlockedAddress(host))
      throw invalidTarget("must not point to a private, loopback or reserved address");
    return;
  }
  let addresses: Array<{ address: string }>;
  try {
    addresses = await (options.resolve ?? systemResolver)(host);
  } catch {
    throw invalidTarget("host name does not resolve");
  }
  if (addresses.length === 0) throw invalidTarget("host name does not resolve");
  if (addresses.some((a) => isBlockedAddress(a.address))) {
    throw invalidTarget("must not resolve to a private, loopback or reserved address");
  }
}
