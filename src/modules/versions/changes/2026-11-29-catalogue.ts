import Type from "typebox";
import { Money, Sku, Stock } from "../../../contracts/index.ts";
import { defineVersionChange, type Json } from "../version-change.ts";

/** The version that brought options and variants (issue 30). */
export const CATALOGUE_VERSION = "2026-11-29";

/** What this version added to a product, which the version before does not have. */
const ADDED = new Set([
  "vendor",
  "productType",
  "tags",
  "options",
  "variants",
  "priceRange",
  "totalAvailable",
]);

/**
 * `entries` (a product's fields, or its schema's properties, in order) without what this version
 * added and with the flat fields where the version before had them: `price` after `description`,
 * `sku` and `stock` after `currency`. Written over the keys it finds, so another change to the
 * product (a field renamed) composes with it in either order.
 */
function flatten<V>(entries: Array<[string, V]>, flat: { price: V; sku: V; stock: V }): Array<[string, V]> {
  const out: Array<[string, V]> = [];
  // `status` moved before the options with this version; before, it followed the stock.
  const status = entries.find(([k]) => k === "status");
  for (const [k, v] of entries) {
    if (ADDED.has(k) || k === "status") continue;
    out.push([k, v]);
    if (k === "description") out.push(["price", flat.price]);
    if (k === "currency") {
      out.push(["sku", flat.sku], ["stock", flat.stock]);
      if (status) out.push(status);
    }
  }
  return out;
}

/** `schema` with its `required` and `properties` replaced where they are (a key order the document keeps). */
function withFields(schema: Json, required: string[], properties: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "properties") {
      if (!("required" in schema) && required.length) out.required = required;
      out.properties = properties;
    } else if (k === "required") {
      if (required.length) out.required = required;
    } else out[k] = v;
  }
  return out;
}

/** The product's schema before variants (the answers' and the document's). */
function productSchemaBefore(schema: Json): Json {
  const flat = {
    price: Money,
    sku: Type.Union([Type.String(), Type.Null()]),
    stock: Type.Integer(),
  };
  const properties = Object.fromEntries(flatten(Object.entries(schema.properties ?? {}), flat));
  const required = flatten(
    (schema.required ?? []).map((r: string) => [r, r] as [string, string]),
    { price: "price", sku: "sku", stock: "stock" },
  ).map(([r]) => r);
  return withFields(schema, required, properties);
}

const FlatWrite = {
  price: Money,
  sku: Type.Union([Sku, Type.Null()], {
    description: "Unique within the store when set.",
    examples: ["SHIRT-LIN-M"],
  }),
  stock: Stock,
};
/**
 * A create's or PATCH's body schema before variants: the flat price, SKU and stock after the
 * description, in place of the options and variants (a create requires `price`).
 */
function writeSchemaBefore(create: boolean) {
  return (schema: Json): Json => {
    const out: Array<[string, Json]> = [];
    for (const [k, v] of Object.entries(schema.properties ?? {})) {
      if (ADDED.has(k)) continue;
      out.push([k, v]);
      if (k === "description")
        out.push(
          ["price", create ? FlatWrite.price : Type.Optional(FlatWrite.price)],
          ["sku", Type.Optional(FlatWrite.sku)],
          ["stock", Type.Optional(FlatWrite.stock)],
        );
    }
    const required = (schema.required ?? []).filter((r: string) => !ADDED.has(r));
    if (create) required.push("price");
    return withFields(schema, required, Object.fromEntries(out));
  };
}

/** A product of this version, as the version before showed it (the same keys in the same order). */
function productBefore(p: Json): Json {
  // A record already in the old shape (a body stored before the migration rewrote its event).
  if (!p || !Array.isArray(p.variants)) return p;
  const first = p.variants[0];
  return Object.fromEntries(
    flatten(Object.entries(p), {
      price: first?.price ?? p.priceRange?.min,
      sku: first?.sku ?? null,
      stock: p.totalAvailable,
    }),
  );
}

/** The flat fields of a write at the older version, as the newer one's variant. */
function variantOf(body: Json): Json | null {
  const v: Json = {};
  if (body.price !== undefined) v.price = body.price;
  if (body.sku !== undefined) v.sku = body.sku;
  if (body.stock !== undefined) v.inventoryQuantity = body.stock;
  return Object.keys(v).length ? v : null;
}

function withoutFlat(body: Json): Json {
  const { price: _p, sku: _s, stock: _st, ...rest } = body;
  return rest;
}

const createUp = (body: Json): Json =>
  body && typeof body === "object" && !Array.isArray(body) && !("variants" in body)
    ? { ...withoutFlat(body), variants: [variantOf(body) ?? {}] }
    : body;

const updateUp = (body: Json): Json => {
  if (!body || typeof body !== "object" || Array.isArray(body) || "variants" in body) return body;
  const variant = variantOf(body);
  return variant ? { ...withoutFlat(body), variants: [variant] } : body;
};

export const catalogue = defineVersionChange({
  version: CATALOGUE_VERSION,
  description:
    "Products have options (up to 3) and variants (up to 2,048), each with its own price, SKU, barcode, weight and stock; `price`, `sku` and `stock` of a product are replaced by `variants`, `priceRange` and `totalAvailable`. A product's create takes `variants`; its PATCH changes them by id (the only one may go without). Stock is kept per location (the inventory operations).",
  resources: { Product: productBefore },
  requests: {
    adminCreateProduct: createUp,
    developerCreateProduct: createUp,
    adminUpdateProduct: updateUp,
    developerUpdateProduct: updateUp,
  },
  schemas: { Product: productSchemaBefore },
  requestSchemas: {
    adminCreateProduct: writeSchemaBefore(true),
    developerCreateProduct: writeSchemaBefore(true),
    adminUpdateProduct: writeSchemaBefore(false),
    developerUpdateProduct: writeSchemaBefore(false),
  },
});
