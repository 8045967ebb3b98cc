import Type from "typebox";
import type { Order, OrderLineItem } from "../../db/schema.ts";
import { Body, CursorQuery, Id, Timestamp } from "../../lib/http/schemas.ts";
import { formatMinorUnits } from "../../lib/money.ts";

export const OrderStatusSchema = Type.Union(
  [
    Type.Literal("pending"),
    Type.Literal("paid"),
    Type.Literal("confirmed"),
    Type.Literal("shipped"),
    Type.Literal("delivered"),
    Type.Literal("cancelled"),
  ],
  { description: "pending -> paid -> confirmed -> shipped -> delivered; cancelled before shipped." },
);

const Amount = Type.String({ description: "Decimal string in the order's currency.", examples: ["39.98"] });

export const CreateOrderBody = Body({
  customerId: Id("customer"),
  lineItems: Type.Array(
    Type.Object(
      { productId: Id("product"), quantity: Type.Integer({ minimum: 1, maximum: 10_000, examples: [2] }) },
      { additionalProperties: false },
    ),
    {
      minItems: 1,
      maxItems: 100,
      description: "Each product at most once. Prices are taken from the catalogue.",
    },
  ),
  note: Type.Optional(Type.String({ maxLength: 2000 })),
});

export const UpdateOrderStatusBody = Body({ status: OrderStatusSchema });

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
