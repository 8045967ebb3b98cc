import Type, { type Static } from "typebox";
import {
  CollectionKindSchema,
  CollectionMatchSchema,
  CollectionResource,
  CollectionRuleFieldSchema,
  CollectionTitle,
  MAX_COLLECTION_PRODUCTS,
  MAX_COLLECTION_RULES,
  PAGE_SIZE,
  ProductDescription,
  RuleRelationSchema,
} from "../../contracts/index.ts";
import type { Collection } from "../../db/schema.ts";
import { Body, CursorQuery, Id, PageLimit } from "../../lib/http/schemas.ts";
import { isoString } from "../../lib/iso-string.ts";
import { CREATED_AND_UPDATED, SortParam, type SortTable } from "../../lib/pagination.ts";

export { CollectionResource };

const Rule = Type.Object(
  {
    field: CollectionRuleFieldSchema,
    relation: RuleRelationSchema,
    value: Type.String({ minLength: 1, maxLength: 255, examples: ["summer"] }),
  },
  { additionalProperties: false },
);
const Rules = Type.Array(Rule, {
  minItems: 1,
  maxItems: MAX_COLLECTION_RULES,
  description: `An automatic collection's rules (1 to ${MAX_COLLECTION_RULES}).`,
});
const ProductIds = Type.Array(Id("product"), {
  maxItems: MAX_COLLECTION_PRODUCTS,
  uniqueItems: true,
  description: `A manual collection's products, in order (at most ${MAX_COLLECTION_PRODUCTS}).`,
});

export const CreateCollectionBody = Body({
  title: CollectionTitle,
  description: Type.Optional(ProductDescription),
  kind: CollectionKindSchema,
  match: Type.Optional(CollectionMatchSchema),
  rules: Type.Optional(Rules),
  productIds: Type.Optional(ProductIds),
});
export const UpdateCollectionBody = Type.Object(
  {
    title: Type.Optional(CollectionTitle),
    description: Type.Optional(ProductDescription),
    match: Type.Optional(CollectionMatchSchema),
    rules: Type.Optional(Rules),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const SetCollectionProductsBody = Body({ productIds: ProductIds });

export const COLLECTION_SORTS = {
  ...CREATED_AND_UPDATED,
  title: { column: "title", type: "text" },
} as const satisfies SortTable;

export const CollectionListQuery = Type.Object(
  {
    ...CursorQuery,
    sort: Type.Optional(SortParam(COLLECTION_SORTS, "Order of the list: by creation, last change or title.")),
  },
  { additionalProperties: false },
);
export const CollectionProductsQuery = Type.Object(
  {
    limit: PageLimit(PAGE_SIZE.cursor),
    cursor: Type.Optional(
      Type.String({
        maxLength: 512,
        description: "Opaque cursor from `meta.nextCursor` of the previous page.",
      }),
    ),
  },
  { additionalProperties: false },
);
export const CollectionIdParam = { id: Id("collection") };
export const CollectionProductParams = { id: Id("collection"), productId: Id("product") };

export function toCollectionResource(c: Collection, productsCount: number) {
  return {
    id: c.id,
    title: c.title,
    description: c.description,
    kind: c.kind,
    match: c.match,
    rules: c.rules,
    productsCount,
    createdAt: isoString(c.created_at),
    updatedAt: isoString(c.updated_at),
  };
}
export type CreateCollectionInput = Static<typeof CreateCollectionBody>;
export type UpdateCollectionInput = Static<typeof UpdateCollectionBody>;
