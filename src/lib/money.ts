/**
 * Prices travel as decimal strings ("19.99") and are stored as integer minor units, so no
 * arithmetic ever touches a binary float. The number of decimals follows ISO 4217.
 */
import { currencyExponent } from "../contracts/locale.ts";

export { currencyExponent };

/** Largest amount in minor units we accept: well inside Number.MAX_SAFE_INTEGER and PostgreSQL bigint. */
export const MAX_MINOR_UNITS = 10 ** 15;

export { DECIMAL_PATTERN } from "../contracts/fields.ts";

/** "19.9" in USD -> 1990. Returns null when the text has more decimals than the currency allows or is out of range. */
export function toMinorUnits(amount: string, currency: string): number | null {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match) return null;
  const exponent = currencyExponent(currency);
  const fraction = match[2] ?? "";
  if (fraction.length > exponent) return null;
  const minor = Number(match[1]) * 10 ** exponent + Number(fraction.padEnd(exponent, "0") || "0");
  if (!Number.isSafeInteger(minor) || minor > MAX_MINOR_UNITS) return null;
  return minor;
}

/** 1990 in USD -> "19.90"; 1500 in JPY -> "1500". */
export function formatMinorUnits(minor: number, currency: string): string {
  const exponent = currencyExponent(currency);
  if (exponent === 0) return String(minor);
  const sign = minor < 0 ? "-" : "";
  const digits = String(Math.abs(minor)).padStart(exponent + 1, "0");
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/**
 * Rates (a tax rate, a percentage off) as integer parts per million: 8.875 % is 88,750. A rate
 * travels as a percentage string with up to four decimals ("8.875"), so every rate is exact.
 */
export const RATE_SCALE = 1_000_000;

/** "8.875" (percent) -> 88,750 parts per million; null for anything else or above 100 %. */
export function toRate(percent: string): number | null {
  const match = /^(\d{1,3})(?:\.(\d{1,4}))?$/.exec(percent);
  if (!match) return null;
  const ppm = Number(match[1]) * 10_000 + Number((match[2] ?? "").padEnd(4, "0"));
  return ppm <= RATE_SCALE ? ppm : null;
}

/** 88,750 parts per million -> "8.875" (no trailing zeros; "0" for none). */
export function formatRate(ppm: number): string {
  const whole = Math.floor(ppm / 10_000);
  const fraction = String(ppm % 10_000)
    .padStart(4, "0")
    .replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/**
 * THE rounding of the platform (docs/decisions.md, "Money"): `amount × numerator / denominator`
 * rounded half up (half away from zero), computed exactly in integers (BigInt: an amount of 10^15
 * times a rate of 10^6 is past 2^53). Every share of a tax, a percentage or a proration is rounded
 * here, once per line; sums are of rounded shares, never rounded again.
 */
export function mulDiv(amount: number, numerator: number, denominator: number): number {
  if (denominator <= 0) throw new RangeError("mulDiv: the denominator must be positive");
  const n = BigInt(amount) * BigInt(numerator);
  const d = BigInt(denominator);
  const sign = n < 0n ? -1n : 1n;
  const abs = n * sign;
  let q = abs / d;
  if ((abs % d) * 2n >= d) q += 1n;
  return Number(q * sign);
}

/**
 * `amount` split over `weights` in proportion, by largest remainder: the shares sum to `amount`
 * exactly, none is negative (for a non-negative amount), and a share is never more than one unit
 * from its exact proportion. Ties in the remainders go to the earlier weight. Weights that are all
 * zero share equally. Used wherever an order-level amount is spread over lines.
 */
export function allocate(amount: number, weights: readonly number[]): number[] {
  if (weights.length === 0) {
    if (amount !== 0) throw new RangeError("allocate: an amount needs somewhere to go");
    return [];
  }
  if (amount < 0) return allocate(-amount, weights).map((share) => -share || 0);
  const even = weights.every((w) => w === 0);
  const w = even ? weights.map(() => 1) : weights.map((x) => Math.max(0, x));
  const total = w.reduce((a, b) => a + b, 0);
  const big = BigInt(amount);
  const shares = w.map((x) => (big * BigInt(x)) / BigInt(total));
  const remainders = w.map((x, i) => ({ i, r: (big * BigInt(x)) % BigInt(total) }));
  let left = amount - Number(shares.reduce((a, b) => a + b, 0n));
  remainders.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of remainders) {
    if (left === 0) break;
    shares[i]! += 1n;
    left--;
  }
  return shares.map(Number);
}
