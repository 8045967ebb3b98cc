import Type from "typebox";
import { type DomainEventName, EVENT } from "./events.ts";
import { keysOf, mirror } from "./mirror.ts";
import { STAFF_ROLE_NAMES } from "./roles.ts";

function enumSchema<K extends string>(names: K[], description: string) {
  return Type.Enum(names, { type: "string", description });
}

/**
 * The order life cycle: pending -> paid -> confirmed -> shipped -> delivered, one step at a time;
 * cancelled from any state before shipped. Delivered and cancelled are final. `event` is what
 * entering the state emits; stock is taken at creation and returned on cancellation.
 */
export const ORDER_STATUSES = {
  pending: { label: "Pending", next: ["paid", "cancelled"], event: EVENT.orderCreated },
  paid: { label: "Paid", next: ["confirmed", "cancelled"], event: EVENT.orderPaid },
  confirmed: { label: "Confirmed", next: ["shipped", "cancelled"], event: EVENT.orderConfirmed },
  shipped: { label: "Shipped", next: ["delivered"], event: EVENT.orderShipped },
  delivered: { label: "Delivered", next: [], event: EVENT.orderDelivered },
  cancelled: { label: "Cancelled", next: [], event: EVENT.orderCancelled },
} as const satisfies Record<string, { label: string; next: readonly string[]; event: DomainEventName }>;

export type OrderStatus = keyof typeof ORDER_STATUSES;
export const ORDER_STATUS_NAMES = keysOf(ORDER_STATUSES);
export const OrderStatus = mirror(ORDER_STATUS_NAMES);
export const OrderStatusSchema = enumSchema(
  ORDER_STATUS_NAMES,
  "pending -> paid -> confirmed -> shipped -> delivered, one step at a time; cancelled from any state before shipped.",
);

/** An order not yet shipped or cancelled: it holds its stock (committed) and its variants. */
export const UNFULFILLED_ORDER_STATUSES: readonly OrderStatus[] = ORDER_STATUS_NAMES.filter((s) =>
  (ORDER_STATUSES[s].next as readonly string[]).includes("cancelled"),
);

export function allowedTransitions(from: OrderStatus): readonly OrderStatus[] {
  return ORDER_STATUSES[from].next;
}

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return (ORDER_STATUSES[from].next as readonly OrderStatus[]).includes(to);
}

/** Product status: only `active` products can be ordered. */
export const PRODUCT_STATUSES = {
  active: { label: "Active" },
  draft: { label: "Draft" },
  archived: { label: "Archived" },
} as const;
export type ProductStatus = keyof typeof PRODUCT_STATUSES;
export const PRODUCT_STATUS_NAMES = keysOf(PRODUCT_STATUSES);
export const ProductStatus = mirror(PRODUCT_STATUS_NAMES);
export const ProductStatusSchema = enumSchema(PRODUCT_STATUS_NAMES, "Only `active` products can be ordered.");

/** An app's installation in a store: active until the merchant uninstalls it. */
export const INSTALLATION_STATUSES = {
  active: { label: "Installed" },
  uninstalled: { label: "Uninstalled" },
} as const;
export type InstallationStatus = keyof typeof INSTALLATION_STATUSES;
export const INSTALLATION_STATUS_NAMES = keysOf(INSTALLATION_STATUSES);
export const InstallationStatus = mirror(INSTALLATION_STATUS_NAMES);

/**
 * An app's listing in the app directory (issue 32, part 4): a draft is seen only by the app's
 * developer; a published listing is in every store's directory. Publishing is immediate.
 */
export const APP_LISTING_STATUSES = {
  draft: { label: "Draft" },
  published: { label: "Published" },
} as const;
export type AppListingStatus = keyof typeof APP_LISTING_STATUSES;
export const APP_LISTING_STATUS_NAMES = keysOf(APP_LISTING_STATUSES);
export const AppListingStatus = mirror(APP_LISTING_STATUS_NAMES);
export const AppListingStatusSchema = enumSchema(
  APP_LISTING_STATUS_NAMES,
  "draft: seen only by the app's developer; published: in every store's app directory, at once.",
);

/**
 * The colours of an app's monogram icon in the directory (its initials on this colour): a choice
 * from this palette, not an uploaded or fetched image. How each looks is the dashboard's
 * stylesheet's (`.app-icon-<name>`, each dark enough for white initials).
 */
export const APP_ICON_COLORS = {
  green: { label: "Green" },
  blue: { label: "Blue" },
  violet: { label: "Violet" },
  rose: { label: "Rose" },
  orange: { label: "Orange" },
  teal: { label: "Teal" },
  slate: { label: "Slate" },
  indigo: { label: "Indigo" },
} as const satisfies Record<string, { label: string }>;
export type AppIconColor = keyof typeof APP_ICON_COLORS;
export const APP_ICON_COLOR_NAMES = keysOf(APP_ICON_COLORS);
export const AppIconColorSchema = enumSchema(
  APP_ICON_COLOR_NAMES,
  "The colour of the app's icon, its initials on this colour.",
);

/**
 * A webhook subscription: active until deleted or its installation is uninstalled (stopped, for
 * good). The platform disables it (never deletes it) when its deliveries have all failed for
 * WEBHOOK_DISABLE_AFTER_SECONDS or its receiver answered 410 Gone; the app enables it again.
 */
export const SUBSCRIPTION_STATUSES = {
  active: { label: "Active", listed: true, sends: true },
  disabled: { label: "Disabled", listed: true, sends: false },
  stopped: { label: "Stopped", listed: false, sends: false },
  // An installation's privacy channel (issue 21): the platform's own row, one per installation,
  // that carries the privacy events to the app's privacy endpoint with the app's privacy secret.
  // Never listed, counted, dispatched to, disabled or stopped: it outlives the uninstall, since
  // `shop.redact` comes after it.
  privacy: { label: "Privacy endpoint", listed: false, sends: true },
} as const;
export type SubscriptionStatus = keyof typeof SUBSCRIPTION_STATUSES;
export const SUBSCRIPTION_STATUS_NAMES = keysOf(SUBSCRIPTION_STATUSES);
export const SubscriptionStatus = mirror(SUBSCRIPTION_STATUS_NAMES);
/** The statuses whose deliveries may be sent again (a redelivery): an active subscription, a privacy channel. */
export const SENDING_SUBSCRIPTION_STATUS_NAMES = SUBSCRIPTION_STATUS_NAMES.filter(
  (s) => SUBSCRIPTION_STATUSES[s].sends,
);
/** The statuses an app sees (`GET /webhooks`): a stopped subscription is gone for it. */
export type ListedSubscriptionStatus = {
  [K in SubscriptionStatus]: (typeof SUBSCRIPTION_STATUSES)[K]["listed"] extends true ? K : never;
}[SubscriptionStatus];
export const LISTED_SUBSCRIPTION_STATUS_NAMES = SUBSCRIPTION_STATUS_NAMES.filter(
  (s): s is ListedSubscriptionStatus => SUBSCRIPTION_STATUSES[s].listed,
);
export const SubscriptionStatusSchema = enumSchema(
  LISTED_SUBSCRIPTION_STATUS_NAMES,
  "`active`: events are delivered. `disabled`: every delivery failed for `WEBHOOK_DISABLE_AFTER_SECONDS` (5 days by default) or the receiver answered 410 Gone; nothing is sent, each new event is recorded as a `skipped` delivery, until `POST /webhooks/{id}/enable`.",
);

/**
 * A webhook delivery: pending while attempts remain; the others are final. `skipped` is an event
 * its subscription would have received while it was disabled: recorded, never sent, and (like
 * `failed`) sent again by recover.
 */
export const DELIVERY_STATUSES = {
  pending: { label: "Pending", final: false },
  delivered: { label: "Delivered", final: true },
  failed: { label: "Failed", final: true },
  skipped: { label: "Skipped", final: true },
  cancelled: { label: "Cancelled", final: true },
} as const;
export type DeliveryStatus = keyof typeof DELIVERY_STATUSES;
export const DELIVERY_STATUS_NAMES = keysOf(DELIVERY_STATUSES);
export const DeliveryStatus = mirror(DELIVERY_STATUS_NAMES);
export const DeliveryStatusSchema = enumSchema(
  DELIVERY_STATUS_NAMES,
  "`pending` while attempts remain (see `nextAttemptAt`); `delivered`, `failed` (its attempts ran out, or a final answer), `skipped` (the event came while the subscription was disabled: recorded, not sent) and `cancelled` (the app was uninstalled) are final. `recover` sends `failed` and `skipped` deliveries once more.",
);

/**
 * An e-mail in the mail outbox (modules/mail): `pending` until the worker hands it to the transport
 * (SMTP, or the local outbox), `sent` once it did, `failed` when its attempts ran out.
 */
export const MAIL_STATUSES = {
  pending: { label: "Waiting to be sent", final: false },
  sent: { label: "Sent", final: true },
  failed: { label: "Failed", final: true },
} as const;
export type MailStatus = keyof typeof MAIL_STATUSES;
export const MAIL_STATUS_NAMES = keysOf(MAIL_STATUSES);
export const MailStatus = mirror(MAIL_STATUS_NAMES);
export const MailStatusSchema = enumSchema(
  MAIL_STATUS_NAMES,
  "`pending`: waiting for the worker (or for its next attempt while the SMTP server refuses it); `sent`: handed to the SMTP server, or kept in the local outbox when no SMTP server is configured; `failed`: its attempts ran out.",
);

/**
 * Why a listen stream ended (`event: end` with `{ reason }`): the client should not reconnect with
 * the same session. A dropped connection is not an end: the client resumes with Last-Event-ID.
 */
export const LISTEN_END_REASONS = {
  uninstalled: { label: "The app was uninstalled from the store." },
  token_expired: { label: "The access token expired: listen again with a fresh one." },
  token_revoked: { label: "The access token was revoked." },
  superseded: { label: "Another connection resumed this session." },
} as const;
export type ListenEndReason = keyof typeof LISTEN_END_REASONS;
export const LISTEN_END_REASON_NAMES = keysOf(LISTEN_END_REASONS);
export const ListenEndReason = mirror(LISTEN_END_REASON_NAMES);

/**
 * Where a listen session is, as the delivery log shows it (derived, not stored): its stream is
 * open; it is disconnected and can still be resumed (LISTEN_SESSION_IDLE_SECONDS); or it has
 * ended (expired, uninstalled, or stopped to make room for a newer one).
 */
export const LISTEN_SESSION_STATES = {
  streaming: { label: "Streaming" },
  disconnected: { label: "Disconnected (can resume)" },
  ended: { label: "Ended" },
} as const;
export type ListenSessionState = keyof typeof LISTEN_SESSION_STATES;
export const LISTEN_SESSION_STATE_NAMES = keysOf(LISTEN_SESSION_STATES);
export const ListenSessionState = mirror(LISTEN_SESSION_STATE_NAMES);
export const ListenSessionStateSchema = enumSchema(
  LISTEN_SESSION_STATE_NAMES,
  "`streaming`: its stream is open; `disconnected`: it can still be resumed with Last-Event-ID; `ended`: it expired, the app was uninstalled, or a newer session took its place.",
);

/**
 * How an event reached an app: a subscription's delivery (attempted by the platform, with its
 * status), or a `listen` stream (the developer's CLI, which forwards it to their own machine).
 */
export const WEBHOOK_CHANNELS = {
  subscription: { label: "Subscription" },
  listen: { label: "listen (CLI)" },
} as const;
export type WebhookChannel = keyof typeof WEBHOOK_CHANNELS;
export const WEBHOOK_CHANNEL_NAMES = keysOf(WEBHOOK_CHANNELS);
export const WebhookChannel = mirror(WEBHOOK_CHANNEL_NAMES);

/** Who made a change in a history: a merchant in the dashboard, an app, the platform, or not recorded. */
export const ACTOR_KINDS = {
  account: { label: "Merchant" },
  app: { label: "App" },
  key: { label: "Key pair" },
  system: { label: "Platform" },
  unknown: { label: "Not recorded" },
} as const;
export type ActorKind = keyof typeof ACTOR_KINDS;
export const ACTOR_KIND_NAMES = keysOf(ACTOR_KINDS);
export const ActorKind = mirror(ACTOR_KIND_NAMES);
export const ActorKindSchema = enumSchema(
  ACTOR_KIND_NAMES,
  "Who acted: the merchant (account), an app, a key pair, the platform (system), or not recorded.",
);

/**
 * Why stock changed (issue 30): what a merchant, an app or a key pair may give, and what the
 * platform records on its own (`system`: orders placed, shipped, cancelled; stock moved).
 */
export const INVENTORY_REASONS = {
  received: { label: "Received", system: false },
  correction: { label: "Correction", system: false },
  cycle_count: { label: "Cycle count", system: false },
  damaged: { label: "Damaged", system: false },
  quality_control: { label: "Quality control", system: false },
  restock: { label: "Restock", system: false },
  movement: { label: "Moved between locations", system: true },
  order_placed: { label: "Order placed", system: true },
  order_shipped: { label: "Order shipped", system: true },
  order_cancelled: { label: "Order cancelled", system: true },
  order_refunded: { label: "Order refunded (restocked)", system: true },
  order_edited: { label: "Order edited", system: true },
  other: { label: "Other", system: false },
} as const satisfies Record<string, { label: string; system: boolean }>;
export type InventoryReason = keyof typeof INVENTORY_REASONS;
export const INVENTORY_REASON_NAMES = keysOf(INVENTORY_REASONS);
export const InventoryReason = mirror(INVENTORY_REASON_NAMES);
export const InventoryReasonSchema = enumSchema(
  INVENTORY_REASON_NAMES,
  "Why the stock changed. An open list: reasons for the platform's own moves (an order placed, refunded, edited…) may be added without a new API version; read one you do not know as a change the platform made.",
);
/** What a caller may give as the reason of an adjustment or a set. */
export const WRITABLE_INVENTORY_REASONS = INVENTORY_REASON_NAMES.filter((r) => !INVENTORY_REASONS[r].system);
export const WritableInventoryReasonSchema = enumSchema(
  WRITABLE_INVENTORY_REASONS,
  "Why: received, correction, cycle_count, damaged, quality_control, restock or other.",
);

/**
 * The named quantities of stock at a location (Shopify's): `on_hand` = `available` + `committed` +
 * `unavailable`. A write names one of the quantities a caller may write.
 */
export const INVENTORY_QUANTITIES = {
  available: { label: "Available", description: "Can be sold." },
  committed: { label: "Committed", description: "Held by unfulfilled orders." },
  unavailable: {
    label: "Unavailable",
    description: "On the shelf but not for sale (damaged, quality control).",
  },
} as const;
export type InventoryQuantityName = keyof typeof INVENTORY_QUANTITIES;
export const INVENTORY_QUANTITY_NAMES = keysOf(INVENTORY_QUANTITIES);
export const InventoryQuantityNameSchema = enumSchema(
  INVENTORY_QUANTITY_NAMES,
  "available (can be sold), committed (held by unfulfilled orders) or unavailable (not for sale).",
);
/** Committed stock is the orders' own: a caller writes available or unavailable. */
export const WRITABLE_INVENTORY_QUANTITIES = ["available", "unavailable"] as const;
export const WritableInventoryQuantitySchema = enumSchema(
  [...WRITABLE_INVENTORY_QUANTITIES],
  "Which quantity: `available` (default) or `unavailable`; `committed` is the orders' own.",
);

/** A product's stock across its variants, for the list's filter: at most LOW_STOCK_THRESHOLD is low. */
export const STOCK_STATES = {
  in_stock: { label: "In stock" },
  low_stock: { label: "Low stock" },
  out_of_stock: { label: "Out of stock" },
} as const;
export type StockState = keyof typeof STOCK_STATES;
export const STOCK_STATE_NAMES = keysOf(STOCK_STATES);
export const StockStateSchema = enumSchema(
  STOCK_STATE_NAMES,
  "in_stock (more than the low-stock threshold, or any untracked variant), low_stock (1 to the threshold), out_of_stock (nothing to sell).",
);

/** Collections (issue 30): a hand-made ordered list, or products matching rules. */
export const COLLECTION_KINDS = {
  manual: { label: "Manual" },
  automatic: { label: "Automatic" },
} as const;
export type CollectionKind = keyof typeof COLLECTION_KINDS;
export const COLLECTION_KIND_NAMES = keysOf(COLLECTION_KINDS);
export const CollectionKindSchema = enumSchema(
  COLLECTION_KIND_NAMES,
  "manual: the products you add, in your order; automatic: the products matching its rules.",
);
export const COLLECTION_MATCHES = { all: { label: "All rules" }, any: { label: "Any rule" } } as const;
export type CollectionMatch = keyof typeof COLLECTION_MATCHES;
export const COLLECTION_MATCH_NAMES = keysOf(COLLECTION_MATCHES);
export const CollectionMatchSchema = enumSchema(
  COLLECTION_MATCH_NAMES,
  "A product matches when all rules hold, or any.",
);
/** What a rule reads of a product, and the relations each allows. */
export const COLLECTION_RULE_FIELDS = {
  tag: { label: "Tag", relations: ["equals", "not_equals"] },
  title: { label: "Title", relations: ["equals", "not_equals", "contains", "starts_with"] },
  vendor: { label: "Vendor", relations: ["equals", "not_equals", "contains", "starts_with"] },
  product_type: { label: "Product type", relations: ["equals", "not_equals", "contains", "starts_with"] },
  price: { label: "Price", relations: ["equals", "greater_than", "less_than"] },
} as const satisfies Record<string, { label: string; relations: readonly string[] }>;
export type CollectionRuleField = keyof typeof COLLECTION_RULE_FIELDS;
export const COLLECTION_RULE_FIELD_NAMES = keysOf(COLLECTION_RULE_FIELDS);
export const RULE_RELATION_NAMES = [
  "equals",
  "not_equals",
  "contains",
  "starts_with",
  "greater_than",
  "less_than",
] as const;
export type RuleRelation = (typeof RULE_RELATION_NAMES)[number];
export const CollectionRuleFieldSchema = enumSchema(
  COLLECTION_RULE_FIELD_NAMES,
  "What of a product the rule reads.",
);
export const RuleRelationSchema = enumSchema(
  [...RULE_RELATION_NAMES],
  "equals, not_equals, contains, starts_with (text and tags: equals, not_equals); price: equals, greater_than, less_than.",
);

/** Discount codes (issue 31): what a code takes, how a fixed amount spreads, and whether it is live. */
export const DISCOUNT_KINDS = {
  percentage: { label: "Percentage" },
  fixed_amount: { label: "Fixed amount" },
  free_shipping: { label: "Free shipping" },
} as const;
export type DiscountKind = keyof typeof DISCOUNT_KINDS;
export const DISCOUNT_KIND_NAMES = keysOf(DISCOUNT_KINDS);
export const DiscountKind = mirror(DISCOUNT_KIND_NAMES);
export const DiscountKindSchema = enumSchema(
  DISCOUNT_KIND_NAMES,
  "percentage: a share of the lines it applies to; fixed_amount: an amount off them; free_shipping: the whole of the order's shipping.",
);
export const DISCOUNT_ALLOCATIONS = {
  across: { label: "Once per order" },
  each: { label: "Off each item" },
} as const;
export type DiscountAllocation = keyof typeof DISCOUNT_ALLOCATIONS;
export const DISCOUNT_ALLOCATION_NAMES = keysOf(DISCOUNT_ALLOCATIONS);
export const DiscountAllocationSchema = enumSchema(
  DISCOUNT_ALLOCATION_NAMES,
  "A fixed amount taken once from the order, spread over the lines it applies to in proportion (across), or taken off each unit of them (each). Percentages and free shipping: across.",
);
export const DISCOUNT_STATUSES = {
  active: { label: "Active" },
  paused: { label: "Paused" },
} as const;
export type DiscountStatus = keyof typeof DISCOUNT_STATUSES;
export const DISCOUNT_STATUS_NAMES = keysOf(DISCOUNT_STATUSES);
export const DiscountStatus = mirror(DISCOUNT_STATUS_NAMES);
export const DiscountStatusSchema = enumSchema(
  DISCOUNT_STATUS_NAMES,
  "active: applies between its dates; paused: refused until set active again.",
);
/**
 * Why a discount code was refused (400 DISCOUNT_NOT_APPLICABLE, `details[].reason`): a closed
 * list, each with the words the customer-facing message uses.
 */
export const DISCOUNT_REFUSALS = {
  unknown: "is not a discount code of this store",
  paused: "is paused",
  not_yet_active: "is not active yet",
  expired: "has expired",
  usage_limit_reached: "has been used as many times as it may be",
  already_used: "was already used by this customer",
  minimum_not_met: "needs a larger order",
  not_applicable: "applies to nothing in this order",
  not_combinable: "cannot be combined with another code",
} as const;
export type DiscountRefusal = keyof typeof DISCOUNT_REFUSALS;
export const DISCOUNT_REFUSAL_NAMES = keysOf(DISCOUNT_REFUSALS);

/**
 * An order's money (issue 31), apart from its fulfilment status: pending until it is marked paid,
 * then paid, partially_refunded or refunded as refunds return money; voided when cancelled unpaid.
 */
export const FINANCIAL_STATUSES = {
  pending: { label: "Payment pending" },
  paid: { label: "Paid" },
  partially_refunded: { label: "Partially refunded" },
  refunded: { label: "Refunded" },
  voided: { label: "Voided" },
} as const;
export type FinancialStatus = keyof typeof FINANCIAL_STATUSES;
export const FINANCIAL_STATUS_NAMES = keysOf(FINANCIAL_STATUSES);
export const FinancialStatus = mirror(FINANCIAL_STATUS_NAMES);
export const FinancialStatusSchema = enumSchema(
  FINANCIAL_STATUS_NAMES,
  "pending (not paid yet), paid, partially_refunded, refunded (every unit paid for returned), voided (cancelled before it was paid).",
);

/**
 * A return (issue 31, part 4): requested, then approved or declined, then received, then closed
 * (with a refund when money goes back). `next` is where each may go; `event` what is sent.
 */
export const RETURN_STATUSES = {
  requested: { label: "Requested", next: ["approved", "declined"], event: "return.requested" },
  approved: { label: "Approved", next: ["received", "closed"], event: "return.approved" },
  declined: { label: "Declined", next: [], event: "return.declined" },
  received: { label: "Received", next: ["closed"], event: "return.received" },
  closed: { label: "Closed", next: [], event: "return.closed" },
} as const satisfies Record<string, { label: string; next: readonly string[]; event: string }>;
export type ReturnStatus = keyof typeof RETURN_STATUSES;
export const RETURN_STATUS_NAMES = keysOf(RETURN_STATUSES);
export const ReturnStatus = mirror(RETURN_STATUS_NAMES);
export const ReturnStatusSchema = enumSchema(
  RETURN_STATUS_NAMES,
  "requested → approved or declined; approved → received (or closed: nothing comes back) → closed.",
);
/** Why a customer sends something back: the documented list a return's lines choose from. */
export const RETURN_REASONS = {
  unwanted: { label: "No longer wanted" },
  wrong_item: { label: "Wrong item sent" },
  not_as_described: { label: "Not as described" },
  defective: { label: "Defective" },
  damaged_in_transit: { label: "Damaged in transit" },
  size_too_small: { label: "Too small" },
  size_too_large: { label: "Too large" },
  other: { label: "Other" },
} as const;
export type ReturnReason = keyof typeof RETURN_REASONS;
export const RETURN_REASON_NAMES = keysOf(RETURN_REASONS);
export const ReturnReasonSchema = enumSchema(RETURN_REASON_NAMES, "Why the units come back.");

/**
 * A CSV import (issue 32, part 5): `previewed` once uploaded and checked (nothing written), then
 * `queued` when a run (a dry run or the import) is asked for, `running` while the worker applies
 * it, `completed` or `failed` (the worker could not go on: the reason is kept). A dry run ends
 * `completed` too and may be followed by the import.
 */
export const IMPORT_STATUSES = {
  previewed: { label: "Ready to run" },
  queued: { label: "Waiting to start" },
  running: { label: "Running" },
  completed: { label: "Finished" },
  failed: { label: "Stopped" },
} as const satisfies Record<string, { label: string }>;
export type ImportStatus = keyof typeof IMPORT_STATUSES;
export const IMPORT_STATUS_NAMES = keysOf(IMPORT_STATUSES);
export const ImportStatus = mirror(IMPORT_STATUS_NAMES);
export const ImportStatusSchema = enumSchema(
  IMPORT_STATUS_NAMES,
  "previewed (checked, nothing written) -> queued -> running -> completed or failed; a completed dry run may be queued again as the import.",
);
/** What a CSV import creates. */
export const IMPORT_KINDS = {
  products: { label: "Products" },
  customers: { label: "Customers" },
} as const satisfies Record<string, { label: string }>;
export type ImportKind = keyof typeof IMPORT_KINDS;
export const IMPORT_KIND_NAMES = keysOf(IMPORT_KINDS);
export const ImportKindSchema = enumSchema(IMPORT_KIND_NAMES, "Products (with their variants) or customers.");

/**
 * Every column whose values the contract declares, for the test that compares the migrations'
 * CHECK constraints with it.
 */
export const STATUS_COLUMNS = {
  "products.status": PRODUCT_STATUS_NAMES,
  "discounts.kind": DISCOUNT_KIND_NAMES,
  "discounts.allocation": DISCOUNT_ALLOCATION_NAMES,
  "discounts.status": DISCOUNT_STATUS_NAMES,
  "orders.status": ORDER_STATUS_NAMES,
  "orders.financial_status": FINANCIAL_STATUS_NAMES,
  "refunds.actor_kind": ACTOR_KIND_NAMES,
  "returns.status": RETURN_STATUS_NAMES,
  "return_line_items.reason": RETURN_REASON_NAMES,
  "order_status_changes.status": ORDER_STATUS_NAMES,
  "order_status_changes.actor_kind": ACTOR_KIND_NAMES,
  "inventory_changes.actor_kind": ACTOR_KIND_NAMES,
  "inventory_changes.reason": INVENTORY_REASON_NAMES,
  "inventory_changes.quantity": INVENTORY_QUANTITY_NAMES,
  "installations.status": INSTALLATION_STATUS_NAMES,
  "app_listings.status": APP_LISTING_STATUS_NAMES,
  "app_listings.icon_color": APP_ICON_COLOR_NAMES,
  "webhook_subscriptions.status": SUBSCRIPTION_STATUS_NAMES,
  "webhook_deliveries.status": DELIVERY_STATUS_NAMES,
  "csv_imports.status": IMPORT_STATUS_NAMES,
  "csv_imports.kind": IMPORT_KIND_NAMES,
  "store_members.role": STAFF_ROLE_NAMES,
  "store_invitations.role": STAFF_ROLE_NAMES,
  "mail_messages.status": MAIL_STATUS_NAMES,
} as const;

/**
 * Where an API version is in its life (issue 29): `current` (what new apps and key pairs are
 * pinned to), `supported`, `deprecated` (served with Deprecation and Sunset headers until its
 * sunset) and `retired` (no longer served: 400 UNSUPPORTED_API_VERSION).
 */
export const API_VERSION_STATUSES = {
  current: { label: "Current", served: true },
  supported: { label: "Supported", served: true },
  deprecated: { label: "Deprecated", served: true },
  retired: { label: "Retired", served: false },
} as const satisfies Record<string, { label: string; served: boolean }>;
export type ApiVersionStatus = keyof typeof API_VERSION_STATUSES;
export const API_VERSION_STATUS_NAMES = keysOf(API_VERSION_STATUSES);
export const ApiVersionStatus = mirror(API_VERSION_STATUS_NAMES);
export const ApiVersionStatusSchema = enumSchema(
  API_VERSION_STATUS_NAMES,
  "`current`: what new apps and key pairs are pinned to. `supported`: served. `deprecated`: served, with `Deprecation` and `Sunset` headers on every answer, until `sunsetAt`. `retired`: no longer served (400 `UNSUPPORTED_API_VERSION`).",
);
