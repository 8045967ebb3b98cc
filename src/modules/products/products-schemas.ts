import Type from "typebox";
import type { Product } from "../../db/schema.ts";
import { Body, CursorQuery, Id, Timestamp } from "../../lib/http/schemas.ts";
import { DECIMAL_PATTERN, formatMinorUnits } from "../../lib/money.ts";

export const ProductStatus = Type.Union(
  [Type.Literal("active"), Type.Literal("draft"), Type.Literal("archived")],
  {
    description: "Only `active` products can be ordered.",
  },
);

const Price = Type.String({
  pattern: DECIMAL_PATTERN,
  maxLength: 20,
  description: "Decimal string in the store's currency, with no more decimals than the currency has.",
  examples: ["19.99"],
});

const productFields = {
  title: Type.String({ minLength: 1, maxLength: 255, examples: ["Linen shirt"] }),
  description: Type.String({ maxLength: 10_000, examples: ["Breathable, pre-washed linen."] }),
  price: Price,
  sku: Type.Union([Type.String({ minLength: 1, maxLength: 64, pattern: "^\\S(.*\\S)?$" }), Type.Null()], {
    description: "Unique within the store when set.",
    examples: ["SHIRT-LIN-M"],
  }),
  stock: Type.Integer({ minimum: 0, maximum: 1_000_000_000, examples: [25] }),
  status: ProductStatus,
};

export const CreateProductBody = Body({
  title: productFields.title,
  description: Type.Optional(productFields.description),
  price: productFields.price,
  sku: Type.Optional(productFields.sku),
  stock: Type.Optional(productFields.stock),
  status: Type.Optional(productFields.status),
});

export const UpdateProductBody = Type.Object(
  {
    title: Type.Optional(productFields.title),
    description: Type.Optional(productFields.description),
    price: Type.Optional(productFields.price),
    sku: Type.Optional(productFields.sku),
    stock: Type.Optional(productFields.stock),
    status: Type.Optional(productFields.status),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ProductResource = Type.Object(
  {
    id: Id("product"),
    title: Type.String(),
    description: Type.String(),
    price: Price,
    currency: Type.String({ examples: ["USD"] }),
    sku: Type.Union([Type.String(), Type.Null()]),
    stock: Type.Integer(),
    status: ProductStatus,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: "Product" },
);

export const ProductListQuery = Type.Object(
  { ...CursorQuery, status: Type.Optional(ProductStatus) },
  { additionalProperties: false },
);

export const ProductIdParam = { id: Id("product") };

export function toProductResource(p: Product, currency: string) {
  return {
    id: p.id,
    title: p.title,
    description: p.description,
    price: formatMinorUnits(p.price_minor, currency),
    currency,
    sku: p.sku,
    stock: p.stock,
    status: p.status,
    createdAt: p.created_at.toISOString(),
    updatedAt: p.updated_at.toISOString(),
  };
}
export type ProductView = ReturnType<typeof toProductResource>;
