import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { AppError } from "../../../lib/errors.ts";

/**
 * SSRF guard for webhook targets. By default a webhook may only reach globally routable unicast
 * addresses; everything a receiver could use to reach inside our network is refused. Two places
 * use it: `assertSafeTargetUrl` when a subscription is created, and the sender on the address a
 * delivery actually connects to (so a DNS answer that changes later cannot get through).
 */

/** Why an address is refused; also written into the attempt log. */
export type BlockedRange =
  | "unspecified"
  | "this-network"
  | "loopback"
  | "private"
  | "cgnat"
  | "link-local"
  | "unique-local"
  | "site-local"
  | "multicast"
  | "broadcast"
  | "documentation"
  | "benchmarking"
  | "ietf-protocol"
  | "reserved"
  | "nat64-local"
  | "teredo"
  | "non-global"
  | "not-an-ip";

type Range = readonly [BlockedRange, string, number];

// IANA IPv4 special-purpose registry, minus nothing: none of these is a place a webhook belongs.
// First match wins, so narrower ranges come before the ranges that contain them.
const IPV4_RANGES: readonly Range[] = [
  ["unspecified", "0.0.0.0", 32],
  ["this-network", "0.0.0.0", 8],
  ["private", "10.0.0.0", 8],
  ["cgnat", "100.64.0.0", 10],
  ["loopback", "127.0.0.0", 8],
  // Cloud metadata services (169.254.169.254, 169.254.170.2, …) live here.
  ["link-local", "169.254.0.0", 16],
  ["private", "172.16.0.0", 12],
  ["ietf-protocol", "192.0.0.0", 24],
  ["documentation", "192.0.2.0", 24],
  ["reserved", "192.88.99.0", 24],
  ["private", "192.168.0.0", 16],
  ["benchmarking", "198.18.0.0", 15],
  ["documentation", "198.51.100.0", 24],
  ["documentation", "203.0.113.0", 24],
  ["multicast", "224.0.0.0", 4],
  ["broadcast", "255.255.255.255", 32],
  ["reserved", "240.0.0.0", 4],
];

// IPv6 outside these is still refused unless it is global unicast (2000::/3); this list names the
// common cases and the reserved blocks inside 2000::/3. Forms that embed an IPv4 address
// (mapped, compatible, SIIT, NAT64 64:ff9b::/96, 6to4) are judged by that IPv4 address first.
const IPV6_RANGES: readonly Range[] = [
  ["unspecified", "::", 128],
  ["loopback", "::1", 128],
  // Local-use NAT64 (RFC 8215): the operator's own translator, whatever IPv4 it embeds.
  ["nat64-local", "64:ff9b:1::", 48],
  ["reserved", "100::", 64],
  // Teredo tunnels the client's IPv4 address in obfuscated form; nothing legitimate needs it.
  ["teredo", "2001::", 32],
  ["documentation", "2001:db8::", 32],
  ["ietf-protocol", "2001::", 23],
  ["documentation", "3fff::", 20],
  ["unique-local", "fc00::", 7],
  ["link-local", "fe80::", 10],
  ["site-local", "fec0::", 10],
  ["multicast", "ff00::", 8],
];

function compile(ranges: readonly Range[], type: "ipv4" | "ipv6") {
  return ranges.map(([label, network, prefix]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, type);
    return { label, list };
  });
}
const ipv4Lists = compile(IPV4_RANGES, "ipv4");
const ipv6Lists = compile(IPV6_RANGES, "ipv6");

/** The eight 16-bit groups of a valid IPv6 literal (no zone), a trailing dotted quad included. */
function ipv6Groups(address: string): number[] {
  let text = address;
  const lastColon = text.lastIndexOf(":");
  const tail = text.slice(lastColon + 1);
  if (tail.includes(".")) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split(".").map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string | undefined) =>
    part ? part.split(":").map((group) => Number.parseInt(group, 16)) : [];
  const [head, rest] = text.split("::");
  const high = parse(head);
  if (rest === undefined) return high;
  const low = parse(rest);
  return [...high, ...new Array<number>(8 - high.length - low.length).fill(0), ...low];
}

/**
 * The IPv4 address an IPv6 address stands for, if any: IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-compatible `::a.b.c.d`, SIIT `::ffff:0:a.b.c.d`, NAT64 well-known prefix
 * `64:ff9b::a.b.c.d` and 6to4 `2002:AABB:CCDD::/48`. Accepts either notation (`::ffff:7f00:1`).
 */
export function embeddedIPv4(address: string): string | null {
  const bare = stripBrackets(address);
  if (isIP(bare) !== 6) return null;
  const groups = ipv6Groups(bare);
  const g = (i: number) => groups[i] ?? 0;
  const zero = (from: number, to: number) => groups.slice(from, to).every((x) => x === 0);
  const dotted = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  if (zero(0, 5) && g(5) === 0xffff) return dotted(g(6), g(7));
  // `::` and `::1` are IPv6's own unspecified and loopback addresses, not IPv4-compatible ones.
  if (zero(0, 6) && !(g(6) === 0 && g(7) <= 1)) return dotted(g(6), g(7));
  if (zero(0, 4) && g(4) === 0xffff && g(5) === 0) return dotted(g(6), g(7));
  if (g(0) === 0x64 && g(1) === 0xff9b && zero(2, 6)) return dotted(g(6), g(7));
  if (g(0) === 0x2002) return dotted(g(1), g(2));
  return null;
}

function stripBrackets(address: string): string {
  // A zone (fe80::1%eth0) does not change which range the address is in.
  return address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
}

/**
 * Which blocked range `address` (an IP literal, brackets and zone allowed) is in, or null when a
 * webhook may reach it. Anything that is not an IP address counts as blocked.
 */
export function blockedRange(address: string): BlockedRange | null {
  const bare = stripBrackets(address);
  const family = isIP(bare);
  if (family === 4) return ipv4Lists.find((r) => r.list.check(bare, "ipv4"))?.label ?? null;
  if (family !== 6) return "not-an-ip";
  const special = ipv6Lists.find((r) => r.list.check(bare, "ipv6"))?.label;
  if (special === "unspecified" || special === "loopback") return special;
  const v4 = embeddedIPv4(bare);
  if (v4) return blockedRange(v4);
  if (special) return special;
  const first = ipv6Groups(bare)[0] ?? 0;
  // Only global unicast (2000::/3) is routable on the internet.
  return (first & 0xe000) === 0x2000 ? null : "non-global";
}

/** True when `address` is one webhooks may not reach (see `blockedRange`). */
export function isBlockedAddress(address: string): boolean {
  return blockedRange(address) !== null;
}

/** A DNS lookup returning every address of a name. Inject a fake one in tests. */
export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;
export const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

function invalidTarget(message: string, field = "targetUrl"): AppError {
  return new AppError("VALIDATION_FAILED", {
    message: `${field} ${message}.`,
    details: [{ field, message }],
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("DNS lookup timed out")), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/**
 * Whether a target's scheme may be used: https always; plain http only when private targets are
 * allowed (WEBHOOK_ALLOW_PRIVATE_TARGETS, development) and the host is this machine's loopback,
 * so a developer receives the real engine's deliveries on localhost without a certificate, and
 * nothing leaves the machine unencrypted. The subscription's check and the sender's, both.
 */
export function schemeAllowed(url: URL, allowPrivate: boolean): boolean {
  if (url.protocol === "https:") return true;
  if (url.protocol !== "http:" || !allowPrivate) return false;
  const host = stripBrackets(url.hostname);
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export interface TargetCheckOptions {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: skip the address checks, and take http on loopback (schemeAllowed). */
  allowPrivate: boolean;
  /** DNS lookup; the system resolver by default. */
  resolve?: Resolver | undefined;
  /** Give up on a name that does not resolve within this time (default 5 s). */
  resolveTimeoutMs?: number | undefined;
  /** The field an error names (default `targetUrl`; an app's privacy endpoint is `privacyWebhookUrl`). */
  field?: string | undefined;
}

/**
 * Subscription-time check of a target URL. Throws VALIDATION_FAILED naming `targetUrl` unless:
 * it is an absolute https URL without credentials or fragment, and (unless `allowPrivate`) its
 * host is an allowed IP literal or a name every resolved address of which is allowed. This is a
 * courtesy to the app developer; the sender checks again on every connection, because DNS
 * answers change.
 */
export async function assertSafeTargetUrl(text: string, options: TargetCheckOptions): Promise<void> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidTarget("must be an absolute https URL", options.field);
  }
  if (!schemeAllowed(url, options.allowPrivate))
    throw invalidTarget(
      options.allowPrivate ? "must use https (or http on localhost)" : "must use https",
      options.field,
    );
  if (url.username || url.password) throw invalidTarget("must not contain credentials", options.field);
  if (url.hash) throw invalidTarget("must not contain a fragment", options.field);
  if (options.allowPrivate) return;
  const host = stripBrackets(url.hostname);
  if (isIP(host)) {
    const range = blockedRange(host);
    if (range) throw invalidTarget(`must not point to a ${range} address`, options.field);
    return;
  }
  let addresses: Array<{ address: string }>;
  try {
    addresses = await withTimeout(
      (options.resolve ?? systemResolver)(host),
      options.resolveTimeoutMs ?? 5000,
    );
  } catch {
    throw invalidTarget("host name does not resolve", options.field);
  }
  if (addresses.length === 0) throw invalidTarget("host name does not resolve", options.field);
  // ANY blocked answer refuses the name: the connection could pick that one.
  for (const { address } of addresses) {
    const range = blockedRange(address);
    if (range) throw invalidTarget(`host name resolves to a ${range} address`, options.field);
  }
}
