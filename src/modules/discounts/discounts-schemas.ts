import Type, { type Static } from "typebox";
import {
  DateTimeInput,
  DiscountAllocationSchema,
  DiscountCode,
  DiscountKindSchema,
  DiscountResource,
  DiscountStatusSchema,
  MAX_DISCOUNT_TARGETS,
  Money,
  Rate,
} from "../../contracts/index.ts";
import type { Discount } from "../../db/schema.ts";
import { Body, CursorQuery, Id } from "../../lib/http/schemas.ts";
import { isoString } from "../../lib/iso-string.ts";
import { formatMinorUnits, formatRate } from "../../lib/money.ts";
import { CREATED_AND_UPDATED, SortParam, type SortTable } from "../../lib/pagination.ts";

export { DiscountResource };

const terms = {
  percentage: Type.Optional({ ...Rate, description: "`percentage`: the share taken (10 is 10 %)." }),
  value: Type.Optional({
    ...Money,
    description: "`fixed_amount`: the amount taken, in the store's currency.",
  }),
  allocation: Type.Optional(DiscountAllocationSchema),
  productIds: Type.Optional(
    Type.Array(Id("product"), {
      maxItems: MAX_DISCOUNT_TARGETS,
      uniqueItems: true,
      description: "The products it applies to. With `collectionIds` empty too: every product.",
    }),
  ),
  collectionIds: Type.Optional(
    Type.Array(Id("collection"), {
      maxItems: MAX_DISCOUNT_TARGETS,
      uniqueItems: true,
      description:
        "The collections whose products it applies to (manual or automatic, as they are when the order is placed).",
    }),
  ),
  minimumSubtotal: Type.Optional(
    Type.Union([Money, Type.Null()], {
      description: "The smallest subtotal of the lines it applies to (before discounts) that it needs.",
    }),
  ),
  minimumQuantity: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 100_000 }), Type.Null()], {
      description: "The fewest items among the lines it applies to that it needs.",
    }),
  ),
  startsAt: Type.Optional(DateTimeInput("From when it applies; left out: now.")),
  endsAt: Type.Optional(Type.Union([DateTimeInput("Until when it applies; null: no end."), Type.Null()])),
  usageLimit: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000_000 }), Type.Null()], {
      description: "How many orders may use it in all; null: no limit.",
    }),
  ),
  oncePerCustomer: Type.Optional(Type.Boolean({ description: "Each customer may use it once." })),
  combinable: Type.Optional(
    Type.Boolean({ description: "May be used with other combinable codes on one order. Default false." }),
  ),
  status: Type.Optional(DiscountStatusSchema),
};

export const CreateDiscountBody = Body(
  { code: DiscountCode, kind: DiscountKindSchema, ...terms },
  {
    examples: [
      { code: "SUMMER10", kind: "percentage", percentage: "10", minimumSubtotal: "50.00", usageLimit: 500 },
      { code: "SHIPFREE", kind: "free_shipping", oncePerCustomer: true, combinable: true },
    ],
  },
);
export const UpdateDiscountBody = Type.Object(
  { code: Type.Optional(DiscountCode), ...terms },
  { additionalProperties: false, minProperties: 1 },
);

export const DISCOUNT_SORTS = CREATED_AND_UPDATED satisfies SortTable;
export const DiscountListQuery = Type.Object(
  {
    ...CursorQuery,
    status: Type.Optional(DiscountStatusSchema),
    sort: Type.Optional(SortParam(DISCOUNT_SORTS, "Order of the list: by creation or last change.")),
  },
  { additionalProperties: false },
);
export const DiscountIdParam = { id: Id("discount") };

export function toDiscountResource(d: Discount, currency: string) {
  return {
    id: d.id,
    code: d.code,
    kind: d.kind,
    percentage: d.kind === "percentage" ? formatRate(d.rate_ppm) : null,
    value: d.kind === "fixed_amount" ? formatMinorUnits(d.amount_minor, currency) : null,
    allocation: d.allocation,
    productIds: [...d.product_ids],
    collectionIds: [...d.collection_ids],
    minimumSubtotal: d.min_subtotal_minor === null ? null : formatMinorUnits(d.min_subtotal_minor, currency),
    minimumQuantity: d.min_quantity,
    startsAt: isoString(d.starts_at),
    endsAt: d.ends_at ? isoString(d.ends_at) : null,
    usageLimit: d.usage_limit,
    oncePerCustomer: d.once_per_customer,
    combinable: d.combinable,
    status: d.status,
    timesUsed: d.times_used,
    createdAt: isoString(d.created_at),
    updatedAt: isoString(d.updated_at),
  };
}

export type CreateDiscountInput = Static<typeof CreateDiscountBody>;
export type UpdateDiscountInput = Static<typeof UpdateDiscountBody>;
