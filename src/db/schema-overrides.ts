/**
 * What the database's catalogue cannot know about its columns, for the row types generated into
 * schema.ts (`npm run db:types`, scripts/db-types.ts): the shape of every jsonb column, the
 * contract's type of each enumerated column, and a column written otherwise than its SQL type
 * says. Everything else (the SQL type, null, a default, the comments) comes from the migrated
 * database. Every type an override names is exported from this file.
 */
import type { ColumnType } from "kysely";
import type {
  CollectionRuleField,
  DiscountAllocation,
  DiscountKind,
  RuleRelation,
} from "../contracts/index.ts";

/** The contract's types the overrides name (schema.ts imports them from here). */
export type {
  ActorKind,
  AppIconColor,
  AppListingStatus,
  CollectionKind,
  CollectionMatch,
  DeliveryStatus,
  DiscountAllocation,
  DiscountKind,
  DiscountStatus,
  FinancialStatus,
  ImportKind,
  ImportStatus,
  InstallationStatus,
  InventoryQuantityName,
  InventoryReason,
  MailStatus,
  OrderStatus,
  ProductStatus,
  ReturnReason,
  ReturnStatus,
  Scope,
  StaffRole,
  SubscriptionStatus,
} from "../contracts/index.ts";

/** A jsonb column: read as `T` (the drivers parse it), written as its JSON text (db/json.ts `jsonb`). */
export type Jsonb<T> = ColumnType<T, string, string>;

/** An address as stored in JSON columns: the public shape (contracts/resources.ts AddressResource). */
export interface AddressJson {
  name: string;
  company: string | null;
  line1: string;
  line2: string | null;
  city: string;
  region: string | null;
  postalCode: string | null;
  country: string;
  phone: string | null;
}

/** A row's problem in a CSV import: the spreadsheet's row number (the header is row 1) and column. */
export interface ImportRowErrorJson {
  row: number;
  column: string | null;
  message: string;
}

/** What an import's upload check found (the dashboard's preview). */
export interface ImportPreviewJson {
  /** The columns the import reads, in the file's order. */
  columns: string[];
  /** Columns of the file the import does not know (left alone). */
  ignoredColumns: string[];
  /** The first rows as read: the spreadsheet's row number and a cell per column (cut to 200 characters). */
  rows: Array<{ row: number; cells: string[] }>;
  /** Items already in the store (matched by SKU or title, or e-mail address): a run skips them. */
  existingItems: number;
  /** Items with at least one error: a run leaves them out. */
  invalidItems: number;
}

/** Fulfilment details recorded when an order moved to shipped. */
export interface FulfillmentJson {
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  shippedAt: string;
}

/** A product's option as stored (products.options): its name and its values in order. */
export interface ProductOptionJson {
  name: string;
  values: string[];
}

/** An automatic collection's rule as stored (collections.rules). */
export interface CollectionRuleJson {
  field: CollectionRuleField;
  relation: RuleRelation;
  value: string;
}

/** A tax line as stored (an order's, a line's, a shipping line's): minor units and parts per million. */
export interface TaxLineJson {
  title: string;
  ratePpm: number;
  amountMinor: number;
}

/** A share of one of the order's discount applications (its index) taken from a line. */
export interface DiscountShareJson {
  application: number;
  amountMinor: number;
}

/** A shipping line as stored (orders.shipping_lines). */
export interface ShippingLineJson {
  title: string;
  code: string | null;
  priceMinor: number;
  discountMinor: number;
  discountAllocations: DiscountShareJson[];
  taxMinor: number;
  taxLines: TaxLineJson[];
}

/** A discount code as it applied to an order (orders.discount_applications), in the order applied. */
export interface DiscountApplicationJson {
  discountId: string | null;
  code: string;
  kind: DiscountKind;
  ratePpm: number;
  valueMinor: number;
  allocation: DiscountAllocation;
  amountMinor: number;
  /** What it applied to when the order was placed (both empty: every line): an edit applies it again on these terms. */
  productIds: string[];
  collectionIds: string[];
}

/** A line of an order as an edit records it before and after (order_edits.line_items_*). */
export interface EditLineJson {
  lineItemId: string;
  variantId: string | null;
  title: string;
  variantTitle: string | null;
  sku: string | null;
  unitPriceMinor: number;
  quantity: number;
}

/** A shipping line as an edit records it before and after (order_edits.shipping_*). */
export interface EditShippingJson {
  title: string;
  code: string | null;
  priceMinor: number;
}

/** Every app's metadata on a record: app id -> its key-value pairs (migration 20261126_0041). */
export type AppMetadataJson = Record<string, Record<string, string>>;

/**
 * `table.column` -> its TypeScript type as the catalogue cannot say it, before null and default:
 * the generator adds `| null` to a nullable column and `Generated<…>` to one with a default. Every
 * jsonb column needs one (the generator fails without it, and on a name no table has); an
 * enumerated column (a CHECK listing its values) without one is typed by its CHECK's values.
 */
export const COLUMN_TYPES: Record<string, string> = {
  "access_tokens.scopes": "Jsonb<Scope[]>",
  "api_keys.scopes": "Jsonb<Scope[]>",
  "app_listings.icon_color": "AppIconColor",
  "app_listings.status": "AppListingStatus",
  "apps.redirect_uris": "Jsonb<string[]>",
  "apps.scopes": "Jsonb<Scope[]>",
  "authorization_codes.scopes": "Jsonb<Scope[]>",
  "collections.rules": "Jsonb<CollectionRuleJson[]>",
  "collections.kind": "CollectionKind",
  "collections.match": "CollectionMatch",
  "customers.addresses": "Jsonb<AddressJson[]>",
  "customers.metadata": "Jsonb<AppMetadataJson>",
  "customers.tags": "Jsonb<string[]>",
  "events.app_metadata": "Jsonb<AppMetadataJson>",
  // Given after commit by the sequencer (feed-repo.ts), never by the insert.
  "events.feed_position": "ColumnType<number, never, number>",
  "events.payload": "Jsonb<unknown>",
  "installations.scopes": "Jsonb<Scope[]>",
  "inventory_changes.actor_kind": "ActorKind",
  "inventory_changes.quantity": "InventoryQuantityName",
  "inventory_changes.reason": "InventoryReason",
  // Generated (migration 20261129_0010): available + committed + unavailable.
  "inventory_levels.on_hand": "ColumnType<number, never, never>",
  "locations.address": "Jsonb<AddressJson>",
  "installations.status": "InstallationStatus",
  "order_status_changes.actor_kind": "ActorKind",
  "order_status_changes.status": "OrderStatus",
  // Kept by triggers (migration 20261124_0010), never written by the application.
  "orders.customer_text": "ColumnType<string, never, never>",
  "discounts.allocation": "DiscountAllocation",
  "discounts.kind": "DiscountKind",
  "discounts.status": "DiscountStatus",
  "order_line_items.discount_allocations": "Jsonb<DiscountShareJson[]>",
  "order_line_items.tax_lines": "Jsonb<TaxLineJson[]>",
  "order_edits.actor_kind": "ActorKind",
  "order_edits.codes_after": "Jsonb<string[]>",
  "order_edits.codes_before": "Jsonb<string[]>",
  "order_edits.line_items_after": "Jsonb<EditLineJson[]>",
  "order_edits.line_items_before": "Jsonb<EditLineJson[]>",
  "order_edits.shipping_after": "Jsonb<EditShippingJson[]>",
  "order_edits.shipping_before": "Jsonb<EditShippingJson[]>",
  "orders.discount_applications": "Jsonb<DiscountApplicationJson[]>",
  "orders.financial_status": "FinancialStatus",
  "orders.fulfillment": "Jsonb<FulfillmentJson>",
  "orders.shipping_lines": "Jsonb<ShippingLineJson[]>",
  "orders.tax_lines": "Jsonb<TaxLineJson[]>",
  "orders.metadata": "Jsonb<AppMetadataJson>",
  "mail_messages.status": "MailStatus",
  "orders.shipping_address": "Jsonb<AddressJson>",
  "orders.status": "OrderStatus",
  "orders.tags": "Jsonb<string[]>",
  "product_variants.metadata": "Jsonb<AppMetadataJson>",
  "products.metadata": "Jsonb<AppMetadataJson>",
  "products.options": "Jsonb<ProductOptionJson[]>",
  "products.status": "ProductStatus",
  "refunds.actor_kind": "ActorKind",
  "return_line_items.reason": "ReturnReason",
  "returns.status": "ReturnStatus",
  "store_invitations.role": "StaffRole",
  "store_members.role": "StaffRole",
  "stores.address": "Jsonb<AddressJson>",
  "csv_imports.status": "ImportStatus",
  "csv_imports.kind": "ImportKind",
  "csv_imports.errors": "Jsonb<ImportRowErrorJson[]>",
  "csv_imports.preview": "Jsonb<ImportPreviewJson>",
  "token_grants.scopes": "Jsonb<Scope[]>",
  "webhook_deliveries.status": "DeliveryStatus",
  "webhook_subscriptions.status": "SubscriptionStatus",
};

/**
 * The names importers give rows, emitted at the end of schema.ts: a table's row as read
 * (`Selectable`), or as inserted or updated.
 */
export const ROW_TYPES: Record<string, string | ["Insertable" | "Updateable", string]> = {
  Account: "accounts",
  Store: "stores",
  Product: "products",
  NewProduct: ["Insertable", "products"],
  ProductUpdate: ["Updateable", "products"],
  ProductVariant: "product_variants",
  NewProductVariant: ["Insertable", "product_variants"],
  VariantUpdate: ["Updateable", "product_variants"],
  ProductImage: "product_images",
  ProductImageFile: "product_image_files",
  Location: "locations",
  InventoryLevel: "inventory_levels",
  InventoryChange: "inventory_changes",
  Collection: "collections",
  Customer: "customers",
  Discount: "discounts",
  Return: "returns",
  ReturnLineItem: "return_line_items",
  TaxRate: "tax_rates",
  Order: "orders",
  OrderLineItem: "order_line_items",
  OrderEdit: "order_edits",
  NewOrderEdit: ["Insertable", "order_edits"],
  AppRow: "apps",
  Installation: "installations",
  WebhookSubscription: "webhook_subscriptions",
  WebhookDelivery: "webhook_deliveries",
  ApiKey: "api_keys",
  CsvImport: "csv_imports",
};
