import Type from "typebox";
import { keysOf, mirror } from "./mirror.ts";

/**
 * The scopes an app can be granted (the five the platform started with, and the order and customer writes of issue 20), each
 * with the words the consent page and the dashboard show (`label` in a list, `description` where
 * there is room), and whether a developer key pair may carry it (`keys`: only a scope some
 * developer API route needs, so a key is never offered a scope that grants nothing; webhooks and
 * the order and customer writes are for apps).
 */
export const GRANTABLE_SCOPES = {
  read_products: {
    keys: true,
    label: "See your products and stock",
    description: "Read products: titles, descriptions, prices, SKUs, stock and status.",
  },
  write_products: {
    keys: true,
    label: "Create, change and delete your products",
    description: "Create, update and delete products, including their prices and stock.",
  },
  read_inventory: {
    keys: true,
    label: "See your stock at each of your locations, and your locations",
    description:
      "Read stock per variant and location (available, committed to orders, unavailable, on hand), the history of stock changes, and your locations.",
  },
  write_inventory: {
    keys: true,
    label: "Change your stock and manage your locations",
    description:
      "Adjust, set and move stock between locations (each change recorded with who made it and why), and create, change and delete locations.",
  },
  read_orders: {
    keys: true,
    label: "See your orders, their items, totals, shipping addresses and tracking",
    description:
      "Read orders with their line items, totals, status, shipping address, fulfilment (carrier and tracking) and customer reference.",
  },
  write_orders: {
    keys: false,
    label: "Create orders, mark them shipped with tracking, and edit their notes and tags",
    description:
      "Create orders (with a new customer inline), move orders through their statuses with the carrier and tracking number when shipped, and change an order's note, tags and shipping address.",
  },
  read_customers: {
    keys: true,
    label: "See your customers' names, e-mail addresses, phone numbers and addresses",
    description: "Read customer records: names, e-mail addresses, phone numbers, addresses, notes and tags.",
  },
  write_customers: {
    keys: false,
    label: "Create and change your customers, their addresses included",
    description:
      "Create customers and change their names, e-mail addresses, phone numbers, addresses, notes and tags.",
  },
  read_returns: {
    keys: false,
    label: "See the returns of your orders",
    description: "Read returns: the units coming back, their reasons, each step and the refund linked.",
  },
  write_returns: {
    keys: false,
    label: "Request, approve, decline, receive and close returns, refunding them",
    description:
      "Create returns for shipped orders, move them through their steps, restock what comes back and refund it on close.",
  },
  read_discounts: {
    keys: false,
    label: "See your discount codes and how often they were used",
    description: "Read discount codes: their terms, dates, limits, status and use count.",
  },
  write_discounts: {
    keys: false,
    label: "Create, change, pause and delete your discount codes",
    description: "Create, update, pause and delete discount codes.",
  },
  manage_webhooks: {
    keys: false,
    label: "Receive notifications about events in your store",
    description: "Create, list and delete webhook subscriptions for the events the other scopes allow.",
  },
} as const;

/**
 * Scopes of the merchant's own dashboard operations, which no app or key can be granted (yet). A
 * store's owner and admins hold these and every grantable scope (roles.ts); the dashboard routes still state the one
 * they need, so a write never rides on a read scope. Giving one to apps means moving it above.
 */
export const OWNER_SCOPES = {
  manage_store: {
    label: "Change the store's settings",
    description:
      "Change the store's name, contact e-mail, address, currency, time zone and order number prefix.",
  },
  manage_installations: {
    label: "Install apps in the store, see them and uninstall them",
    description:
      "Install an app in the store (the consent page offers only stores where the account holds this), list the store's installed apps and uninstall them.",
  },
  manage_api_keys: {
    label: "Create, list and revoke developer key pairs",
    description: "Create, list and revoke developer API key pairs.",
  },
  manage_staff: {
    label: "Invite staff, change their roles and remove them",
    description:
      "See the store's staff and open invitations, invite people by e-mail, change a member's role and remove members (which signs them out at once).",
  },
} as const;

export type Scope = keyof typeof GRANTABLE_SCOPES;
export type OwnerScope = keyof typeof OWNER_SCOPES;
/** Every scope a route of a store may require: the grantable ones and the owner's own. */
export type StoreScope = Scope | OwnerScope;

export const SCOPE_NAMES = keysOf(GRANTABLE_SCOPES);
export const STORE_SCOPE_NAMES: StoreScope[] = [...SCOPE_NAMES, ...keysOf(OWNER_SCOPES)];
/** `Scope.read_products === "read_products"`: the names as values. */
export const Scope = mirror(STORE_SCOPE_NAMES);

/** The plain-language label of any store scope. */
export function scopeLabel(scope: StoreScope): string {
  return (
    (GRANTABLE_SCOPES as Record<string, { label: string }>)[scope]?.label ??
    OWNER_SCOPES[scope as OwnerScope].label
  );
}

export const ScopeSchema = Type.Enum(SCOPE_NAMES, {
  type: "string",
  description: SCOPE_NAMES.map((s) => `\`${s}\`: ${GRANTABLE_SCOPES[s].label}.`).join(" "),
});

/** The scopes a developer key pair can carry. */
export type KeyScope = { [S in Scope]: (typeof GRANTABLE_SCOPES)[S]["keys"] extends true ? S : never }[Scope];
export const KEY_SCOPE_NAMES = SCOPE_NAMES.filter((s): s is KeyScope => GRANTABLE_SCOPES[s].keys);
export const KeyScopeSchema = Type.Enum(KEY_SCOPE_NAMES, {
  type: "string",
  description: "Grant the minimum the integration needs: a catalogue export needs only `read_products`.",
});

export function isScope(value: string): value is Scope {
  return Object.hasOwn(GRANTABLE_SCOPES, value);
}

/** Parses an OAuth `scope` parameter (space- or comma-separated); null when any entry is unknown. */
export function parseScopeParam(text: string): Scope[] | null {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  if (parts.length === 0 || !parts.every(isScope)) return null;
  return [...new Set(parts)].sort() as Scope[];
}
