import Type from "typebox";

/** The platform's scopes (spec 5.6), each with the plain words the consent page shows. */
export const SCOPES = {
  read_products: "See your products and stock",
  write_products: "Create, change and delete your products",
  read_orders: "See your orders, their items and totals",
  read_customers: "See your customers' names, e-mail addresses and phone numbers",
  manage_webhooks: "Receive notifications about events in your store",
} as const;

export type Scope = keyof typeof SCOPES;
export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];

export const ScopeSchema = Type.Union(
  [
    Type.Literal("read_products"),
    Type.Literal("write_products"),
    Type.Literal("read_orders"),
    Type.Literal("read_customers"),
    Type.Literal("manage_webhooks"),
  ],
  {
    description: Object.entries(SCOPES)
      .map(([k, v]) => `\`${k}\`: ${v}.`)
      .join(" "),
  },
);

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/** Parses an OAuth `scope` parameter (space- or comma-separated); null when any entry is unknown. */
export function parseScopeParam(text: string): Scope[] | null {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  if (parts.length === 0 || !parts.every(isScope)) return null;
  return [...new Set(parts)].sort() as Scope[];
}
