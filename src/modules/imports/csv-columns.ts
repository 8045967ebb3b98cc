import type { Static } from "typebox";
import type { CustomerResource, OrderResource, ProductResource } from "../../contracts/index.ts";
import type { CreateCustomerBody } from "../customers/customers-schemas.ts";
import type { CreateProductBody } from "../products/products-schemas.ts";

/**
 * The CSV columns of products and customers, declared once: the export writes them and the import
 * reads them, so an exported file imports as it is. The names follow Shopify's product and
 * customer CSV files where they mean the same thing (Handle, Title, Option1 Name, Variant SKU,
 * Variant Price, ...), so a merchant moving a catalogue over recognises them.
 */
export const PRODUCT_COLUMNS = [
  "Handle",
  "Title",
  "Description",
  "Vendor",
  "Type",
  "Tags",
  "Status",
  "Option1 Name",
  "Option1 Value",
  "Option2 Name",
  "Option2 Value",
  "Option3 Name",
  "Option3 Value",
  "Variant SKU",
  "Variant Price",
  "Variant Compare At Price",
  "Variant Barcode",
  "Variant Grams",
  "Variant Tracked",
  "Variant Inventory Qty",
] as const;
export type ProductColumn = (typeof PRODUCT_COLUMNS)[number];

export const CUSTOMER_COLUMNS = [
  "Email",
  "First Name",
  "Last Name",
  "Phone",
  "Tags",
  "Note",
  "Tax Exempt",
  "Address Name",
  "Address Company",
  "Address Line 1",
  "Address Line 2",
  "Address City",
  "Address Region",
  "Address Postal Code",
  "Address Country",
  "Address Phone",
] as const;
export type CustomerColumn = (typeof CUSTOMER_COLUMNS)[number];

/** The columns an import needs in its header (the others may be left out). */
export const REQUIRED_COLUMNS = {
  products: ["Handle", "Title", "Variant Price"],
  customers: ["Email", "First Name"],
} as const;

export const ORDER_COLUMNS = [
  "Order",
  "Order ID",
  "Created At",
  "Status",
  "Financial Status",
  "Customer ID",
  "Currency",
  "Subtotal",
  "Discounts",
  "Shipping",
  "Tax",
  "Total",
  "Refunded",
  "Line Title",
  "Line Variant",
  "Line SKU",
  "Line Quantity",
  "Line Unit Price",
  "Line Total",
] as const;

type Cell = string | number | boolean | null;
type Product = Static<typeof ProductResource>;
type Customer = Static<typeof CustomerResource>;
type Order = Static<typeof OrderResource>;

/**
 * A product as CSV rows: one per variant, the product's own fields on the first only (as
 * Shopify's). The Handle is the product's id: unique, so the rows of two products with one title
 * never merge on import.
 */
export function productRows(p: Product): Cell[][] {
  return p.variants.map((v, i) => {
    const first = i === 0;
    const option = (n: number) => [first ? (p.options[n]?.name ?? null) : null, v.optionValues[n] ?? null];
    return [
      p.id,
      first ? p.title : null,
      first ? p.description : null,
      first ? p.vendor : null,
      first ? p.productType : null,
      first ? p.tags.join(", ") : null,
      first ? p.status : null,
      ...option(0),
      ...option(1),
      ...option(2),
      v.sku,
      v.price,
      v.compareAtPrice,
      v.barcode,
      v.weightGrams,
      v.tracked,
      v.tracked ? v.available : null,
    ];
  });
}

export function customerRow(c: Customer): Cell[] {
  const a = c.defaultAddress;
  return [
    c.email,
    c.firstName,
    c.lastName,
    c.phone,
    c.tags.join(", "),
    c.note,
    c.taxExempt,
    a?.name ?? null,
    a?.company ?? null,
    a?.line1 ?? null,
    a?.line2 ?? null,
    a?.city ?? null,
    a?.region ?? null,
    a?.postalCode ?? null,
    a?.country ?? null,
    a?.phone ?? null,
  ];
}

/** An order as CSV rows: one per line item, the order's figures on every row (as Shopify's). */
export function orderRows(o: Order): Cell[][] {
  const head = [
    o.name,
    o.id,
    o.createdAt,
    o.status,
    o.financialStatus,
    o.customerId,
    o.currency,
    o.subtotal,
    o.discounts,
    o.shipping,
    o.tax,
    o.total,
    o.refunded,
  ];
  if (o.lineItems.length === 0) return [[...head, null, null, null, null, null, null]];
  return o.lineItems.map((l) => [...head, l.title, l.variantTitle, l.sku, l.quantity, l.unitPrice, l.total]);
}

/** One problem of an import, where the merchant finds it: the row as a spreadsheet numbers it (the header is row 1) and the column. */
export interface RowError {
  row: number;
  column: string | null;
  message: string;
}

/** A CSV row's cells by column name (only the columns the import knows, trimmed; empty cells absent). */
export type RowCells<C extends string> = Partial<Record<C, string>>;

/** One product of a file: its rows (their spreadsheet numbers) and what the product service is asked to create. */
export interface ProductPlan {
  handle: string;
  rows: number[];
  input: Static<typeof CreateProductBody>;
  /** Where a field of `input` came from: `variants.2.sku` -> row and column. */
  sources: Map<string, { row: number; column: string }>;
}

export interface CustomerPlan {
  rows: number[];
  input: Static<typeof CreateCustomerBody>;
  sources: Map<string, { row: number; column: string }>;
}

const TRUE = new Set(["true", "yes", "y", "1"]);
const FALSE = new Set(["false", "no", "n", "0"]);

/** A yes/no cell; anything else is passed on as text, so the schema names it as not a boolean. */
function booleanCell(value: string | undefined): boolean | string | undefined {
  if (value === undefined) return undefined;
  const v = value.toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  return value;
}

/** A whole-number cell; anything else is passed on as text for the schema to name. */
function integerCell(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^-?\d{1,15}$/.test(value) ? Number(value) : value;
}

/** "a, b ,b" -> ["a", "b"]: comma-separated, trimmed, each once. */
function tagsCell(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return [
    ...new Set(
      value
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ];
}

/**
 * The products of a file: rows grouped by Handle (the rows of one handle need not be next to each
 * other); the first row of a handle carries the product's fields and its option names, every row
 * one variant. Problems found here (no handle, a product row without a title) are returned as
 * errors; the rest is left to the product service's own schema and rules.
 */
export function planProducts(rows: ReadonlyArray<{ row: number; cells: RowCells<ProductColumn> }>): {
  plans: ProductPlan[];
  errors: RowError[];
} {
  const groups = new Map<string, Array<{ row: number; cells: RowCells<ProductColumn> }>>();
  const errors: RowError[] = [];
  for (const r of rows) {
    const handle = r.cells.Handle;
    if (!handle) {
      errors.push({
        row: r.row,
        column: "Handle",
        message: "is required: it says which product the row belongs to",
      });
      continue;
    }
    const key = handle.toLowerCase();
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  const plans: ProductPlan[] = [];
  for (const [, group] of groups) {
    const first = group[0]!;
    const c = first.cells;
    const sources = new Map<string, { row: number; column: string }>();
    const at = (field: string, row: number, column: ProductColumn) => sources.set(field, { row, column });
    at("title", first.row, "Title");
    at("description", first.row, "Description");
    at("vendor", first.row, "Vendor");
    at("productType", first.row, "Type");
    at("tags", first.row, "Tags");
    at("status", first.row, "Status");
    const names = (["Option1 Name", "Option2 Name", "Option3 Name"] as const)
      .map((column) => c[column])
      .filter((n): n is string => n !== undefined);
    const valueColumns = ["Option1 Value", "Option2 Value", "Option3 Value"] as const;
    const options = names.map((name, n) => {
      at(`options.${n}`, first.row, `Option${n + 1} Name` as ProductColumn);
      at(`options.${n}.name`, first.row, `Option${n + 1} Name` as ProductColumn);
      const values: string[] = [];
      for (const r of group) {
        const value = r.cells[valueColumns[n]!];
        if (value !== undefined && !values.includes(value)) values.push(value);
      }
      return { name, values };
    });
    const variants = group.map((r, i) => {
      const v = r.cells;
      const field = (name: string, column: ProductColumn) => at(`variants.${i}.${name}`, r.row, column);
      at(`variants.${i}`, r.row, "Variant Price");
      field("optionValues", "Option1 Value");
      names.forEach((_, n) => {
        field(`optionValues.${n}`, valueColumns[n]!);
      });
      field("price", "Variant Price");
      field("compareAtPrice", "Variant Compare At Price");
      field("sku", "Variant SKU");
      field("barcode", "Variant Barcode");
      field("weightGrams", "Variant Grams");
      field("tracked", "Variant Tracked");
      field("inventoryQuantity", "Variant Inventory Qty");
      const optionValues = names.map((_, n) => v[valueColumns[n]!] ?? "");
      return stripUndefined({
        ...(names.length ? { optionValues } : {}),
        price: v["Variant Price"] ?? "",
        compareAtPrice: v["Variant Compare At Price"],
        sku: v["Variant SKU"],
        barcode: v["Variant Barcode"],
        weightGrams: integerCell(v["Variant Grams"]),
        tracked: booleanCell(v["Variant Tracked"]),
        inventoryQuantity: integerCell(v["Variant Inventory Qty"]),
      });
    });
    if (!c.Title) {
      errors.push({
        row: first.row,
        column: "Title",
        message: `is required on the first row of the product "${first.cells.Handle}"`,
      });
      continue;
    }
    const input = stripUndefined({
      title: c.Title,
      description: c.Description,
      vendor: c.Vendor,
      productType: c.Type,
      tags: tagsCell(c.Tags),
      status: c.Status?.toLowerCase(),
      ...(options.length ? { options } : {}),
      variants,
    }) as unknown as Static<typeof CreateProductBody>;
    plans.push({ handle: first.cells.Handle!, rows: group.map((r) => r.row), input, sources });
  }
  return { plans, errors };
}

/** One customer per row; an address when any of its columns is filled (its name defaults to the customer's). */
export function planCustomer(r: { row: number; cells: RowCells<CustomerColumn> }): CustomerPlan {
  const c = r.cells;
  const sources = new Map<string, { row: number; column: string }>();
  const columnOf: Record<string, CustomerColumn> = {
    email: "Email",
    firstName: "First Name",
    lastName: "Last Name",
    phone: "Phone",
    tags: "Tags",
    note: "Note",
    taxExempt: "Tax Exempt",
    "addresses.0.name": "Address Name",
    "addresses.0.company": "Address Company",
    "addresses.0.line1": "Address Line 1",
    "addresses.0.line2": "Address Line 2",
    "addresses.0.city": "Address City",
    "addresses.0.region": "Address Region",
    "addresses.0.postalCode": "Address Postal Code",
    "addresses.0.country": "Address Country",
    "addresses.0.phone": "Address Phone",
  };
  for (const [field, column] of Object.entries(columnOf)) sources.set(field, { row: r.row, column });
  sources.set("addresses.0", { row: r.row, column: "Address Line 1" });
  const hasAddress = (Object.keys(c) as CustomerColumn[]).some((k) => k.startsWith("Address "));
  const name = [c["First Name"], c["Last Name"]].filter(Boolean).join(" ");
  const input = stripUndefined({
    email: c.Email ?? "",
    firstName: c["First Name"] ?? "",
    lastName: c["Last Name"],
    phone: c.Phone,
    tags: tagsCell(c.Tags),
    note: c.Note,
    taxExempt: booleanCell(c["Tax Exempt"]),
    ...(hasAddress
      ? {
          addresses: [
            stripUndefined({
              name: c["Address Name"] ?? name,
              company: c["Address Company"],
              line1: c["Address Line 1"] ?? "",
              line2: c["Address Line 2"],
              city: c["Address City"] ?? "",
              region: c["Address Region"],
              postalCode: c["Address Postal Code"],
              country: c["Address Country"]?.toUpperCase() ?? "",
              phone: c["Address Phone"],
            }),
          ],
        }
      : {}),
  }) as unknown as Static<typeof CreateCustomerBody>;
  return { rows: [r.row], input, sources };
}

function stripUndefined<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

/**
 * A field the schema or a service named (`variants.1.price`) as the row and column it came from:
 * the longest known prefix of the path, so `options.0.values.3` still lands on its option's row.
 */
export function locate(
  sources: Map<string, { row: number; column: string }>,
  field: string | undefined,
  fallbackRow: number,
): { row: number; column: string | null } {
  let path = field ?? "";
  while (path) {
    const found = sources.get(path);
    if (found) return found;
    const cut = path.lastIndexOf(".");
    path = cut < 0 ? "" : path.slice(0, cut);
  }
  return { row: fallbackRow, column: null };
}
