import Type, { type Static } from "typebox";
import {
  Barcode,
  InventoryQuantity,
  MAX_OPTIONS,
  MAX_VARIANTS,
  MetadataInput,
  Money,
  OptionName,
  OptionValue,
  ProductDescription,
  ProductResource,
  ProductStatusSchema,
  ProductTitle,
  ProductType,
  ProductVariantResource,
  SearchText,
  Sku,
  StockStateSchema,
  Tag,
  Tags,
  Vendor,
  WeightGrams,
} from "../../contracts/index.ts";
import type { Product, ProductVariant } from "../../db/schema.ts";
import { Body, CursorQuery, Id } from "../../lib/http/schemas.ts";
import { isoString } from "../../lib/iso-string.ts";
import { formatMinorUnits } from "../../lib/money.ts";
import { CREATED_AND_UPDATED, SortParam, type SortTable } from "../../lib/pagination.ts";
import { forViewer, type Viewer } from "../app-metadata/app-metadata.ts";
import type { ProductImageView } from "../product-images/product-images-service.ts";
import { variantTitle } from "./product-options.ts";

export { ProductResource, ProductVariantResource };

const OptionInput = Type.Object(
  {
    name: OptionName,
    values: Type.Array(OptionValue, { minItems: 1, maxItems: 250, description: "In the order shown." }),
  },
  { additionalProperties: false },
);
const Options = Type.Array(OptionInput, {
  maxItems: MAX_OPTIONS,
  description: `At most ${MAX_OPTIONS} (Size, Colour, Material), in order.`,
});
const OptionValues = Type.Array(OptionValue, {
  maxItems: MAX_OPTIONS,
  description: "One value per option of the product, in the options' order (none without options).",
  examples: [["Blue", "M"]],
});

const variantFields = {
  price: Money,
  compareAtPrice: Type.Union([Money, Type.Null()], { description: "The price before a reduction." }),
  sku: Type.Union([Sku, Type.Null()], {
    description: "Unique within the store when set.",
    examples: ["SHIRT-LIN-M"],
  }),
  barcode: Type.Union([Barcode, Type.Null()]),
  weightGrams: Type.Union([WeightGrams, Type.Null()]),
  tracked: Type.Boolean({ description: "Whether its stock is counted (default true)." }),
};
const InitialQuantity = {
  ...InventoryQuantity,
  description:
    "Stock available at the store's first active location (set when the variant is made; later, the inventory operations).",
};

export const VariantInput = Type.Object(
  {
    optionValues: Type.Optional(OptionValues),
    price: variantFields.price,
    compareAtPrice: Type.Optional(variantFields.compareAtPrice),
    sku: Type.Optional(variantFields.sku),
    barcode: Type.Optional(variantFields.barcode),
    weightGrams: Type.Optional(variantFields.weightGrams),
    tracked: Type.Optional(variantFields.tracked),
    inventoryQuantity: Type.Optional(InitialQuantity),
  },
  { additionalProperties: false },
);
export const CreateVariantBody = VariantInput;

const variantPatchFields = {
  price: Type.Optional(variantFields.price),
  compareAtPrice: Type.Optional(variantFields.compareAtPrice),
  sku: Type.Optional(variantFields.sku),
  barcode: Type.Optional(variantFields.barcode),
  weightGrams: Type.Optional(variantFields.weightGrams),
  tracked: Type.Optional(variantFields.tracked),
};
export const UpdateVariantBody = Type.Object(
  { ...variantPatchFields, optionValues: Type.Optional(OptionValues) },
  { additionalProperties: false, minProperties: 1 },
);
/** The Admin API's: the same, and the app's own metadata on the variant. */
export const AdminUpdateVariantBody = Type.Object(
  {
    ...variantPatchFields,
    optionValues: Type.Optional(OptionValues),
    metadata: Type.Optional(MetadataInput),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** A variant changed through its product's PATCH: by id, or the only one without it. */
const VariantPatch = Type.Object(
  {
    id: Type.Optional(
      Id("variant", "The variant to change; may be left out when the product has exactly one variant."),
    ),
    ...variantPatchFields,
    inventoryQuantity: Type.Optional({
      ...InventoryQuantity,
      description:
        "Sets what is available when all of the variant's stock is at one location (409 otherwise: use the inventory operations, which also check what you read).",
    }),
  },
  { additionalProperties: false, minProperties: 1 },
);

const productFields = {
  title: ProductTitle,
  description: ProductDescription,
  vendor: Vendor,
  productType: ProductType,
  tags: Tags,
  status: ProductStatusSchema,
};

const createFields = {
  title: productFields.title,
  description: Type.Optional(productFields.description),
  vendor: Type.Optional(productFields.vendor),
  productType: Type.Optional(productFields.productType),
  tags: Type.Optional(productFields.tags),
  status: Type.Optional(productFields.status),
  options: Type.Optional(Options),
  variants: Type.Array(VariantInput, {
    minItems: 1,
    maxItems: MAX_VARIANTS,
    description: `One per combination of option values sold (at most ${MAX_VARIANTS}); exactly one without options.`,
  }),
};
export const CreateProductBody = Body(createFields);
/** The Admin API's create: the same, and the app's own metadata. */
export const AdminCreateProductBody = Body({ ...createFields, metadata: Type.Optional(MetadataInput) });

const updateFields = {
  title: Type.Optional(productFields.title),
  description: Type.Optional(productFields.description),
  vendor: Type.Optional(productFields.vendor),
  productType: Type.Optional(productFields.productType),
  tags: Type.Optional(productFields.tags),
  status: Type.Optional(productFields.status),
  options: Type.Optional({
    ...Options,
    description:
      "Replaces the options, matched by name: a value left out removes its variants (409 when they are on unfulfilled orders); a new option gives every variant its first value; the order given is the new order.",
  }),
  variants: Type.Optional(
    Type.Array(VariantPatch, {
      minItems: 1,
      maxItems: MAX_VARIANTS,
      description: "Changes to existing variants (add and remove them with the variant operations).",
    }),
  ),
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
    q: Type.Optional({
      ...SearchText,
      description: "Products whose title or any variant's SKU contains this text.",
    }),
    vendor: Type.Optional({ ...Vendor, minLength: 1, description: "Products of this vendor (any case)." }),
    productType: Type.Optional({
      ...ProductType,
      minLength: 1,
      description: "Products of this type (any case).",
    }),
    tag: Type.Optional({ ...Tag, description: "Products with this tag." }),
    priceMin: Type.Optional({ ...Money, description: "Products with a variant at this price or more." }),
    priceMax: Type.Optional({ ...Money, description: "Products with a variant at this price or less." }),
    stock: Type.Optional(StockStateSchema),
    sort: Type.Optional(
      SortParam(
        PRODUCT_SORTS,
        "Order of the list: by creation, last change, title, lowest price or what can be sold.",
      ),
    ),
  },
  { additionalProperties: false },
);

export const ProductIdParam = { id: Id("product") };
export const VariantParams = { id: Id("product"), variantId: Id("variant") };

/** A variant's option values (its option1..3 columns) in the options' order. */
export function valuesOf(v: Pick<ProductVariant, "option1" | "option2" | "option3">): string[] {
  return [v.option1, v.option2, v.option3].filter((x): x is string => x !== null);
}

export function toVariantResource(v: ProductVariant, currency: string) {
  return {
    id: v.id,
    productId: v.product_id,
    title: variantTitle(valuesOf(v)),
    optionValues: valuesOf(v),
    sku: v.sku,
    barcode: v.barcode,
    price: formatMinorUnits(v.price_minor, currency),
    compareAtPrice: v.compare_at_minor === null ? null : formatMinorUnits(v.compare_at_minor, currency),
    weightGrams: v.weight_grams,
    tracked: v.tracked,
    available: v.tracked ? v.available : 0,
    position: v.position,
    createdAt: isoString(v.created_at),
    updatedAt: isoString(v.updated_at),
  };
}

/** A product as every API answers it: its own fields, its options, its variants and images in order. */
export function toProductResource(
  p: Product,
  variants: readonly ProductVariant[],
  images: readonly ProductImageView[],
  currency: string,
  viewer?: Viewer,
) {
  return forViewer(
    {
      id: p.id,
      title: p.title,
      description: p.description,
      vendor: p.vendor,
      productType: p.product_type,
      tags: p.tags,
      status: p.status,
      options: p.options,
      variants: variants.map((v) => forViewer(toVariantResource(v, currency), v.metadata, viewer)),
      images: [...images],
      priceRange: {
        min: formatMinorUnits(p.price_minor, currency),
        max: formatMinorUnits(p.price_max_minor, currency),
      },
      currency,
      totalAvailable: p.stock,
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
export type VariantInputValue = Static<typeof VariantInput>;
export type UpdateVariantInput = Static<typeof AdminUpdateVariantBody>;
export type ProductListFilter = {
  status?: Product["status"] | undefined;
  q?: string | undefined;
  vendor?: string | undefined;
  productType?: string | undefined;
  tag?: string | undefined;
  priceMin?: number | undefined;
  priceMax?: number | undefined;
  stock?: Static<typeof StockStateSchema> | undefined;
};
