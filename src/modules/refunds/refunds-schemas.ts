import Type, { type Static } from "typebox";
import {
  MAX_LINE_ITEMS,
  OrderNote,
  RefundCalculationResource,
  RefundResource,
} from "../../contracts/index.ts";
import type { Order } from "../../db/schema.ts";
import { Body, Id } from "../../lib/http/schemas.ts";
import { isoString } from "../../lib/iso-string.ts";
import { formatMinorUnits } from "../../lib/money.ts";

export { RefundCalculationResource, RefundResource };

const refundFields = {
  lineItems: Type.Optional(
    Type.Array(
      Type.Object(
        {
          lineItemId: Type.String({ minLength: 1, maxLength: 64, description: "A line of this order." }),
          quantity: Type.Integer({ minimum: 1, maximum: 10_000, description: "Units of it to refund." }),
          restock: Type.Optional(
            Type.Boolean({
              description:
                "Put the units back into stock at `locationId` (default: the top-level `restock`).",
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { maxItems: MAX_LINE_ITEMS, description: "The lines and how many of their units; each line once." },
    ),
  ),
  shipping: Type.Optional(
    Type.Boolean({ description: "Also return what is left of the order's shipping (its tax included)." }),
  ),
  restock: Type.Optional(
    Type.Boolean({
      description: "Put the refunded units back into stock (each line may say otherwise). Default false.",
    }),
  ),
  locationId: Type.Optional(
    Id(
      "location",
      "Where restocked units go. Left out: the order's location (or the store's first active one).",
    ),
  ),
};

export const CalculateRefundBody = Body(refundFields, {
  examples: [{ lineItems: [{ lineItemId: "li_7Hc2Qm9XwLp4Rt8VbN3kZs", quantity: 1 }], shipping: false }],
});
export const CreateRefundBody = Body(
  { ...refundFields, note: Type.Optional(OrderNote) },
  {
    examples: [
      {
        lineItems: [{ lineItemId: "li_7Hc2Qm9XwLp4Rt8VbN3kZs", quantity: 1 }],
        restock: true,
        note: "Arrived damaged",
      },
    ],
  },
);
export type RefundInput = Static<typeof CreateRefundBody>;

/** A refund's stored row and lines, as the APIs show it. */
export interface RefundView {
  id: string;
  note: string;
  locationId: string | null;
  shippingMinor: number;
  taxMinor: number;
  amountMinor: number;
  createdAt: Date;
  lines: Array<{
    lineItemId: string;
    quantity: number;
    subtotalMinor: number;
    discountMinor: number;
    taxMinor: number;
    amountMinor: number;
    restock: boolean;
  }>;
}

function amounts(order: Order, r: Omit<RefundView, "id" | "note" | "createdAt">) {
  const money = (minor: number) => formatMinorUnits(minor, order.currency);
  return {
    orderId: order.id,
    customerId: order.customer_id,
    currency: order.currency,
    lineItems: r.lines.map((l) => ({
      lineItemId: l.lineItemId,
      quantity: l.quantity,
      subtotal: money(l.subtotalMinor),
      discount: money(l.discountMinor),
      tax: money(l.taxMinor),
      amount: money(l.amountMinor),
      restock: l.restock,
    })),
    shipping: money(r.shippingMinor),
    tax: money(r.taxMinor),
    amount: money(r.amountMinor),
    locationId: r.locationId,
  };
}

export function toRefundResource(order: Order, r: RefundView) {
  return { id: r.id, ...amounts(order, r), note: r.note, createdAt: isoString(r.createdAt) };
}

export function toRefundCalculation(order: Order, r: Omit<RefundView, "id" | "note" | "createdAt">) {
  return {
    ...amounts(order, r),
    refundable: formatMinorUnits(order.total_minor - order.refunded_minor, order.currency),
  };
}
