import Type, { type TSchema } from "typebox";
import type { EventDataKind } from "./events.ts";
import { Currency, Money, StoreSlug, Timestamp } from "./fields.ts";
import { OrderStatusSchema, ProductStatusSchema } from "./statuses.ts";

/**
 * Public id and credential prefixes: one per kind, so an id or a leaked secret says what it is
 * (secret scanners key on these). Ids are `<prefix>_` and `idLength` base62 characters.
 */
export const ID_PREFIX = {
  account: "acct",
  store: "store",
  product: "prod",
  customer: "cus",
  order: "ord",
  lineItem: "li",
  event: "evt",
  app: "app",
  installation: "inst",
  grant: "grant",
  subscription: "whsub",
  delivery: "whd",
  listenSession: "whls",
  clientId: "mpc",
  apiKey: "mpk",
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** Random characters after the prefix: 22 (about 131 bits) for records, 24 for public client/key ids. */
export function idLength(kind: IdKind): number {
  return kind === "clientId" || kind === "apiKey" ? 24 : 22;
}

/** Pattern accepted for an id of `kind` in a path or body; anything else is a 400 before any query. */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIX[kind]}_[0-9A-Za-z]{${idLength(kind)}}$`;
}

/** A well-formed id of `kind` for documentation examples (never issued: ids are random). */
export function exampleId(kind: IdKind): string {
  const chars = "7Hc2Qm9XwLp4Rt8VbN3kZs6YdJ5fGa1";
  return `${ID_PREFIX[kind]}_${chars.repeat(2).slice(0, idLength(kind))}`;
}

export function Id(kind: IdKind, description?: string) {
  return Type.String({
    pattern: idPattern(kind),
    maxLength: 64,
    examples: [exampleId(kind)],
    ...(description ? { description } : {}),
  });
}

/**
 * The resources as every API family returns them and as webhook events carry them in `data`.
 * Named (`title`), so generated clients get importable types.
 */

export const StoreResource = Type.Object(
  { id: Id("store"), slug: StoreSlug, name: Type.String(), currency: Currency, createdAt: Timestamp },
  { title: "Store" },
);

export const ProductResource = Type.Object(
  {
    id: Id("product"),
    title: Type.String(),
    description: Type.String(),
    price: Money,
    currency: Type.String({ examples: ["USD"] }),
    sku: Type.Union([Type.String(), Type.Null()]),
    stock: Type.Integer(),
    status: ProductStatusSchema,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: "Product" },
);

export const CustomerResource = Type.Object(
  {
    id: Id("customer"),
    email: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    phone: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    anonymizedAt: Type.Union([Timestamp, Type.Null()], {
      description: "When the customer was deleted while they had orders: their personal data is overwritten.",
    }),
  },
  { title: "Customer" },
);

const Amount = Type.String({ description: "Decimal string in the order's currency.", examples: ["39.98"] });

export const LineItemResource = Type.Object({
  id: Type.String(),
  productId: Type.Union([Type.String(), Type.Null()], { description: "Null once the product is deleted." }),
  title: Type.String(),
  sku: Type.Union([Type.String(), Type.Null()]),
  unitPrice: Amount,
  quantity: Type.Integer(),
  total: Amount,
});

export const OrderResource = Type.Object(
  {
    id: Id("order"),
    number: Type.Integer({
      description: "Human-facing order number, sequential per store.",
      examples: [1001],
    }),
    status: OrderStatusSchema,
    customerId: Type.String(),
    currency: Type.String(),
    subtotal: Amount,
    total: Amount,
    note: Type.String(),
    lineItems: Type.Array(LineItemResource),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: "Order" },
);

export const UninstalledData = Type.Object({
  clientId: Type.String(),
  appName: Type.String(),
  uninstalledAt: Timestamp,
});

export const WebhookDisabledData = Type.Object(
  {
    subscriptionId: Id("subscription"),
    eventName: Type.String({ description: "The event the disabled subscription receives." }),
    targetUrl: Type.String({
      description: "Where it was sent.",
      examples: ["https://app.example.com/hooks"],
    }),
    reason: Type.String({
      description:
        "The last error: the receiver's status (`HTTP 410 Gone`, `HTTP 503`) or why no answer came.",
      examples: ["HTTP 503"],
    }),
    failingSince: Type.String({
      format: "date-time",
      examples: ["2026-11-17T10:00:00.000Z"],
      description:
        "The first failure of the unbroken run of failed attempts that ended in the disable (a 410 disables at once: then that attempt, or an earlier failure of the run).",
    }),
    disabledAt: Timestamp,
  },
  { title: "WebhookDisabledData" },
);

/** What each kind of event carries in `data` (events.ts names the kind per event). */
export const EVENT_PAYLOADS: Record<EventDataKind, TSchema> = {
  order: OrderResource,
  product: ProductResource,
  customer: CustomerResource,
  uninstalled: UninstalledData,
  webhookDisabled: WebhookDisabledData,
};
