import type { Static } from "typebox";
import type { AddressInput } from "../../contracts/index.ts";
import type { AddressJson } from "../../db/schema.ts";

export type AddressInputValue = Static<typeof AddressInput>;

/**
 * An address as it is stored and answered: every part present, absent or empty parts null. The
 * schema already refused surrounding spaces, so nothing is trimmed here: what the client sent is
 * what the carrier label says.
 */
export function toAddress(input: AddressInputValue): AddressJson {
  const optional = (value: string | null | undefined) => (value ? value : null);
  return {
    name: input.name,
    company: optional(input.company),
    line1: input.line1,
    line2: optional(input.line2),
    city: input.city,
    region: optional(input.region),
    postalCode: optional(input.postalCode),
    country: input.country,
    phone: optional(input.phone),
  };
}

/** Whether two stored addresses say the same thing (for "did anything change"). */
export function sameAddress(a: AddressJson | null, b: AddressJson | null): boolean {
  return JSON.stringify(a && toAddress(a)) === JSON.stringify(b && toAddress(b));
}

/** Tags as stored: in the order given, each once (the schema refused duplicates and blanks). */
export function sameTags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}
