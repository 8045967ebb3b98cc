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
