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

/**
 * Scopes of the merchant's own dashboard operations, which no app or key can be granted (yet). A
 * store's owner holds these and every scope above; the dashboard routes still state the one they
 * need, so a write never rides on a read scope. Giving one to apps means moving it into SCOPES.
 */
export const OWNER_SCOPES = {
  write_orders: "Create orders and move them through their statuses",
  write_customers: "Create customers",
  manage_installations: "See and uninstall the apps installed in the store",
  manage_api_keys: "Create, list and revoke developer key pairs",
} as const;

export type OwnerScope = keyof typeof OWNER_SCOPES;
/** Every scope a route of a store may require: the grantable ones and the owner's own. */
export type StoreScope = Scope | OwnerScope;
export const STORE_SCOPE_NAMES = [...SCOPE_NAMES, ...(Object.keys(OWNER_SCOPES) as OwnerScope[])];

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
