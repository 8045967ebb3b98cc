import Type from "typebox";
import { Currency, StoreName, StoreResource, StoreSlug } from "../../contracts/index.ts";
import type { Store } from "../../db/schema.ts";
import { Body } from "../../lib/http/schemas.ts";

export { Currency, StoreResource };

export const CreateStoreBody = Body({
  name: StoreName,
  slug: StoreSlug,
  currency: Type.Optional({ ...Currency, default: "USD" }),
});
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
