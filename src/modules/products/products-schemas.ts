import Type, { type Static } from "typebox";
import {
  MetadataInput,
  Money,
  ProductDescription,
  ProductResource,
  ProductStatusSchema,
  ProductTitle,
  SearchText,
  Sku,
  Stock,
} from "../../contracts/index.ts";
import type { Product } from "../../db/schema.ts";
import { Body, CursorQuery, Id } from "../../lib/http/schemas.ts";
import { isoString } from "../../lib/iso-string.ts";
import { formatMinorUnits } from "../../lib/money.ts";
import { CREATED_AND_UPDATED, SortParam, type SortTable } from "../../lib/pagination.ts";
import { forViewer, type Viewer } from "../app-metadata/app-metadata.ts";

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

const createFields = {
  title: productFields.title,
  description: Type.Optional(productFields.description),
  price: productFields.price,
  sku: Type.Optional(productFields.sku),
  stock: Type.Optional(productFields.stock),
  status: Type.Optional(productFields.status),
};
export const CreateProductBody = Body(createFields);
/** The Admin API's create: the same, and the app's own metadata. */
export const AdminCreateProductBody = Body({ ...createFields, metadata: Type.Optional(MetadataInput) });

const updateFields = {
  title: Type.Optional(productFields.title),
  description: Type.Optional(productFields.description),
  price: Type.Optional(productFields.price),
  sku: Type.Optional(productFields.sku),
  stock: Type.Optional(productFields.stock),
  status: Type.Optional(productFields.status),
};
export const UpdateProductBody = Type.Object(updateFields, { additionalProperties: false, minProperties: 1 });
export const AdminUpdateProductBody = Type.Object(
  { ...updateFields, metadata: Type.Optional(MetadataInput) },
  { additionalProperties: false, minProperties: 1 },
);

/** What a product list can be sorted by (each backed by an index with store_id leading). */
export const PRODUCT_SORTS = {
  ...CREATED_AND_UPDATED,
  title: { column: "title", type: "text" },
  price: { column: "price_minor", type: "number" },
  stock: { column: "stock", type: "number" },
} as const satisfies SortTable;

export const ProductListQuery = Type.Object(
  {
    ...CursorQuery,
    status: Type.Optional(ProductStatusSchema),
    q: Type.Optional({ ...SearchText, description: "Products whose title or SKU contains this text." }),
    sort: Type.Optional(
      SortParam(PRODUCT_SORTS, "Order of the list: by creation, last change, title, price or stock."),
    ),
  },
  { additionalProperties: false },
);

export const ProductIdParam = { id: Id("product") };

export function toProductResource(p: Product, currency: string, viewer?: Viewer) {
  return forViewer(
    {
      id: p.id,
      title: p.title,
      description: p.description,
      price: formatMinorUnits(p.price_minor, currency),
      currency,
      sku: p.sku,
      stock: p.stock,
      status: p.status,
      createdAt: isoString(p.created_at),
      updatedAt: isoString(p.updated_at),
    },
    p.metadata,
    viewer,
  );
}
export type ProductView = ReturnType<typeof toProductResource>;
export type CreateProductInput = Static<typeof AdminCreateProductBody>;
export type UpdateProductInput = Static<typeof AdminUpdateProductBody>;
