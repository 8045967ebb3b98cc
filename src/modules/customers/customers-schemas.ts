import Type from "typebox";
import type { Customer } from "../../db/schema.ts";
import { Body, CursorQuery, Id, Timestamp } from "../../lib/http/schemas.ts";
import { Email } from "../accounts/accounts-schemas.ts";

const Phone = Type.String({
  pattern: "^\\+?[0-9 ()-]{4,30}$",
  maxLength: 32,
  examples: ["+966 50 123 4567"],
});

export const CreateCustomerBody = Body({
  email: Email,
  firstName: Type.String({ minLength: 1, maxLength: 100, examples: ["Layla"] }),
  lastName: Type.Optional(Type.String({ maxLength: 100, examples: ["Haddad"] })),
  phone: Type.Optional(Type.Union([Phone, Type.Null()])),
});

export const CustomerResource = Type.Object(
  {
    id: Id("customer"),
    email: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    phone: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: "Customer" },
);

export const CustomerListQuery = Type.Object({ ...CursorQuery }, { additionalProperties: false });
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
  };
}
