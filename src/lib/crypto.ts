import { createHash, randomFillSync, timingSafeEqual } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Random bytes drawn 4 KiB at a time from the CSPRNG, each byte used once: one `randomBytes` call
 * per id cost ~2.4 µs, a byte from the pool ~0.01 µs (every delivery, event and lease takes one or
 * more ids). `crypto.randomUUID` keeps such a cache of its own.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/** `length` base62 characters, uniformly random: rejection sampling of random bytes. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    if (poolAt === pool.length) {
      randomFillSync(pool);
      poolAt = 0;
    }
    const byte = pool[poolAt++]!;
    // 248 = 4 * 62: values above it would bias the first characters of the alphabet.
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/**
 * An opaque credential with a recognisable prefix (so secret scanners can find leaked ones).
 * 43 base62 characters carry 256 bits.
 */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBase62(43)}`;
}

/** `length` base62 characters of the SHA-256 of `value` (at most 43: the hash has 256 bits). */
export function base62OfHash(value: string, length: number): string {
  let n = BigInt(`0x${sha256Hex(value)}`);
  let out = "";
  for (let i = 0; i < length; i++) {
    out += BASE62[Number(n % 62n)];
    n /= 62n;
  }
  return out;
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

/** Constant-time string equality (the length check leaks only the length, which is public). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, "utf8");
  const bb = Buffer.from(b, "utf8");
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}
