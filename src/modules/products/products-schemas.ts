import Type, { type Static } from "typebox";
import {
  Money,
  ProductDescription,
  ProductResource,
  ProductStatusSchema,
  ProductTitle,
  Sku,
  Stock,
} from "../../contracts/index.ts";
import type { Product } from "../../db/schema.ts";
import { Body, CursorQuery, Id } from "../../lib/http/schemas.ts";
import { formatMinorUnits } from "../../lib/money.ts";

export { ProductResource };

const productFields = {
  title: ProductTitle,
  description: ProductDescription,
  price: Money,
  sku: Type.Union([Sku, Type.Null()], {
    description: "Unique within the store when set.",
    examples: ["SHIRT-LIN-M"],
  }),
  stock: Stock,
  status: ProductStatusSchema,
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

export const ProductListQuery = Type.Object(
  { ...CursorQuery, status: Type.Optional(ProductStatusSchema) },
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
export type CreateProductInput = Static<typeof CreateProductBody>;
export type UpdateProductInput = Static<typeof UpdateProductBody>;
