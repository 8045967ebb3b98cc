import Type, { type Static } from "typebox";
import {
  MAX_LINE_ITEMS,
  OrderNote,
  OrderResource,
  OrderStatusSchema,
  Quantity,
} from "../../contracts/index.ts";
import type { Order, OrderLineItem } from "../../db/schema.ts";
import { Body, CursorQuery, Id } from "../../lib/http/schemas.ts";
import { formatMinorUnits } from "../../lib/money.ts";

export { OrderResource, OrderStatusSchema };

export const CreateOrderBody = Body({
  customerId: Id("customer"),
  lineItems: Type.Array(
    Type.Object({ productId: Id("product"), quantity: Quantity }, { additionalProperties: false }),
    {
      minItems: 1,
      maxItems: MAX_LINE_ITEMS,
      description: "Each product at most once. Prices are taken from the catalogue.",
    },
  ),
  note: Type.Optional(OrderNote),
});

export const UpdateOrderStatusBody = Body({ status: OrderStatusSchema });

export const OrderListQuery = Type.Object(
  { ...CursorQuery, status: Type.Optional(OrderStatusSchema) },
  { additionalProperties: false },
);
export const OrderIdParam = { id: Id("order") };

export function toOrderResource(o: Order, items: OrderLineItem[]) {
  const money = (minor: number) => formatMinorUnits(minor, o.currency);
  return {
    id: o.id,
    number: o.number,
    status: o.status,
    customerId: o.customer_id,
    currency: o.currency,
    subtotal: money(o.subtotal_minor),
    total: money(o.total_minor),
    note: o.note,
    lineItems: items.map((li) => ({
      id: li.id,
      productId: li.product_id,
      title: li.title,
      sku: li.sku,
      unitPrice: money(li.unit_price_minor),
      quantity: li.quantity,
      total: money(li.total_minor),
    })),
    createdAt: o.created_at.toISOString(),
    updatedAt: o.updated_at.toISOString(),
  };
}

export type CreateOrderInput = Static<typeof CreateOrderBody>;
