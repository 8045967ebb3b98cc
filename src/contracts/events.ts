import { keysOf } from "./mirror.ts";
import type { Scope } from "./scopes.ts";

/**
 * The event names apps subscribe to: what each carries in `data` and the scope an app needs to subscribe
 * to it. Domain events are written to the outbox by the change that causes them (in its
 * transaction); `app/uninstalled` is written on uninstall and `webhook.disabled` when the platform
 * disables a subscription, and each goes to that installation only.
 * The kinds of `data` are declared below (EVENT_DATA_RECORD); their payload schemas are in
 * resources.ts (EVENT_PAYLOADS), keyed by the kind.
 *
 * `privacy: true` marks the privacy events (issue 21): no app subscribes to them; every app they
 * concern receives them at the one privacy endpoint it declares in its registration
 * (`privacyWebhookUrl`), whatever its subscriptions. `scope` is then who they concern: an app
 * installed with that scope (null: the app the event is about).
 */
/**
 * Each kind of event data, declared once, with the kind of record an event carrying it is about
 * (the events feed's `resource.type`). A new kind is an entry here and its payload schema in
 * resources.ts (EVENT_PAYLOADS, which the compiler holds to these keys).
 */
export const EVENT_DATA_RECORD = {
  order: "order",
  product: "product",
  inventoryLevel: "inventoryLevel",
  location: "location",
  collection: "collection",
  discount: "discount",
  // A refund is about its order: its event's resource is the order (in the order's sequence, and
  // erased with the order's events when its customer is).
  refund: "order",
  // A return too: its steps sit in the order's sequence.
  return: "order",
  // An edit too.
  orderEdit: "order",
  customer: "customer",
  store: "store",
  uninstalled: "installation",
  webhookDisabled: "subscription",
  customerRedact: "customer",
  customerDataRequest: "customer",
  shopRedact: "installation",
} as const;
export type EventDataKind = keyof typeof EVENT_DATA_RECORD;

export const EVENTS = {
  orderCreated: {
    name: "order.created",
    scope: "read_orders",
    data: "order",
    summary: "An order was placed.",
  },
  orderPaid: {
    name: "order.paid",
    scope: "read_orders",
    data: "order",
    summary: "An order was marked paid.",
  },
  orderConfirmed: {
    name: "order.confirmed",
    scope: "read_orders",
    data: "order",
    summary: "An order was confirmed.",
  },
  orderShipped: {
    name: "order.shipped",
    scope: "read_orders",
    data: "order",
    summary: "An order was shipped.",
  },
  orderDelivered: {
    name: "order.delivered",
    scope: "read_orders",
    data: "order",
    summary: "An order was delivered.",
  },
  orderCancelled: {
    name: "order.cancelled",
    scope: "read_orders",
    data: "order",
    summary: "An order was cancelled.",
  },
  orderUpdated: {
    name: "order.updated",
    scope: "read_orders",
    data: "order",
    summary:
      "An order's note, tags, shipping address or metadata changed (status changes have their own events; an update that changes nothing sends none).",
  },
  productCreated: {
    name: "product.created",
    scope: "read_products",
    data: "product",
    summary: "A product was created.",
  },
  productUpdated: {
    name: "product.updated",
    scope: "read_products",
    data: "product",
    summary:
      "A product changed: its own fields, its options or variants, or what it has to sell (stock changes from orders and inventory writes included).",
  },
  productDeleted: {
    name: "product.deleted",
    scope: "read_products",
    data: "product",
    summary: "A product was deleted.",
  },
  inventoryLevelUpdated: {
    name: "inventory_level.updated",
    scope: "read_inventory",
    data: "inventoryLevel",
    summary:
      "Stock of a variant at a location changed: the quantities after, and each change with its reason and who made it. One event per level and write, in commit order.",
  },
  locationCreated: {
    name: "location.created",
    scope: "read_inventory",
    data: "location",
    summary: "A location was added.",
  },
  locationUpdated: {
    name: "location.updated",
    scope: "read_inventory",
    data: "location",
    summary: "A location's name, address, or whether it is active or fulfils online orders, changed.",
  },
  locationDeleted: {
    name: "location.deleted",
    scope: "read_inventory",
    data: "location",
    summary: "A location was deleted (it held no stock).",
  },
  collectionCreated: {
    name: "collection.created",
    scope: "read_products",
    data: "collection",
    summary: "A collection was created.",
  },
  collectionUpdated: {
    name: "collection.updated",
    scope: "read_products",
    data: "collection",
    summary: "A collection's title, description or rules, or the products of a manual collection, changed.",
  },
  collectionDeleted: {
    name: "collection.deleted",
    scope: "read_products",
    data: "collection",
    summary: "A collection was deleted (its products stay).",
  },
  refundCreated: {
    name: "refund.created",
    scope: "read_orders",
    data: "refund",
    summary: "A refund was recorded for an order (its `order.updated` follows with the new totals).",
  },
  orderEdited: {
    name: "order.edited",
    scope: "read_orders",
    data: "orderEdit",
    summary:
      "An order not yet shipped was edited: its lines, codes and shipping before and after, and the totals (its `order.updated` follows with the order as it is now).",
  },
  returnRequested: {
    name: "return.requested",
    scope: "read_returns",
    data: "return",
    summary: "A return of units of a shipped order was requested.",
  },
  returnApproved: {
    name: "return.approved",
    scope: "read_returns",
    data: "return",
    summary: "A return was approved: the units may come back.",
  },
  returnDeclined: {
    name: "return.declined",
    scope: "read_returns",
    data: "return",
    summary: "A return was declined.",
  },
  returnReceived: {
    name: "return.received",
    scope: "read_returns",
    data: "return",
    summary: "A return's units arrived (restocked at `locationId`, or not).",
  },
  returnClosed: {
    name: "return.closed",
    scope: "read_returns",
    data: "return",
    summary: "A return was closed, with the refund that returned the money when there was one (`refundId`).",
  },
  discountCreated: {
    name: "discount.created",
    scope: "read_discounts",
    data: "discount",
    summary: "A discount code was created.",
  },
  discountUpdated: {
    name: "discount.updated",
    scope: "read_discounts",
    data: "discount",
    summary:
      "A discount code's terms or status changed (not its use count: an order's use is the order's event).",
  },
  discountDeleted: {
    name: "discount.deleted",
    scope: "read_discounts",
    data: "discount",
    summary: "A discount code was deleted (orders that used it keep what it took).",
  },
  customerCreated: {
    name: "customer.created",
    scope: "read_customers",
    data: "customer",
    summary: "A customer was created.",
  },
  customerUpdated: {
    name: "customer.updated",
    scope: "read_customers",
    data: "customer",
    summary:
      "A customer's details, addresses, note, tags or metadata changed (an update that changes nothing sends none).",
  },
  shopUpdated: {
    name: "shop.updated",
    // Like the store itself (GET /store), readable by every installed app: an app needs the
    // store's currency and time zone whatever it does.
    scope: null,
    data: "store",
    summary:
      "The store's settings changed: name, contact e-mail, address, currency, time zone or order number prefix.",
  },
  appUninstalled: {
    name: "app/uninstalled",
    scope: null,
    data: "uninstalled",
    summary: "The merchant uninstalled the app: the last event the installation receives.",
  },
  webhookDisabled: {
    name: "webhook.disabled",
    scope: null,
    data: "webhookDisabled",
    summary:
      "The platform disabled one of the installation's subscriptions (all its deliveries failed for the disable window, or its receiver answered 410 Gone): nothing is sent to it until it is enabled again. Subscribe to it at another endpoint.",
  },
  customerRedact: {
    name: "customer.redact",
    scope: "read_customers",
    data: "customerRedact",
    privacy: true,
    summary:
      "The merchant deleted or anonymised a customer: erase what you keep on them and on their orders (the ids are in `data`). Sent to the privacy endpoint of every app installed in the store with `read_customers`.",
  },
  customerDataRequest: {
    name: "customer.data_request",
    scope: "read_customers",
    data: "customerDataRequest",
    privacy: true,
    summary:
      "The merchant asks what you hold on a customer (for the customer's access request): report it to the merchant. Sent to the privacy endpoint of every app installed in the store with `read_customers`.",
  },
  shopRedact: {
    name: "shop.redact",
    scope: null,
    data: "shopRedact",
    privacy: true,
    summary:
      "`SHOP_REDACT_DELAY_SECONDS` (48 hours by default) after the app was uninstalled from a store, and only if it was not installed there again meanwhile: erase what you keep on the store. Sent once to the app's privacy endpoint, though its subscriptions have stopped.",
  },
} as const satisfies Record<
  string,
  {
    name: string;
    scope: Scope | null;
    data: EventDataKind;
    summary: string;
    privacy?: true;
  }
>;

type EventKey = keyof typeof EVENTS;
export type EventName = (typeof EVENTS)[EventKey]["name"];
/** The privacy events: sent to each app's privacy endpoint, never subscribed to. */
export type PrivacyEventName = Extract<(typeof EVENTS)[EventKey], { privacy: true }>["name"];
/** Events a change in the store causes; the others are about the installation itself (operational) or privacy. */
export type DomainEventName = Exclude<
  EventName,
  typeof EVENTS.appUninstalled.name | typeof EVENTS.webhookDisabled.name | PrivacyEventName
>;

/** `EVENT.orderCreated === "order.created"`: the names as values. */
export const EVENT = Object.freeze(Object.fromEntries(keysOf(EVENTS).map((k) => [k, EVENTS[k].name]))) as {
  readonly [K in EventKey]: (typeof EVENTS)[K]["name"];
};

export const EVENT_NAMES: EventName[] = keysOf(EVENTS).map((k) => EVENTS[k].name);

/** What each event name needs and carries. */
export const EVENT_BY_NAME = Object.freeze(
  Object.fromEntries(keysOf(EVENTS).map((k) => [EVENTS[k].name, EVENTS[k]])),
) as { readonly [N in EventName]: Extract<(typeof EVENTS)[EventKey], { name: N }> };

export function isEventName(value: string): value is EventName {
  return Object.hasOwn(EVENT_BY_NAME, value);
}

export function isPrivacyEvent(name: EventName): name is PrivacyEventName {
  return (EVENT_BY_NAME[name] as { privacy?: true }).privacy === true;
}

/** The privacy events, in contract order. */
export const PRIVACY_EVENT_NAMES: PrivacyEventName[] = EVENT_NAMES.filter(isPrivacyEvent);

/** What an app may subscribe to (`POST /webhooks`): every event but the privacy events. */
export type SubscribableEventName = Exclude<EventName, PrivacyEventName>;
export const SUBSCRIBABLE_EVENT_NAMES: SubscribableEventName[] = EVENT_NAMES.filter(
  (n): n is SubscribableEventName => !isPrivacyEvent(n),
);

/** The scope needed to subscribe to each event (null: every app may). */
export const EVENT_SCOPES = Object.freeze(
  Object.fromEntries(EVENT_NAMES.map((n) => [n, EVENT_BY_NAME[n].scope])),
) as { readonly [N in EventName]: (typeof EVENT_BY_NAME)[N]["scope"] };
