import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { erasedEmail, exampleId } from "../../contracts/index.ts";
import { erasedAnswer } from "./idempotency-erasure.ts";

const CUSTOMER_ID = exampleId("customer");
const ORDER_ID = exampleId("order");

describe("idempotent answers naming a customer (idempotency-erasure.ts)", () => {
  it("a customer's create: the customer, and the answer erased by the contract's rule, envelope and key order kept", () => {
    const body = JSON.stringify({
      success: true,
      data: {
        id: CUSTOMER_ID,
        email: "layla@example.com",
        firstName: "Layla",
        phone: "+966 50 1",
        tags: ["vip"],
      },
    });
    const erased = erasedAnswer(body)!;
    assert.equal(erased.customerId, CUSTOMER_ID);
    assert.equal(
      erased.body,
      JSON.stringify({
        success: true,
        data: {
          id: CUSTOMER_ID,
          email: erasedEmail(CUSTOMER_ID),
          firstName: "Deleted",
          phone: null,
          tags: [],
        },
      }),
    );
  });

  it("an order's create: its customer, its address down to the city", () => {
    const body = JSON.stringify({
      success: true,
      data: {
        id: ORDER_ID,
        customerId: CUSTOMER_ID,
        total: "9.00",
        note: "ring twice",
        shippingAddress: { name: "Layla", line1: "King Fahd Road 12", city: "Riyadh", country: "SA" },
      },
    });
    const erased = erasedAnswer(body)!;
    assert.equal(erased.customerId, CUSTOMER_ID);
    const data = JSON.parse(erased.body).data;
    assert.deepEqual(
      [data.total, data.note, data.shippingAddress.line1, data.shippingAddress.city],
      ["9.00", "", "", "Riyadh"],
    );
  });

  it("any other answer names no one", () => {
    for (const body of [
      JSON.stringify({ success: true, data: { id: exampleId("product"), title: "Mug" } }),
      JSON.stringify({ success: false, error: { code: "CONFLICT" } }),
      JSON.stringify({ success: true, data: [{ id: CUSTOMER_ID }] }),
      JSON.stringify([1]),
      "null",
      "not json",
    ])
      assert.equal(erasedAnswer(body), null, body);
  });
});
