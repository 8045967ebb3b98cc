import Type, { type Static } from "typebox";
import {
  AddressInput,
  Carrier,
  DiscountCode,
  eraseRecord,
  FinancialStatus,
  MAX_LINE_ITEMS,
  MAX_ORDER_DISCOUNT_CODES,
  MAX_SHIPPING_LINES,
  MetadataInput,
  Money,
  OrderNote,
  OrderResource,
  OrderStatus,
  OrderStatusSchema,
  Quantity,
  ShippingCode,
  ShippingTitle,
  Tags,
  TrackingNumber,
  TrackingUrl,
} from "../../contracts/index.ts";
import type { DiscountShareJson, Order, OrderLineItem, TaxLineJson } from "../../db/schema.ts";
import { Body, CursorQuery, Id } from "../../lib/http/schemas.ts";
import { isoString } from "../../lib/iso-string.ts";
import { formatMinorUnits, formatRate } from "../../lib/money.ts";
import { CREATED_AND_UPDATED, SortParam, type SortTable } from "../../lib/pagination.ts";
import { toAddress } from "../addresses/addresses.ts";
import { forViewer, type Viewer } from "../app-metadata/app-metadata.ts";
import { CreateCustomerBody } from "../customers/customers-schemas.ts";

export { OrderResource, OrderStatusSchema };

const LineItems = Type.Array(
  Type.Object(
    {
      variantId: Type.Optional(
        Id("variant", "The variant sold. Send this, or `productId` for a product with one variant."),
      ),
      productId: Type.Optional(
        Id("product", "A product with exactly one variant (one with several needs `variantId`: 409)."),
      ),
      quantity: Quantity,
    },
    { additionalProperties: false },
  ),
  {
    minItems: 1,
    maxItems: MAX_LINE_ITEMS,
    description: "Each variant at most once. Prices are taken from the catalogue.",
  },
);
const OrderLocation = Id(
  "location",
  "Where the order takes its stock. Left out: the first active location that fulfils online orders and holds every line.",
);

export const ShippingLines = Type.Array(
  Type.Object(
    {
      title: ShippingTitle,
      price: {
        ...Money,
        description: "What the customer pays for it, in the store's currency (before discounts).",
      },
      code: Type.Optional(ShippingCode),
    },
    { additionalProperties: false },
  ),
  {
    maxItems: MAX_SHIPPING_LINES,
    description:
      "How the order ships and what that costs (taxed when the store taxes shipping). Left out: no shipping charged.",
  },
);
export const DiscountCodes = Type.Array(DiscountCode, {
  maxItems: MAX_ORDER_DISCOUNT_CODES,
  description:
    "Discount codes, applied in this order, each on what the ones before it left. Several only when each is combinable. A refused code is a 400 DISCOUNT_NOT_APPLICABLE naming why.",
});

const ShippingAddress = Type.Union([AddressInput, Type.Null()], {
  description:
    "Where the order ships. Left out: the customer's default address (none when they have none). `null`: the order ships nowhere (collected, or a service).",
});

export const CreateOrderBody = Body({
  customerId: Id("customer"),
  lineItems: LineItems,
  locationId: Type.Optional(OrderLocation),
  shippingAddress: Type.Optional(ShippingAddress),
  shippingLines: Type.Optional(ShippingLines),
  discountCodes: Type.Optional(DiscountCodes),
  note: Type.Optional(OrderNote),
  tags: Type.Optional(Tags),
});

/**
 * The Admin API's create: an existing customer by id, or one described inline (matched by e-mail
 * address to the store's customer who has it, else created with `customer.created`); and the
 * app's own metadata.
 */
export const AdminCreateOrderBody = Body(
  {
    customerId: Type.Optional(Id("customer", "An existing customer. Send this or `customer`, not both.")),
    customer: Type.Optional({
      ...CreateCustomerBody,
      description:
        "A customer described inline, instead of `customerId`: the store's customer with this e-mail address if there is one (their details are left as they are), otherwise a new customer (`customer.created`).",
    }),
    lineItems: LineItems,
    locationId: Type.Optional(OrderLocation),
    shippingAddress: Type.Optional(ShippingAddress),
    shippingLines: Type.Optional(ShippingLines),
    discountCodes: Type.Optional(DiscountCodes),
    note: Type.Optional(OrderNote),
    tags: Type.Optional(Tags),
    metadata: Type.Optional(MetadataInput),
  },
  {
    examples: [
      {
        customerId: "cus_7Hc2Qm9XwLp4Rt8VbN3kZs",
        lineItems: [{ productId: "prod_7Hc2Qm9XwLp4Rt8VbN3kZs", quantity: 2 }],
        note: "Marketplace order MK-991",
        tags: ["marketplace"],
        metadata: { marketplaceOrder: "MK-991" },
      },
      {
        customer: { email: "omar@example.com", firstName: "Omar", lastName: "Nasser" },
        lineItems: [{ productId: "prod_7Hc2Qm9XwLp4Rt8VbN3kZs", quantity: 1 }],
        shippingAddress: { name: "Omar Nasser", line1: "Olaya Street 5", city: "Riyadh", country: "SA" },
      },
    ],
  },
);

export const FulfillmentInput = Type.Object(
  {
    carrier: Type.Optional(Carrier),
    trackingNumber: Type.Optional(TrackingNumber),
    trackingUrl: Type.Optional(TrackingUrl),
  },
  {
    additionalProperties: false,
    title: "FulfillmentInput",
    description: "How the order left: all optional. Only with `status: shipped`.",
  },
);

export const FulfillOrderBody = Body(
  { fulfillment: Type.Optional({ ...FulfillmentInput, description: "How the order left: all optional." }) },
  { examples: [{ fulfillment: { carrier: "DHL Express", trackingNumber: "1Z999AA10123456784" } }] },
);

export const UpdateOrderStatusBody = Body(
  {
    status: OrderStatusSchema,
    fulfillment: Type.Optional(FulfillmentInput),
  },
  {
    examples: [
      { status: OrderStatus.paid },
      {
        status: OrderStatus.shipped,
        fulfillment: {
          carrier: "DHL Express",
          trackingNumber: "1Z999AA10123456784",
          trackingUrl: "https://www.dhl.com/track?id=1Z999AA10123456784",
        },
      },
    ],
  },
);

const updateFields = {
  note: Type.Optional(OrderNote),
  tags: Type.Optional(Tags),
  shippingAddress: Type.Optional(
    Type.Union([AddressInput, Type.Null()], {
      description: "Changes only before the order is shipped or cancelled (409 after).",
    }),
  ),
};
export const UpdateOrderBody = Type.Object(updateFields, { additionalProperties: false, minProperties: 1 });
export const AdminUpdateOrderBody = Type.Object(
  { ...updateFields, metadata: Type.Optional(MetadataInput) },
  { additionalProperties: false, minProperties: 1 },
);

/** What an order list can be sorted by (each backed by an index with store_id leading). */
export const ORDER_SORTS = {
  ...CREATED_AND_UPDATED,
  total: { column: "total_minor", type: "number" },
  number: { column: "number", type: "number" },
} as const satisfies SortTable;

export const OrderListQuery = Type.Object(
  {
    ...CursorQuery,
    status: Type.Optional(OrderStatusSchema),
    customerId: Type.Optional(Id("customer", "Only this customer's orders.")),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: "\\S",
        description:
          "An order number (`1042`, `#1042`, or with the store's prefix), or text (3 characters at least) contained in the customer's e-mail address or full name.",
        "x-hint": "an order number, or at least 3 characters of the customer's name or e-mail",
      }),
    ),
    sort: Type.Optional(
      SortParam(ORDER_SORTS, "Order of the list: by creation, last change, total or number."),
    ),
  },
  { additionalProperties: false },
);
export const OrderIdParam = { id: Id("order") };

/**
 * What the customer owes (positive) or is owed (negative) on `o`: total − received once it is
 * paid (an edit changed the total after the money came); nothing on an unpaid or voided order.
 */
export function outstandingOf(o: Pick<Order, "financial_status" | "total_minor" | "received_minor">) {
  return o.financial_status === FinancialStatus.pending || o.financial_status === FinancialStatus.voided
    ? 0
    : o.total_minor - o.received_minor;
}

export function toOrderResource(o: Order, items: OrderLineItem[], viewer?: Viewer) {
  const money = (minor: number) => formatMinorUnits(minor, o.currency);
  const taxLines = (lines: readonly TaxLineJson[]) =>
    lines.map((t) => ({ title: t.title, rate: formatRate(t.ratePpm), amount: money(t.amountMinor) }));
  const shares = (lines: readonly DiscountShareJson[]) =>
    lines.map((d) => ({ application: d.application, amount: money(d.amountMinor) }));
  return forViewer(
    {
      id: o.id,
      number: o.number,
      name: `${o.number_prefix}${o.number}`,
      status: o.status,
      customerId: o.customer_id,
      currency: o.currency,
      subtotal: money(o.subtotal_minor),
      discounts: money(o.discounts_minor),
      shipping: money(o.shipping_minor),
      tax: money(o.tax_minor),
      taxIncluded: money(o.tax_included_minor),
      total: money(o.total_minor),
      refunded: money(o.refunded_minor),
      net: money(o.total_minor - o.refunded_minor),
      received: money(o.received_minor),
      outstanding: money(outstandingOf(o)),
      taxesIncluded: o.taxes_included,
      financialStatus: o.financial_status,
      note: o.note,
      tags: [...(o.tags ?? [])],
      shippingAddress: o.shipping_address ? toAddress(o.shipping_address) : null,
      fulfillment: o.fulfillment
        ? {
            carrier: o.fulfillment.carrier,
            trackingNumber: o.fulfillment.trackingNumber,
            trackingUrl: o.fulfillment.trackingUrl,
            shippedAt: o.fulfillment.shippedAt,
          }
        : null,
      lineItems: items.map((li) => ({
        id: li.id,
        productId: li.product_id,
        variantId: li.variant_id,
        title: li.title,
        variantTitle: li.variant_title,
        sku: li.sku,
        unitPrice: money(li.unit_price_minor),
        quantity: li.quantity,
        total: money(li.total_minor),
        discount: money(li.discount_minor),
        discountAllocations: shares(li.discount_allocations ?? []),
        tax: money(li.tax_minor),
        taxLines: taxLines(li.tax_lines ?? []),
        refundedQuantity: li.refunded_quantity,
      })),
      shippingLines: (o.shipping_lines ?? []).map((s) => ({
        title: s.title,
        code: s.code,
        price: money(s.priceMinor),
        discount: money(s.discountMinor),
        discountAllocations: shares(s.discountAllocations),
        tax: money(s.taxMinor),
        taxLines: taxLines(s.taxLines),
      })),
      discountApplications: (o.discount_applications ?? []).map((d) => ({
        discountId: d.discountId,
        code: d.code,
        kind: d.kind,
        percentage: d.kind === "percentage" ? formatRate(d.ratePpm) : null,
        value: d.kind === "fixed_amount" ? money(d.valueMinor) : null,
        allocation: d.allocation,
        amount: money(d.amountMinor),
      })),
      taxLines: taxLines(o.tax_lines ?? []),
      locationId: o.location_id,
      createdAt: isoString(o.created_at),
      updatedAt: isoString(o.updated_at),
    },
    o.metadata,
    viewer,
  );
}

/**
 * An order's details once its customer is erased: the contract's rule (contracts/erasure.ts)
 * applied to the order as the APIs show it, written back (the shipping address down to its city,
 * no note, no tracking). Its events' payloads are erased by the same rule.
 */
export function erasedOrderDetails(o: Order) {
  const erased = eraseRecord("order", toOrderResource(o, []), o.id);
  return {
    id: o.id,
    shipping_address: erased.shippingAddress,
    note: erased.note,
    fulfillment: erased.fulfillment,
  };
}

/** What a create may carry from any family (the dashboard's has a customerId and no metadata). */
export type CreateOrderInput = Static<typeof AdminCreateOrderBody>;
export type UpdateOrderInput = Static<typeof AdminUpdateOrderBody>;
export type FulfillmentInputValue = Static<typeof FulfillmentInput>;
