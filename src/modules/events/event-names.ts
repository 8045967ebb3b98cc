/**
 * The event names of spec 6.1 and the scope an app needs to subscribe to each. Domain events are
 * written to the outbox by the change that causes them; `app/uninstalled` is written on uninstall.
 */
export const EVENT_SCOPES = {
  "order.created": "read_orders",
  "order.paid": "read_orders",
  "order.confirmed": "read_orders",
  "order.shipped": "read_orders",
  "order.delivered": "read_orders",
  "order.cancelled": "read_orders",
  "product.created": "read_products",
  "product.updated": "read_products",
  "product.deleted": "read_products",
  "customer.created": "read_customers",
  "app/uninstalled": null,
} as const;

export type EventName = keyof typeof EVENT_SCOPES;
export type DomainEventName = Exclude<EventName, "app/uninstalled">;
export const EVENT_NAMES = Object.keys(EVENT_SCOPES) as EventName[];
