import Type from "typebox";
import { keysOf, mirror } from "./mirror.ts";
import { STORE_SCOPE_NAMES, type StoreScope } from "./scopes.ts";

/**
 * The roles a person can hold in a store (issue 32, part 3): each is a set of the store's scopes,
 * which the dashboard's guard checks on every store route exactly as an app's token is checked.
 * `owner` is the account that created the store (`stores.owner_account_id`), one per store; the
 * others are staff (`store_members.role`). An admin holds every scope the owner does; what only the
 * owner may do (be changed or removed by nobody, own the store) is the staff rules' (staff-service).
 */
export const STORE_ROLES = {
  owner: {
    label: "Owner",
    description: "Created the store. Everything, and cannot be changed or removed.",
    scopes: STORE_SCOPE_NAMES,
  },
  admin: {
    label: "Admin",
    description:
      "Everything the owner can do, installing apps, making key pairs and managing staff included, except changing or removing the owner.",
    scopes: STORE_SCOPE_NAMES,
  },
  orders: {
    label: "Orders and fulfilment",
    description:
      "Orders, customers, returns and refunds; sees products, stock and discount codes to fulfil them.",
    scopes: [
      "read_orders",
      "write_orders",
      "read_customers",
      "write_customers",
      "read_returns",
      "write_returns",
      "read_products",
      "read_inventory",
      "read_discounts",
    ],
  },
  catalogue: {
    label: "Catalogue",
    description: "Products, collections, stock and locations, and discount codes; sees orders.",
    scopes: [
      "read_products",
      "write_products",
      "read_inventory",
      "write_inventory",
      "read_discounts",
      "write_discounts",
      "read_orders",
    ],
  },
  read_only: {
    label: "Read-only",
    description:
      "Sees the store's products, stock, orders, customers, returns and discount codes; changes nothing.",
    scopes: [
      "read_products",
      "read_inventory",
      "read_orders",
      "read_customers",
      "read_returns",
      "read_discounts",
    ],
  },
} as const satisfies Record<string, { label: string; description: string; scopes: readonly StoreScope[] }>;

export type StoreRole = keyof typeof STORE_ROLES;
export const STORE_ROLE_NAMES = keysOf(STORE_ROLES);
export const StoreRole = mirror(STORE_ROLE_NAMES);

/** The roles staff can be given: every role but the owner's (a store has exactly one owner). */
export type StaffRole = Exclude<StoreRole, "owner">;
export const STAFF_ROLE_NAMES = STORE_ROLE_NAMES.filter((r): r is StaffRole => r !== StoreRole.owner);

/** The scopes a role holds. */
export function roleScopes(role: StoreRole): readonly StoreScope[] {
  return STORE_ROLES[role].scopes;
}

export const StoreRoleSchema = Type.Enum(STORE_ROLE_NAMES, {
  type: "string",
  description: STORE_ROLE_NAMES.map((r) => `\`${r}\`: ${STORE_ROLES[r].label}.`).join(" "),
});
export const StaffRoleSchema = Type.Enum(STAFF_ROLE_NAMES, {
  type: "string",
  description: STAFF_ROLE_NAMES.map(
    (r) => `\`${r}\`: ${STORE_ROLES[r].label}: ${STORE_ROLES[r].description}`,
  ).join(" "),
});
