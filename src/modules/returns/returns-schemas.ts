import Type, { type Static } from "typebox";
import { MAX_LINE_ITEMS, OrderNote, ReturnReasonSchema, ReturnResource } from "../../contracts/index.ts";
import type { Return, ReturnLineItem } from "../../db/schema.ts";
import { Body, Id } from "../../lib/http/schemas.ts";
import { isoString } from "../../lib/iso-string.ts";

export { ReturnResource };

export const CreateReturnBody = Body(
  {
    lineItems: Type.Array(
      Type.Object(
        {
          lineItemId: Type.String({ minLength: 1, maxLength: 64, description: "A line of this order." }),
          quantity: Type.Integer({ minimum: 1, maximum: 10_000 }),
          reason: ReturnReasonSchema,
        },
        { additionalProperties: false },
      ),
      {
        minItems: 1,
        maxItems: MAX_LINE_ITEMS,
        description: "The units coming back, each line once, with why.",
      },
    ),
    note: Type.Optional(OrderNote),
  },
  {
    examples: [
      { lineItems: [{ lineItemId: "li_7Hc2Qm9XwLp4Rt8VbN3kZs", quantity: 1, reason: "size_too_small" }] },
    ],
  },
);
export const ReceiveReturnBody = Body({
  restock: Type.Optional(Type.Boolean({ description: "Put the units back into stock. Default true." })),
  locationId: Type.Optional(
    Id("location", "Where they go back. Left out: the order's location (or the store's first active one)."),
  ),
});
export const CloseReturnBody = Body({
  refund: Type.Optional(
    Type.Boolean({
      description:
        "Refund the returned units (their share of discounts and tax) as the return closes, linking the refund. Default true when the order is paid.",
    }),
  ),
  shipping: Type.Optional(
    Type.Boolean({ description: "Refund what is left of the shipping too. Default false." }),
  ),
});
export const ReturnIdParam = { id: Id("return") };
export const OrderReturnsParam = { id: Id("order") };

export type CreateReturnInput = Static<typeof CreateReturnBody>;

export function toReturnResource(r: Return, lines: readonly ReturnLineItem[], customerId: string) {
  const at = (d: Date | null) => (d ? isoString(d) : null);
  return {
    id: r.id,
    orderId: r.order_id,
    customerId,
    status: r.status,
    lineItems: lines.map((l) => ({ lineItemId: l.line_item_id, quantity: l.quantity, reason: l.reason })),
    note: r.note,
    locationId: r.location_id,
    refundId: r.refund_id,
    requestedAt: isoString(r.requested_at),
    approvedAt: at(r.approved_at),
    declinedAt: at(r.declined_at),
    receivedAt: at(r.received_at),
    closedAt: at(r.closed_at),
    updatedAt: isoString(r.updated_at),
  };
}
