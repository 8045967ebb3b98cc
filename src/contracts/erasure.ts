import type { Static } from "typebox";
import { EVENT_DATA_RECORD, type EventDataKind } from "./events.ts";
import {
  type AddressResource,
  type CustomerResource,
  type FulfillmentResource,
  ID_PREFIX,
  type OrderEditResource,
  type OrderResource,
  type RefundResource,
  type ReturnResource,
} from "./resources.ts";

/**
 * What erasing a customer (the merchant deletes them) does to each kind of record, declared once
 * (issue 27, item 2). The same function makes the anonymised customer row, their orders' rows,
 * and every stored copy of either: event payloads (the event feed, `listen`), the bodies kept with
 * webhook deliveries (what a retry, a redelivery or a recover sends) and the sealed idempotent
 * answers. So none of them can say more than the row does.
 *
 * Each field of a record with personal data is declared here, `"kept"` or erased (a function of
 * the field's value and the record's id answering what stays): the compiler refuses a rule that
 * leaves a field of the public shape out, so a field added to CustomerResource or OrderResource is
 * classified here before it compiles. A kind without personal data says why in one sentence.
 */
type FieldErasure<V> = "kept" | ((value: V, id: string) => V);
type RecordErasure<T> = { readonly [K in keyof T]-?: FieldErasure<T[K]> };
/** A kind's rule, whichever its record: what `eraseRecord` applies. */
type AnyRecordErasure = Readonly<Record<string, "kept" | ((value: never, id: string) => unknown)>>;

type Address = Static<typeof AddressResource>;
type Fulfillment = Static<typeof FulfillmentResource>;

/** The e-mail address an erased customer keeps: unique per customer, and never deliverable (RFC 2606 `.invalid`). */
export function erasedEmail(customerId: string): string {
  return `deleted-${customerId}@anonymized.invalid`;
}

/**
 * An address reduced to where it is: city, region, postal code and country stay (what an order
 * keeps for tax and the store's statistics); whom it names, the street, the company and the phone
 * go. Every part is set, whatever an older payload carried.
 */
function eraseAddress(address: Address | null): Address | null {
  if (!address || typeof address !== "object") return null;
  return {
    name: "",
    company: null,
    line1: "",
    line2: null,
    city: typeof address.city === "string" ? address.city : "",
    region: address.region ?? null,
    postalCode: address.postalCode ?? null,
    country: address.country,
    phone: null,
  };
}

const nothing =
  <V>(value: V) =>
  () =>
    value;

const customer: RecordErasure<Static<typeof CustomerResource>> = {
  id: "kept",
  email: (_email, id) => erasedEmail(id),
  firstName: nothing("Deleted"),
  lastName: nothing("customer"),
  phone: nothing(null),
  addresses: () => [],
  defaultAddress: nothing(null),
  note: nothing(""),
  // The merchant's labels on the person ("vip", "wholesale"): about them, so erased with them.
  tags: () => [],
  // A tax status (a reseller, a charity): about the sale's tax, kept for the orders' books.
  taxExempt: "kept",
  // Figures of the orders, which stay (amounts are kept for the books).
  ordersCount: "kept",
  amountSpent: "kept",
  createdAt: "kept",
  updatedAt: "kept",
  anonymizedAt: "kept",
  // Every app's pairs on the customer (a CRM's own name for them, their ERP number).
  metadata: () => ({}),
};

const order: RecordErasure<Static<typeof OrderResource>> = {
  id: "kept",
  number: "kept",
  name: "kept",
  status: "kept",
  customerId: "kept",
  currency: "kept",
  subtotal: "kept",
  discounts: "kept",
  shipping: "kept",
  tax: "kept",
  taxIncluded: "kept",
  total: "kept",
  refunded: "kept",
  net: "kept",
  received: "kept",
  outstanding: "kept",
  taxesIncluded: "kept",
  financialStatus: "kept",
  // Written by whoever placed or handled the order, often about the person ("leave with the neighbour").
  note: nothing(""),
  // The merchant's labels on the order ("gift", "priority"): about the sale, not the person.
  tags: "kept",
  shippingAddress: eraseAddress,
  // The carrier and when it shipped stay; a tracking number (and its URL) finds the parcel, the
  // recipient and the address at the carrier.
  fulfillment: (f: Fulfillment | null) =>
    f && typeof f === "object" ? { ...f, trackingNumber: null, trackingUrl: null } : null,
  lineItems: "kept",
  // Amounts, titles and codes: the books of the sale, not the person.
  shippingLines: "kept",
  discountApplications: "kept",
  taxLines: "kept",
  locationId: "kept",
  createdAt: "kept",
  updatedAt: "kept",
  // The apps' own pairs on the order (an ERP's invoice number): the app is told to erase what it
  // keeps by `customer.redact`, which names the order.
  metadata: "kept",
};

const refund: RecordErasure<Static<typeof RefundResource>> = {
  id: "kept",
  orderId: "kept",
  customerId: "kept",
  currency: "kept",
  lineItems: "kept",
  shipping: "kept",
  tax: "kept",
  amount: "kept",
  locationId: "kept",
  // Written by whoever recorded the refund, often about the person ("returned by her neighbour").
  note: nothing(""),
  createdAt: "kept",
};

const returnRule: RecordErasure<Static<typeof ReturnResource>> = {
  id: "kept",
  orderId: "kept",
  customerId: "kept",
  status: "kept",
  lineItems: "kept",
  // Written about the parcel and its sender ("left with the neighbour").
  note: nothing(""),
  locationId: "kept",
  refundId: "kept",
  requestedAt: "kept",
  approvedAt: "kept",
  declinedAt: "kept",
  receivedAt: "kept",
  closedAt: "kept",
  updatedAt: "kept",
};

const orderEdit: RecordErasure<Static<typeof OrderEditResource>> = {
  id: "kept",
  orderId: "kept",
  customerId: "kept",
  currency: "kept",
  lineItemsBefore: "kept",
  lineItemsAfter: "kept",
  discountCodesBefore: "kept",
  discountCodesAfter: "kept",
  shippingLinesBefore: "kept",
  shippingLinesAfter: "kept",
  totalBefore: "kept",
  totalAfter: "kept",
  difference: "kept",
  outstanding: "kept",
  // Why the order changed, often about the person ("she asked for the larger size").
  note: nothing(""),
  createdAt: "kept",
};

export const ERASURE = {
  customer,
  order,
  product: "Catalogue data: about goods, never a person.",
  inventoryLevel: "Stock quantities, and which account, app or key pair changed them (an id).",
  location: "A place the merchant keeps stock: the merchant's own business address, not a customer's.",
  collection: "Catalogue data: about goods, never a person.",
  discount: "A discount code's terms and how often it was used: no person's data.",
  refund,
  return: returnRule,
  orderEdit,
  store: "The merchant's own business details (contact address, shop address), not a customer's.",
  uninstalled: "An app and when it left a store.",
  webhookDisabled: "A subscription, its URL and its last error.",
  customerRedact: "Ids only: the erased customer's and their orders'.",
  customerDataRequest: "Ids and a time only.",
  shopRedact: "An app's client id and a time.",
} as const satisfies Record<EventDataKind, AnyRecordErasure | string>;

function ruleOf(kind: EventDataKind): AnyRecordErasure | null {
  const rule: AnyRecordErasure | string = ERASURE[kind];
  return typeof rule === "string" ? null : rule;
}

/**
 * `data` (a record of `kind`, as the APIs and the events carry it) with the personal data of the
 * rule erased. Tolerates part of a record (a subscription's `fields` keep only some of `data`): a
 * field that is not there is not added. Anything that is not an object is answered as it is.
 * Erasing an erased record changes nothing.
 */
export function eraseRecord<T>(kind: EventDataKind, data: T, id: string): T {
  const rule = ruleOf(kind);
  if (!rule || data === null || typeof data !== "object" || Array.isArray(data)) return data;
  const out: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  for (const [field, erase] of Object.entries(rule)) {
    if (erase === "kept" || !Object.hasOwn(out, field)) continue;
    out[field] = (erase as (value: unknown, id: string) => unknown)(out[field], id);
  }
  return out as T;
}

/**
 * Every app's metadata on a record of `kind` (stored beside the record, and beside its events'
 * payloads) after the erasure: emptied where the rule erases `metadata`, else as it is.
 */
export function eraseAppMetadata<T extends object>(kind: EventDataKind, all: T | null): T | null {
  const erase = ruleOf(kind)?.metadata;
  return all === null || erase === undefined || erase === "kept" ? all : ({} as T);
}

/** The kinds of record with personal data: those whose rule is not a sentence. */
export type ErasableKind = {
  [K in EventDataKind]: (typeof ERASURE)[K] extends string ? never : K;
}[EventDataKind];

/** Whether records of `kind` carry personal data (an erasure rewrites them). */
export function isErasableKind(kind: EventDataKind): kind is ErasableKind {
  return ruleOf(kind) !== null;
}

/** The field of each kind with personal data that names the customer whose erasure reaches it. */
const CUSTOMER_FIELD = {
  customer: "id",
  order: "customerId",
  refund: "customerId",
  return: "customerId",
  orderEdit: "customerId",
} as const satisfies Record<ErasableKind, string>;

const ERASABLE_KINDS = (Object.keys(ERASURE) as EventDataKind[]).filter(isErasableKind);

/** The kind of record with personal data an id names (`cus_…`, `ord_…`), or null. */
export function erasableKindOf(id: string): ErasableKind | null {
  return ERASABLE_KINDS.find((kind) => id.startsWith(`${ID_PREFIX[EVENT_DATA_RECORD[kind]]}_`)) ?? null;
}

/**
 * The record with personal data `data` is (a customer or an order, by its id) and the customer
 * whose erasure reaches it; null for any other value.
 */
export function erasableRecordOf(
  data: unknown,
): { kind: ErasableKind; id: string; customerId: string } | null {
  if (data === null || typeof data !== "object") return null;
  const record = data as Record<string, unknown>;
  if (typeof record.id !== "string") return null;
  const kind = erasableKindOf(record.id);
  if (kind === null) return null;
  const customerId = record[CUSTOMER_FIELD[kind]];
  return typeof customerId === "string" ? { kind, id: record.id, customerId } : null;
}
