import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";
import type {
  ActorKind,
  DeliveryStatus,
  InstallationStatus,
  OrderStatus,
  ProductStatus,
  Scope,
  SubscriptionStatus,
} from "../contracts/index.ts";

export type { DeliveryStatus, OrderStatus };

/**
 * Row types of every table, kept in step with db/migrations by hand (one file, reviewed with the
 * migration that changes it). Timestamps are written as Date and read as Date.
 */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;
/** A JSON column with a default: optional on insert. */
type JsonWithDefault<T> = ColumnType<T, string | undefined, string>;

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

/** Fulfilment details recorded when an order moved to shipped. */
export interface FulfillmentJson {
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  shippedAt: string;
}

/** Every app's metadata on a record: app id -> its key-value pairs (migration 20261126_0041). */
export type AppMetadataJson = Record<string, Record<string, string>>;

export interface AccountsTable {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  created_at: Timestamp;
  /** Signed into every device cookie; one more on a password change and on sign-out everywhere. */
  device_epoch: Generated<number>;
}

export interface SessionsTable {
  token_hash: string;
  account_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface StoresTable {
  id: string;
  slug: string;
  name: string;
  currency: string;
  owner_account_id: string;
  next_order_number: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  contact_email: ColumnType<string | null, string | null | undefined, string | null>;
  address: ColumnType<AddressJson | null, string | null | undefined, string | null>;
  time_zone: ColumnType<string, string | undefined, string>;
  order_number_prefix: ColumnType<string, string | undefined, string>;
}

export interface ProductsTable {
  store_id: string;
  id: string;
  title: string;
  description: string;
  price_minor: number;
  sku: string | null;
  stock: number;
  status: ProductStatus;
  created_at: Timestamp;
  updated_at: Timestamp;
  metadata: JsonWithDefault<AppMetadataJson>;
}

export interface CustomersTable {
  store_id: string;
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  phone: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Set when the customer was deleted while they had orders: their personal data is overwritten. */
  anonymized_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The first is the default shipping address. */
  addresses: JsonWithDefault<AddressJson[]>;
  note: ColumnType<string, string | undefined, string>;
  tags: JsonWithDefault<string[]>;
  metadata: JsonWithDefault<AppMetadataJson>;
}

export interface OrderStatusChangesTable {
  store_id: string;
  order_id: string;
  seq: number;
  status: OrderStatus;
  changed_at: Timestamp;
  actor_kind: ActorKind;
  actor_id: string | null;
  actor_name: string;
}

export interface OrdersTable {
  store_id: string;
  id: string;
  number: number;
  customer_id: string;
  status: OrderStatus;
  currency: string;
  subtotal_minor: number;
  total_minor: number;
  note: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The store's prefix when the order was placed: its name is number_prefix || number. */
  number_prefix: ColumnType<string, string | undefined, string>;
  shipping_address: ColumnType<AddressJson | null, string | null | undefined, string | null>;
  fulfillment: ColumnType<FulfillmentJson | null, string | null | undefined, string | null>;
  tags: JsonWithDefault<string[]>;
  metadata: JsonWithDefault<AppMetadataJson>;
}

export interface OrderLineItemsTable {
  store_id: string;
  id: string;
  order_id: string;
  position: number;
  product_id: string | null;
  title: string;
  sku: string | null;
  unit_price_minor: number;
  quantity: number;
  total_minor: number;
}

export interface EventsTable {
  seq: Generated<number>;
  id: string;
  store_id: string;
  topic: string;
  resource_id: string;
  payload: Json<unknown>;
  created_at: Timestamp;
  installation_id: ColumnType<string | null, string | null | undefined, string | null>;
  dispatched_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** A test event (POST /webhooks/test): its body and deliveries say so. */
  test: ColumnType<boolean, boolean | undefined, boolean>;
  /** Place in the store's event feed, given after commit by the sequencer (feed-repo.ts); null until then. */
  feed_position: ColumnType<number | null, never, number | null>;
  /**
   * Every app's metadata on the event's record at the time (migration 20261126_0041), kept beside
   * the payload: each app's delivery carries only its own pairs. Null for events without any.
   */
  app_metadata: ColumnType<AppMetadataJson | null, string | null | undefined, string | null>;
  /**
   * When the payload was erased (its customer deleted; migration 20261128_0020), its deliveries'
   * bodies with it: a dispatch that read the payload before leaves the event to the next one.
   */
  redacted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** The last feed position given in each store; its row is locked while the sequencer numbers. */
export interface EventFeedHeadsTable {
  store_id: string;
  position: number;
}

export interface AppsTable {
  id: string;
  client_id: string;
  owner_account_id: string;
  name: string;
  redirect_uris: Json<string[]>;
  scopes: Json<Scope[]>;
  client_secret_hash: string;
  secret_rotated_at: Date | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Set when the developer deleted the app: hidden, and refused by every OAuth endpoint. */
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Where the privacy events go (migration 20261126_0080); null: none declared. */
  privacy_webhook_url: ColumnType<string | null, string | null | undefined, string | null>;
  /** The privacy endpoint's signing secret, sealed; made when an endpoint is first declared. */
  privacy_secret_ciphertext: ColumnType<string | null, string | null | undefined, string | null>;
  privacy_previous_secret_ciphertext: ColumnType<string | null, string | null | undefined, string | null>;
  privacy_secret_rotated_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface InstallationsTable {
  store_id: string;
  id: string;
  app_id: string;
  scopes: Json<Scope[]>;
  status: InstallationStatus;
  installed_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  uninstalled_at: Date | null;
  /** When `shop.redact` is due (set at uninstall, migration 20261126_0080). */
  shop_redact_due_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** When a worker claimed it: sent, or not sent because the app was installed again. */
  shop_redact_done_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface AuthorizationCodesTable {
  code_hash: string;
  store_id: string;
  installation_id: string;
  app_id: string;
  redirect_uri: string;
  scopes: Json<Scope[]>;
  code_challenge: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  redeemed_at: Date | null;
}

export interface TokenGrantsTable {
  store_id: string;
  id: string;
  installation_id: string;
  app_id: string;
  scopes: Json<Scope[]>;
  code_hash: string;
  created_at: Timestamp;
  revoked_at: Date | null;
  revoked_reason: string | null;
}

export interface AccessTokensTable {
  token_hash: string;
  store_id: string;
  grant_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  first_used_at: Date | null;
  revoked_at: Date | null;
  /** Narrower than the grant's after a refresh that asked for fewer scopes; null: the grant's. */
  scopes: ColumnType<Scope[] | null, string | null | undefined, string | null>;
}

export interface RefreshTokensTable {
  token_hash: string;
  store_id: string;
  grant_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Date | null;
  successor_access_hash: string | null;
  successor_refresh_hash: string | null;
  retry_idempotency_hash: string | null;
  retry_ciphertext: string | null;
}

export interface WebhookSubscriptionsTable {
  store_id: string;
  id: string;
  installation_id: string;
  app_id: string;
  event_name: string;
  target_url: string;
  secret_ciphertext: string;
  /** The secret before the last rotation, still encrypted; signs beside the new one during the overlap. */
  previous_secret_ciphertext: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the secret was last rotated (null: never). */
  secret_rotated_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  status: SubscriptionStatus;
  created_at: Timestamp;
  stopped_at: Date | null;
  /** Set while disabled (migration 20261126_0030): when, and the last error that caused it. */
  disabled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  disabled_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** Which events it receives and which fields of their data (migration 20261126_0070); null: all. */
  filter: ColumnType<string | null, string | null | undefined, string | null>;
  fields: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
}

/** A subscription's unbroken run of failed attempts: a row only while it lasts (migration 20261126_0030). */
export interface WebhookSubscriptionFailuresTable {
  store_id: string;
  subscription_id: string;
  failing_since: Date;
}

export interface WebhookDeliveriesTable {
  store_id: string;
  id: string;
  event_id: string;
  event_name: string;
  subscription_id: string;
  installation_id: string;
  app_id: string;
  target_url: string;
  target_host: string;
  body: string;
  status: DeliveryStatus;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  lease_until: Date | null;
  lease_token: string | null;
  last_status_code: number | null;
  last_error: string | null;
  redelivery_of: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: Date | null;
  test: ColumnType<boolean, boolean | undefined, boolean>;
  /** Sent as x-webhook-id; null: the delivery's own id (a recovered delivery carries its original's). */
  webhook_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The delivery this one recovers (recover's new delivery; unique: each is recovered once). */
  recovery_of: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A `listen` connection's session (migration 20261125_0012). */
export interface WebhookListenSessionsTable {
  store_id: string;
  id: string;
  installation_id: string;
  app_id: string;
  events: string[];
  secret_ciphertext: string;
  connection: string | null;
  /** The feed position the session has read up to. */
  position: number;
  /** The feed position it began after: a resume never goes before it. */
  start_position: number;
  created_at: Timestamp;
  seen_at: Timestamp;
  stopped_at: Date | null;
}

export interface WebhookAttemptsTable {
  store_id: string;
  delivery_id: string;
  attempt: number;
  started_at: Timestamp;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
}

export interface ApiKeysTable {
  store_id: string;
  id: string;
  name: string;
  secret_hash: string;
  scopes: Json<Scope[]>;
  created_by: string | null;
  created_at: Timestamp;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export interface IdempotencyKeysTable {
  scope: string;
  key_hash: string;
  fingerprint: string;
  claim_token: string;
  locked_at: Timestamp;
  response_status: number | null;
  response_body: string | null;
  created_at: Timestamp;
  /**
   * For an answer naming a customer or one of their orders (migration 20261128_0020): the store,
   * the customer, and the answer with their personal data erased, sealed like `response_body`,
   * which it replaces when the customer is erased (then null).
   */
  store_id: ColumnType<string | null, string | null | undefined, string | null>;
  customer_id: ColumnType<string | null, string | null | undefined, string | null>;
  erased_response_body: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Written only by the triggers of migration 20261123_0040; the application reads the sum of a store's slots. */
export interface StoreRowCountsTable {
  store_id: string;
  resource: "products" | "orders" | "customers";
  slot: number;
  n: number;
}

/** Every suffix of each product's SKU, upper-cased: written only by the triggers of migration 20261126_0120. */
export interface ProductSkuSuffixesTable {
  store_id: string;
  suffix: string;
  product_id: string;
}

/** A running bulk export's hold on one slot of one of its pools (migration 20261128_0010). */
export interface ExportLeasesTable {
  /** `install:<installation id>`, `apikey:<key id>`, `store:<store id>` or `account:<account id>`. */
  pool: string;
  slot: number;
  export_id: string;
  lease_until: Date;
}

export interface DB {
  accounts: AccountsTable;
  sessions: SessionsTable;
  stores: StoresTable;
  products: ProductsTable;
  customers: CustomersTable;
  orders: OrdersTable;
  order_status_changes: OrderStatusChangesTable;
  order_line_items: OrderLineItemsTable;
  events: EventsTable;
  event_feed_heads: EventFeedHeadsTable;
  apps: AppsTable;
  installations: InstallationsTable;
  authorization_codes: AuthorizationCodesTable;
  token_grants: TokenGrantsTable;
  access_tokens: AccessTokensTable;
  refresh_tokens: RefreshTokensTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_subscription_failures: WebhookSubscriptionFailuresTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_listen_sessions: WebhookListenSessionsTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  store_row_counts: StoreRowCountsTable;
  product_sku_suffixes: ProductSkuSuffixesTable;
  export_leases: ExportLeasesTable;
}

export type Account = Selectable<AccountsTable>;
export type Store = Selectable<StoresTable>;
export type Product = Selectable<ProductsTable>;
export type NewProduct = Insertable<ProductsTable>;
export type ProductUpdate = Updateable<ProductsTable>;
export type Customer = Selectable<CustomersTable>;
export type Order = Selectable<OrdersTable>;
export type OrderLineItem = Selectable<OrderLineItemsTable>;
export type AppRow = Selectable<AppsTable>;
export type Installation = Selectable<InstallationsTable>;
export type WebhookSubscription = Selectable<WebhookSubscriptionsTable>;
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
export type ApiKey = Selectable<ApiKeysTable>;
