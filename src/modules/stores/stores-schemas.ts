import Type, { type Static } from "typebox";
import {
  AddressInput,
  ContactEmail,
  Currency,
  OrderNumberPrefix,
  roleScopes,
  STORE_SCOPE_NAMES,
  StoreName,
  StoreResource,
  type StoreRole,
  StoreRoleSchema,
  StoreSlug,
  TimeZone,
} from "../../contracts/index.ts";
import type { Store } from "../../db/schema.ts";
import { Body } from "../../lib/http/schemas.ts";
import { toAddress } from "../addresses/addresses.ts";

export { Currency, StoreResource };

export const CreateStoreBody = Body({
  name: StoreName,
  slug: StoreSlug,
  currency: Type.Optional({ ...Currency, default: "USD" }),
});

/** The store's settings page: send only what changes. */
export const UpdateStoreBody = Type.Object(
  {
    name: Type.Optional(StoreName),
    contactEmail: Type.Optional(Type.Union([ContactEmail, Type.Null()])),
    address: Type.Optional(Type.Union([AddressInput, Type.Null()])),
    currency: Type.Optional({
      ...Currency,
      description:
        "ISO 4217. Changes only while the store has no orders (409 after): product prices keep their amounts (19.90 USD becomes 19.90 EUR), and a price the new currency cannot write (19.99 in JPY) is a 409 naming how many.",
    }),
    timeZone: Type.Optional(TimeZone),
    orderNumberPrefix: Type.Optional(OrderNumberPrefix),
    taxesIncluded: Type.Optional(
      Type.Boolean({
        description:
          "Prices are entered with tax included (the tax is found inside them) or without it (tax is added on top). Applies to orders placed after the change.",
      }),
    ),
    taxShipping: Type.Optional(
      Type.Boolean({ description: "Tax shipping at the same rates as the goods, for orders placed after." }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export function toStoreResource(s: Store) {
  return {
    id: s.id,
    slug: s.slug,
    name: s.name,
    currency: s.currency,
    contactEmail: s.contact_email,
    address: s.address ? toAddress(s.address) : null,
    timeZone: s.time_zone,
    orderNumberPrefix: s.order_number_prefix,
    taxesIncluded: s.taxes_included,
    taxShipping: s.tax_shipping,
    createdAt: s.created_at.toISOString(),
    updatedAt: s.updated_at.toISOString(),
  };
}

/** A store in the dashboard's list: the store, and what the signed-in account may do in it. */
export const DashboardStore = Type.Object(
  {
    ...StoreResource.properties,
    role: StoreRoleSchema,
    permissions: Type.Array(Type.Enum(STORE_SCOPE_NAMES, { type: "string" }), {
      maxItems: STORE_SCOPE_NAMES.length,
      description:
        "The scopes the role holds in this store: what its dashboard routes check (each route names the scope it needs). The dashboard shows only what they allow.",
    }),
  },
  { title: "DashboardStore" },
);

export function toDashboardStore({ store, role }: { store: Store; role: StoreRole }) {
  return { ...toStoreResource(store), role, permissions: [...roleScopes(role)] };
}

export const SlugParams = Type.Object({ slug: StoreSlug }, { additionalProperties: false });

export type CreateStoreInput = Static<typeof CreateStoreBody>;
export type UpdateStoreInput = Static<typeof UpdateStoreBody>;
