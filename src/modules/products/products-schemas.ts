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
import { ownMetadata, type Viewer } from "../app-metadata/app-metadata.ts";

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

/**
 * A product as the API answers it, with the viewer's own metadata when the viewer is an app (see
 * forViewer). One object a product: a list maps up to 251 a request, and a second copy of each to
 * add `metadata` was garbage for the collector (issue 22).
 */
export function toProductResource(
  p: Product,
  currency: string,
  viewer?: Viewer,
): ProductFields & { metadata?: Record<string, string> } {
  const view: ProductFields & { metadata?: Record<string, string> } = {
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
  };
  if (viewer) view.metadata = ownMetadata(p.metadata, viewer.appId);
  return view;
}
interface ProductFields {
  id: string;
  title: string;
  description: string;
  price: string;
  currency: string;
  sku: string | null;
  stock: number;
  status: Product["status"];
  createdAt: string;
  updatedAt: string;
}
export type ProductView = ReturnType<typeof toProductResource>;
export type CreateProductInput = Static<typeof AdminCreateProductBody>;
export type UpdateProductInput = Static<typeof AdminUpdateProductBody>;
