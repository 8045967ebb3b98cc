import Type from "typebox";
import type { Store } from "../../db/schema.ts";
import { Body, Id, StoreSlug, Timestamp } from "../../lib/http/schemas.ts";

export const Currency = Type.String({
  pattern: "^[A-Z]{3}$",
  maxLength: 3,
  description: "ISO 4217 currency code of the store; every price in the store is in it.",
  examples: ["USD", "SAR"],
});

export const CreateStoreBody = Body({
  name: Type.String({ minLength: 1, maxLength: 100, examples: ["Demo Store"] }),
  slug: StoreSlug,
  currency: Type.Optional({ ...Currency, default: "USD" }),
});

export const StoreResource = Type.Object(
  { id: Id("store"), slug: StoreSlug, name: Type.String(), currency: Currency, createdAt: Timestamp },
  { title: "Store" },
);

export function toStoreResource(s: Store) {
  return {
    id: s.id,
    slug: s.slug,
    name: s.name,
    currency: s.currency,
    createdAt: s.created_at.toISOString(),
  };
}

export const SlugParams = Type.Object({ slug: StoreSlug }, { additionalProperties: false });
