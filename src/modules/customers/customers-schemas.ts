import Type, { type Static } from "typebox";
import {
  AddressInput,
  CustomerNote,
  CustomerResource,
  Email,
  eraseAppMetadata,
  eraseRecord,
  exampleId,
  FirstName,
  idPattern,
  LastName,
  MAX_CUSTOMER_ADDRESSES,
  MetadataInput,
  Phone,
  SearchText,
  Tags,
} from "../../contracts/index.ts";
import type { Customer } from "../../db/schema.ts";
import { Body, CursorQuery, Id } from "../../lib/http/schemas.ts";
import { isoString } from "../../lib/iso-string.ts";
import { formatMinorUnits } from "../../lib/money.ts";
import { CREATED_AND_UPDATED, SortParam, type SortTable } from "../../lib/pagination.ts";
import { toAddress } from "../addresses/addresses.ts";
import { forViewer, type Viewer } from "../app-metadata/app-metadata.ts";
import { type CustomerChanges, NO_ORDERS, type OrderFigures } from "./customers-repo.ts";

export { CustomerResource };

const Addresses = Type.Array(AddressInput, {
  maxItems: MAX_CUSTOMER_ADDRESSES,
  description: `At most ${MAX_CUSTOMER_ADDRESSES}; the first is the default shipping address. The list replaces the customer's addresses.`,
});

const TaxExempt = Type.Boolean({ description: "Orders placed for this customer carry no tax." });

const createFields = {
  email: Email,
  firstName: FirstName,
  lastName: Type.Optional(LastName),
  phone: Type.Optional(Type.Union([Phone, Type.Null()])),
  addresses: Type.Optional(Addresses),
  note: Type.Optional(CustomerNote),
  tags: Type.Optional(Tags),
  taxExempt: Type.Optional(TaxExempt),
};
export const CreateCustomerBody = Body(createFields);
/** The Admin API's create: the same, and the app's own metadata. */
export const AdminCreateCustomerBody = Body({ ...createFields, metadata: Type.Optional(MetadataInput) });

const updateFields = {
  email: Type.Optional(Email),
  firstName: Type.Optional(FirstName),
  lastName: Type.Optional(LastName),
  phone: Type.Optional(Type.Union([Phone, Type.Null()])),
  addresses: Type.Optional(Addresses),
  note: Type.Optional(CustomerNote),
  tags: Type.Optional(Tags),
  taxExempt: Type.Optional(TaxExempt),
};
export const UpdateCustomerBody = Type.Object(updateFields, {
  additionalProperties: false,
  minProperties: 1,
});
export const AdminUpdateCustomerBody = Type.Object(
  { ...updateFields, metadata: Type.Optional(MetadataInput) },
  { additionalProperties: false, minProperties: 1 },
);

/** What a customer list can be sorted by (each backed by an index with store_id leading). */
export const CUSTOMER_SORTS = {
  ...CREATED_AND_UPDATED,
  lastName: { column: "last_name", type: "text" },
  email: { column: "email", type: "text" },
} as const satisfies SortTable;

/** How many ids a list's `ids` filter takes (a page of the dashboard's lists, and more). */
const MAX_LISTED_IDS = 100;
/** One customer id in the `ids` filter's pattern (the id's own pattern, unanchored). */
const ID_ONE = idPattern("customer").slice(1, -1);

export const CustomerListQuery = Type.Object(
  {
    ...CursorQuery,
    q: Type.Optional({
      ...SearchText,
      description: "Customers whose e-mail address or full name contains this text.",
    }),
    ids: Type.Optional(
      Type.String({
        pattern: `^${ID_ONE}(,${ID_ONE}){0,${MAX_LISTED_IDS - 1}}$`,
        maxLength: MAX_LISTED_IDS * 64,
        description: `Only these customers: up to ${MAX_LISTED_IDS} ids, comma-separated (the customers of a page of orders, say). Ids of no customer of the store are left out.`,
        examples: [`${exampleId("customer")},${exampleId("customer").replace("7", "8")}`],
      }),
    ),
    sort: Type.Optional(
      SortParam(CUSTOMER_SORTS, "Order of the list: by creation, last change, last name or e-mail."),
    ),
  },
  { additionalProperties: false },
);
export const CustomerIdParam = { id: Id("customer") };

/**
 * The customer as the APIs show them, with their orders' figures (`orderFigures`) in the store's
 * currency.
 */
export function toCustomerResource(c: Customer, figures: OrderFigures, currency: string, viewer?: Viewer) {
  const addresses = (c.addresses ?? []).map(toAddress);
  return forViewer(
    {
      id: c.id,
      email: c.email,
      firstName: c.first_name,
      lastName: c.last_name,
      phone: c.phone,
      addresses,
      defaultAddress: addresses[0] ?? null,
      note: c.note,
      tags: [...(c.tags ?? [])],
      taxExempt: c.tax_exempt,
      ordersCount: figures.orders,
      amountSpent: formatMinorUnits(figures.spentMinor, currency),
      createdAt: isoString(c.created_at),
      updatedAt: isoString(c.updated_at),
      anonymizedAt: c.anonymized_at ? isoString(c.anonymized_at) : null,
    },
    c.metadata,
    viewer,
  );
}

/**
 * An erased customer's columns: the contract's rule (contracts/erasure.ts) applied to the customer
 * as the APIs show them, written back. The events and stored answers that held the customer are
 * erased by the same rule, so the row and every copy read alike.
 */
export function erasedCustomerColumns(c: Customer) {
  // The figures are kept by the rule; only the personal fields are written back.
  const erased = eraseRecord("customer", toCustomerResource(c, NO_ORDERS, "USD"), c.id);
  return {
    email: erased.email,
    first_name: erased.firstName,
    last_name: erased.lastName,
    phone: erased.phone,
    addresses: erased.addresses,
    note: erased.note,
    tags: erased.tags,
    metadata: eraseAppMetadata("customer", c.metadata) ?? {},
  } satisfies Partial<CustomerChanges>;
}

/** What a create or an update may carry, from any family (the dashboard's bodies have no metadata). */
export type CustomerInput = Partial<Static<typeof AdminUpdateCustomerBody>>;
export type CreateCustomerInput = Static<typeof AdminCreateCustomerBody>;
export type UpdateCustomerInput = CustomerInput;

export const CustomerStats = Type.Object(
  {
    ordersCount: Type.Integer(),
    totalSpent: Type.String({ description: "Total of the customer's orders that were not cancelled." }),
    currency: Type.String(),
    lastOrderAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  },
  { title: "CustomerStats" },
);
