import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ERASURE,
  erasableKindOf,
  erasableRecordOf,
  eraseAppMetadata,
  erasedEmail,
  eraseRecord,
} from "./erasure.ts";
import { CustomerResource, exampleId, OrderResource } from "./resources.ts";

const CUSTOMER_ID = exampleId("customer");
const ORDER_ID = exampleId("order");
const ADDRESS = {
  name: "Layla Haddad",
  company: "Haddad Trading",
  line1: "King Fahd Road 12",
  line2: "Floor 3",
  city: "Riyadh",
  region: "Riyadh Province",
  postalCode: "12271",
  country: "SA",
  phone: "+966 50 123 4567",
};
const CUSTOMER = {
  id: CUSTOMER_ID,
  email: "layla@example.com",
  firstName: "Layla",
  lastName: "Haddad",
  phone: "+966 50 123 4567",
  addresses: [ADDRESS],
  defaultAddress: ADDRESS,
  note: "Call first",
  tags: ["vip"],
  createdAt: "2026-11-20T10:00:00.000Z",
  updatedAt: "2026-11-21T10:00:00.000Z",
  anonymizedAt: null,
  metadata: { crmName: "Layla H." },
};
const ORDER = {
  id: ORDER_ID,
  number: 1001,
  name: "#1001",
  status: "shipped",
  customerId: CUSTOMER_ID,
  currency: "SAR",
  subtotal: "24.00",
  total: "24.00",
  note: "Leave with the neighbour",
  tags: ["gift"],
  shippingAddress: ADDRESS,
  fulfillment: {
    carrier: "DHL Express",
    trackingNumber: "1Z999",
    trackingUrl: "https://t.example/1Z999",
    shippedAt: "2026-11-22T10:00:00.000Z",
  },
  lineItems: [
    { id: "li_1", productId: null, title: "Mug", sku: null, unitPrice: "12.00", quantity: 2, total: "24.00" },
  ],
  createdAt: "2026-11-20T10:00:00.000Z",
  updatedAt: "2026-11-22T10:00:00.000Z",
  metadata: { erpId: "ERP-1" },
};

describe("erasure rule (contracts/erasure.ts)", () => {
  it("a customer keeps their id and dates; everything about the person is erased, as the anonymised row reads", () => {
    assert.deepEqual(eraseRecord("customer", CUSTOMER, CUSTOMER_ID), {
      id: CUSTOMER_ID,
      email: `deleted-${CUSTOMER_ID}@anonymized.invalid`,
      firstName: "Deleted",
      lastName: "customer",
      phone: null,
      addresses: [],
      defaultAddress: null,
      note: "",
      tags: [],
      createdAt: CUSTOMER.createdAt,
      updatedAt: CUSTOMER.updatedAt,
      anonymizedAt: null,
      metadata: {},
    });
    assert.equal(erasedEmail(CUSTOMER_ID), `deleted-${CUSTOMER_ID}@anonymized.invalid`);
  });

  it("an order keeps what accounting needs: amounts, lines, status, carrier, and where it went down to the city", () => {
    assert.deepEqual(eraseRecord("order", ORDER, ORDER_ID), {
      ...ORDER,
      note: "",
      shippingAddress: {
        name: "",
        company: null,
        line1: "",
        line2: null,
        city: "Riyadh",
        region: "Riyadh Province",
        postalCode: "12271",
        country: "SA",
        phone: null,
      },
      fulfillment: {
        carrier: "DHL Express",
        trackingNumber: null,
        trackingUrl: null,
        shippedAt: "2026-11-22T10:00:00.000Z",
      },
    });
  });

  it("part of a record (a subscription's field list): only the fields there are erased, none is added", () => {
    assert.deepEqual(eraseRecord("customer", { id: CUSTOMER_ID, email: "layla@example.com" }, CUSTOMER_ID), {
      id: CUSTOMER_ID,
      email: `deleted-${CUSTOMER_ID}@anonymized.invalid`,
    });
    assert.deepEqual(eraseRecord("customer", { id: CUSTOMER_ID, addresses: [ADDRESS] }, CUSTOMER_ID), {
      id: CUSTOMER_ID,
      addresses: [],
    });
    assert.deepEqual(eraseRecord("order", { id: ORDER_ID, total: "24.00" }, ORDER_ID), {
      id: ORDER_ID,
      total: "24.00",
    });
    // Even without its id (never sent so, but the rule does not rely on it): the id is given.
    assert.deepEqual(eraseRecord("customer", { email: "x@example.com" }, CUSTOMER_ID), {
      email: erasedEmail(CUSTOMER_ID),
    });
  });

  it("nulls stay null, and parts an older payload lacked stay absent or become null", () => {
    const bare = { ...ORDER, shippingAddress: null, fulfillment: null };
    assert.deepEqual(eraseRecord("order", bare, ORDER_ID), { ...bare, note: "" });
    const sparse = eraseRecord(
      "order",
      {
        id: ORDER_ID,
        shippingAddress: { name: "L", line1: "Street 1", city: "Jeddah", country: "SA" },
        fulfillment: { carrier: null, trackingNumber: "T", shippedAt: "2026-11-22T10:00:00.000Z" },
      },
      ORDER_ID,
    );
    assert.deepEqual(sparse.shippingAddress, {
      name: "",
      company: null,
      line1: "",
      line2: null,
      city: "Jeddah",
      region: null,
      postalCode: null,
      country: "SA",
      phone: null,
    });
    assert.deepEqual(sparse.fulfillment, {
      carrier: null,
      trackingNumber: null,
      trackingUrl: null,
      shippedAt: "2026-11-22T10:00:00.000Z",
    });
    assert.deepEqual(
      eraseRecord("customer", { ...CUSTOMER, phone: null, defaultAddress: null }, CUSTOMER_ID),
      {
        ...eraseRecord("customer", CUSTOMER, CUSTOMER_ID),
      },
    );
  });

  it("a field the rule does not know (a payload of another version) passes; the input is not changed", () => {
    const input = { ...CUSTOMER, loyaltyTier: "gold" };
    const before = structuredClone(input);
    const erased = eraseRecord("customer", input, CUSTOMER_ID);
    assert.equal(erased.loyaltyTier, "gold");
    assert.deepEqual(input, before);
  });

  it("erasing twice is erasing once", () => {
    const once = eraseRecord("customer", CUSTOMER, CUSTOMER_ID);
    assert.deepEqual(eraseRecord("customer", once, CUSTOMER_ID), once);
    const order = eraseRecord("order", ORDER, ORDER_ID);
    assert.deepEqual(eraseRecord("order", order, ORDER_ID), order);
  });

  it("what is not a record is answered as it is; kinds without personal data are not touched", () => {
    for (const value of [null, undefined, "text", 3, [CUSTOMER]])
      assert.deepEqual(eraseRecord("customer", value, CUSTOMER_ID), value);
    const product = { id: exampleId("product"), title: "Layla's mug" };
    assert.equal(eraseRecord("product", product, product.id), product);
    const redact = { customerId: CUSTOMER_ID, orderIds: [ORDER_ID] };
    assert.equal(eraseRecord("customerRedact", redact, CUSTOMER_ID), redact);
  });

  it("app metadata: a customer's is emptied for every app, an order's kept, none stays none", () => {
    const all = { app_1: { crmName: "Layla" }, app_2: { erp: "7" } };
    assert.deepEqual(eraseAppMetadata("customer", all), {});
    assert.equal(eraseAppMetadata("customer", null), null);
    assert.equal(eraseAppMetadata("order", all), all);
    assert.equal(eraseAppMetadata("product", all), all);
  });

  it("every field of the public shapes is classified (the compiler holds the rule to them too)", () => {
    for (const [kind, schema] of [
      ["customer", CustomerResource],
      ["order", OrderResource],
    ] as const) {
      assert.deepEqual(
        Object.keys(ERASURE[kind]).sort(),
        Object.keys(schema.properties).sort(),
        `${kind}: the rule and the resource name the same fields`,
      );
    }
  });

  it("knows a customer's or an order's id, and the customer a record belongs to", () => {
    assert.equal(erasableKindOf(CUSTOMER_ID), "customer");
    assert.equal(erasableKindOf(ORDER_ID), "order");
    assert.equal(erasableKindOf(exampleId("product")), null);
    assert.equal(erasableKindOf("cust_x"), null);
    assert.deepEqual(erasableRecordOf(CUSTOMER), {
      kind: "customer",
      id: CUSTOMER_ID,
      customerId: CUSTOMER_ID,
    });
    assert.deepEqual(erasableRecordOf(ORDER), { kind: "order", id: ORDER_ID, customerId: CUSTOMER_ID });
    assert.equal(erasableRecordOf({ id: exampleId("product") }), null);
    assert.equal(erasableRecordOf({ id: ORDER_ID }), null, "an order without its customer");
    assert.equal(erasableRecordOf(null), null);
    assert.equal(erasableRecordOf("cus_x"), null);
  });
});
