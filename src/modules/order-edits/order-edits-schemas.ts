import Type, { type Static } from "typebox";
import {
  MAX_LINE_ITEMS,
  OrderEditPreviewResource,
  OrderEditResource,
  OrderNote,
} from "../../contracts/index.ts";
import type { EditLineJson, EditShippingJson, Order, OrderEdit } from "../../db/schema.ts";
import { Body, Id } from "../../lib/http/schemas.ts";
import { isoString } from "../../lib/iso-string.ts";
import { formatMinorUnits } from "../../lib/money.ts";
import { DiscountCodes, ShippingLines } from "../orders/orders-schemas.ts";

export { OrderEditPreviewResource, OrderEditResource };

const editFields = {
  lineItems: Type.Optional(
    Type.Array(
      Type.Object(
        {
          lineItemId: Type.String({ minLength: 1, maxLength: 64, description: "A line of this order." }),
          quantity: Type.Integer({
            minimum: 0,
            maximum: 10_000,
            description: "Its quantity after the edit; 0 removes the line.",
          }),
        },
        { additionalProperties: false },
      ),
      { maxItems: MAX_LINE_ITEMS, description: "Lines whose quantity changes, each once." },
    ),
  ),
  addLineItems: Type.Optional(
    Type.Array(
      Type.Object(
        {
          variantId: Type.Optional(Id("variant", "The variant to add (at its catalogue price now).")),
          productId: Type.Optional(Id("product", "A product with exactly one variant.")),
          quantity: Type.Integer({ minimum: 1, maximum: 10_000 }),
        },
        { additionalProperties: false },
      ),
      {
        maxItems: MAX_LINE_ITEMS,
        description:
          "Variants to add, each not already on the order (change that line's quantity instead). Stock is taken at the order's location.",
      },
    ),
  ),
  discountCodes: Type.Optional({
    ...DiscountCodes,
    description:
      "The order's discount codes after the edit, in the order applied. Left out: unchanged. A code the order has keeps the terms it had and its use; a new one is checked and reserved as at checkout (400 DISCOUNT_NOT_APPLICABLE); one left out gives its use back.",
  }),
  shippingLines: Type.Optional({
    ...ShippingLines,
    description: "The order's shipping lines after the edit. Left out: unchanged; `[]`: no shipping.",
  }),
  expectedUpdatedAt: Type.Optional(
    Type.String({
      format: "date-time",
      description:
        "The order's `updatedAt` as read when the edit was prepared: when the order changed since, 409 and nothing is written (the dashboard sends it, so an edit confirmed on a preview never lands on an order someone else changed).",
    }),
  ),
};

export const PreviewOrderEditBody = Body(editFields, {
  examples: [{ lineItems: [{ lineItemId: "li_7Hc2Qm9XwLp4Rt8VbN3kZs", quantity: 2 }] }],
});
export const CreateOrderEditBody = Body(
  {
    ...editFields,
    note: Type.Optional({ ...OrderNote, description: "Why the order was edited." }),
  },
  {
    examples: [
      {
        lineItems: [{ lineItemId: "li_7Hc2Qm9XwLp4Rt8VbN3kZs", quantity: 0 }],
        addLineItems: [{ variantId: "var_3kTMd9Qx2LwZ7bPq5RvY8n", quantity: 1 }],
        note: "Customer asked for the larger size",
      },
    ],
  },
);
export type OrderEditInput = Static<typeof CreateOrderEditBody>;

/** An edit as priced: its before and after in minor units (stored as the order_edits row). */
export interface EditView {
  lineItemsBefore: EditLineJson[];
  lineItemsAfter: EditLineJson[];
  codesBefore: string[];
  codesAfter: string[];
  shippingBefore: EditShippingJson[];
  shippingAfter: EditShippingJson[];
  totalBeforeMinor: number;
  totalAfterMinor: number;
}

function fields(order: Order, e: EditView, outstandingMinor: number) {
  const money = (minor: number) => formatMinorUnits(minor, order.currency);
  const lines = (ls: readonly EditLineJson[]) =>
    ls.map((l) => ({
      lineItemId: l.lineItemId,
      variantId: l.variantId,
      title: l.title,
      variantTitle: l.variantTitle,
      sku: l.sku,
      unitPrice: money(l.unitPriceMinor),
      quantity: l.quantity,
      total: money(l.unitPriceMinor * l.quantity),
    }));
  const shipping = (ss: readonly EditShippingJson[]) =>
    ss.map((s) => ({ title: s.title, code: s.code, price: money(s.priceMinor) }));
  return {
    orderId: order.id,
    customerId: order.customer_id,
    currency: order.currency,
    lineItemsBefore: lines(e.lineItemsBefore),
    lineItemsAfter: lines(e.lineItemsAfter),
    discountCodesBefore: [...e.codesBefore],
    discountCodesAfter: [...e.codesAfter],
    shippingLinesBefore: shipping(e.shippingBefore),
    shippingLinesAfter: shipping(e.shippingAfter),
    totalBefore: money(e.totalBeforeMinor),
    totalAfter: money(e.totalAfterMinor),
    difference: money(e.totalAfterMinor - e.totalBeforeMinor),
    outstanding: money(outstandingMinor),
  };
}

/** A committed edit as the APIs and `order.edited` show it (`outstanding`: the order's right after it). */
export function toOrderEditResource(order: Order, row: OrderEdit) {
  const view: EditView = {
    lineItemsBefore: row.line_items_before,
    lineItemsAfter: row.line_items_after,
    codesBefore: row.codes_before,
    codesAfter: row.codes_after,
    shippingBefore: row.shipping_before,
    shippingAfter: row.shipping_after,
    totalBeforeMinor: row.total_before_minor,
    totalAfterMinor: row.total_after_minor,
  };
  return {
    id: row.id,
    ...fields(order, view, row.outstanding_after_minor),
    note: row.note,
    createdAt: isoString(row.created_at),
  };
}

export function toOrderEditPreview<O>(order: Order, e: EditView, outstandingMinor: number, resource: O) {
  return { ...fields(order, e, outstandingMinor), order: resource };
}
