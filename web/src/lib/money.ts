import { currencyExponent } from "../contract.ts";

/**
 * A preview of amounts in the browser (the order form's line totals): decimal strings turned into
 * minor units and back with the currency's decimals (the contract's ISO 4217 table, as the server
 * uses), never binary floats. The server computes the real totals.
 */

/** "19.90" -> 1990 in USD. */
export function toMinor(amount: string, currency: string): number {
  const [whole = "0", fraction = ""] = amount.split(".");
  const d = currencyExponent(currency);
  return Number(whole) * 10 ** d + Number(fraction.padEnd(d, "0").slice(0, d) || "0");
}

/** 1990 -> "19.90" in USD. */
export function formatMinor(minor: number, currency: string): string {
  const d = currencyExponent(currency);
  if (d === 0) return String(minor);
  const digits = String(minor).padStart(d + 1, "0");
  return `${digits.slice(0, -d)}.${digits.slice(-d)}`;
}
