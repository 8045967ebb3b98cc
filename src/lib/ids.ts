import { randomBase62 } from "./crypto.ts";

/** Public id prefixes: one per resource kind, so an id says what it names. */
export const ID_PREFIX = {
  account: "acct",
  store: "store",
  product: "prod",
  customer: "cus",
  order: "ord",
  lineItem: "li",
  event: "evt",
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** 22 base62 characters: about 131 random bits, unguessable and never sequential. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${randomBase62(22)}`;
}

/** Pattern accepted for an id of `kind` in a path or body; anything else is a 400 before any query. */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIX[kind]}_[0-9A-Za-z]{22}$`;
}
