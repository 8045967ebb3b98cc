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
import { CREATED_AND_UPDATED, SortParam, type SortTable } from "../../lib/pagination.ts";

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
          "An order number (`1042` or `#1042`), or text (3 characters at least) contained in the customer's e-mail address or full name.",
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
