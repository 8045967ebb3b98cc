import Type, { type Static } from "typebox";
import { CustomerResource, Email, FirstName, LastName, Phone, SearchText } from "../../contracts/index.ts";
import type { Customer } from "../../db/schema.ts";
import { Body, CursorQuery, Id } from "../../lib/http/schemas.ts";
import { CREATED_AND_UPDATED, SortParam, type SortTable } from "../../lib/pagination.ts";

export { CustomerResource };

export const CreateCustomerBody = Body({
  email: Email,
  firstName: FirstName,
  lastName: Type.Optional(LastName),
  phone: Type.Optional(Type.Union([Phone, Type.Null()])),
});

/** What a customer list can be sorted by (each backed by an index with store_id leading). */
export const CUSTOMER_SORTS = {
  ...CREATED_AND_UPDATED,
  lastName: { column: "last_name", type: "text" },
  email: { column: "email", type: "text" },
} as const satisfies SortTable;

export const CustomerListQuery = Type.Object(
  {
    ...CursorQuery,
    q: Type.Optional({
      ...SearchText,
      description: "Customers whose e-mail address or full name contains this text.",
    }),
    sort: Type.Optional(
      SortParam(CUSTOMER_SORTS, "Order of the list: by creation, last change, last name or e-mail."),
    ),
  },
  { additionalProperties: false },
);
export const CustomerIdParam = { id: Id("customer") };

export function toCustomerResource(c: Customer) {
  return {
    id: c.id,
    email: c.email,
    firstName: c.first_name,
    lastName: c.last_name,
    phone: c.phone,
    createdAt: c.created_at.toISOString(),
    updatedAt: c.updated_at.toISOString(),
    anonymizedAt: c.anonymized_at ? c.anonymized_at.toISOString() : null,
  };
}

export type CreateCustomerInput = Static<typeof CreateCustomerBody>;

export const UpdateCustomerBody = Type.Object(
  {
    email: Type.Optional(Email),
    firstName: Type.Optional(FirstName),
    lastName: Type.Optional(LastName),
    phone: Type.Optional(Type.Union([Phone, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateCustomerInput = Static<typeof UpdateCustomerBody>;

export const CustomerStats = Type.Object(
  {
    ordersCount: Type.Integer(),
    totalSpent: Type.String({ description: "Total of the customer's orders that were not cancelled." }),
    currency: Type.String(),
    lastOrderAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  },
  { title: "CustomerStats" },
);
