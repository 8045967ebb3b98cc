import Type, { type Static } from "typebox";
import { CustomerResource, Email, FirstName, LastName, Phone } from "../../contracts/index.ts";
import type { Customer } from "../../db/schema.ts";
import { Body, CursorQuery, Id } from "../../lib/http/schemas.ts";

export { CustomerResource };

export const CreateCustomerBody = Body({
  email: Email,
  firstName: FirstName,
  lastName: Type.Optional(LastName),
  phone: Type.Optional(Type.Union([Phone, Type.Null()])),
});

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

export type CreateCustomerInput = Static<typeof CreateCustomerBody>;
