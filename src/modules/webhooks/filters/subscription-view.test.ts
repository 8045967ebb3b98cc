import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EVENT } from "../../../contracts/index.ts";
import { AppError } from "../../../lib/errors.ts";
import { checkSubscriptionView, createFilterCache } from "./subscription-view.ts";

/** The 400's one detail, or a failure when the check accepts. */
function refusal(
  input: { filter?: string; fields?: string[] },
  event: Parameters<typeof checkSubscriptionView>[0] = EVENT.orderPaid,
) {
  try {
    checkSubscriptionView(event, input);
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, "VALIDATION_FAILED");
    const details = error.details as Array<{ field: string; message: string }>;
    assert.equal(details.length, 1);
    return { summary: error.message, ...details[0]! };
  }
  assert.fail(`accepted ${JSON.stringify(input)}`);
}

describe("a subscription's filter and fields, checked against the event's data", () => {
  it("accepts fields the event carries, nested through objects (metadata too)", () => {
    assert.deepEqual(
      checkSubscriptionView(EVENT.orderPaid, {
        filter:
          'status:[paid,confirmed] AND total:>100 AND shippingAddress.country:DE AND metadata.erpId:"X 1" AND fulfillment:null',
        fields: ["total", "status", "id"],
      }),
      {
        filter:
          'status:[paid,confirmed] AND total:>100 AND shippingAddress.country:DE AND metadata.erpId:"X 1" AND fulfillment:null',
        fields: ["total", "status", "id"],
      },
    );
    assert.deepEqual(checkSubscriptionView(EVENT.customerCreated, { filter: "email:a@example.com" }), {
      filter: "email:a@example.com",
      fields: null,
    });
    assert.deepEqual(checkSubscriptionView(EVENT.appUninstalled, { fields: ["appName"] }), {
      filter: null,
      fields: ["appName"],
    });
    assert.deepEqual(checkSubscriptionView(EVENT.orderPaid, {}), { filter: null, fields: null });
  });

  it("accepts every example docs/app-developers.md gives", () => {
    const examples: Array<[Parameters<typeof checkSubscriptionView>[0], string]> = [
      [EVENT.orderPaid, "status:paid AND total:>100"],
      [EVENT.orderPaid, "status:!=cancelled"],
      [EVENT.orderPaid, "total:>=100 OR total:<10.5 OR total:<=10"],
      [EVENT.orderPaid, "status:[paid,confirmed]"],
      [EVENT.orderPaid, "shippingAddress.country:DE"],
      [EVENT.orderPaid, "metadata.erpId:X1"],
      [EVENT.orderPaid, "shippingAddress:null"],
      [EVENT.orderPaid, "status:[shipped,delivered] AND shippingAddress.country:[DE,AT]"],
      [EVENT.orderPaid, "currency:EUR AND total:>=50"],
      [EVENT.customerUpdated, "phone:!=null"],
      [EVENT.customerUpdated, 'email:"a b@example.com"'],
      [EVENT.productUpdated, "totalAvailable:<5 AND status:active"],
    ];
    for (const [event, filter] of examples)
      assert.equal(checkSubscriptionView(event, { filter }).filter, filter, filter);
  });

  it("says where a filter stops making sense (1-based character)", () => {
    const r = refusal({ filter: "status:paid AND total:>x" });
    assert.equal(r.field, "filter");
    assert.match(r.message, /at character 23/);
    assert.match(r.message, /compares numbers/);
    assert.match(refusal({ filter: "status:paid total:>1" }).message, /at character 13/);
  });

  it("names a field the event does not carry, with the fields it does", () => {
    const r = refusal({ filter: "status:paid AND totl:>1" });
    assert.equal(r.field, "filter");
    assert.match(r.message, /"totl" is not a field of order\.paid's data/);
    assert.match(r.message, /subtotal, discounts, shipping, tax, taxIncluded, total/);
    assert.match(refusal({ filter: "shippingAddress.zip:1" }).message, /"shippingAddress" has: name/);
    assert.match(refusal({ filter: "total:>1" }, EVENT.customerCreated).message, /customer\.created/);
  });

  it("refuses lists, whole objects and values a fixed field never holds", () => {
    assert.match(refusal({ filter: "lineItems.sku:A1" }).message, /"lineItems" is a list/);
    assert.match(refusal({ filter: "tags:vip" }).message, /"tags" is a list/);
    assert.match(refusal({ filter: "metadata:x" }).message, /"metadata" is an object/);
    assert.match(
      refusal({ filter: "status:payed" }).message,
      /"payed" is not a value of "status" \(one of pending, paid/,
    );
    assert.match(refusal({ filter: "status:[paid,nope]" }).message, /"nope"/);
    assert.match(refusal({ filter: "status:>1" }).message, /fixed set of values/);
    assert.match(refusal({ filter: "fulfillment:DHL" }).message, /one of null/);
    assert.match(refusal({ filter: "shippingAddress.country:XX" }).message, /one of its \d+ values/);
  });

  it("fields are top-level names of the data", () => {
    const nested = refusal({ fields: ["total", "shippingAddress.country"] });
    assert.equal(nested.field, "fields.1");
    assert.match(nested.message, /ask for "shippingAddress"/);
    const unknown = refusal({ fields: ["totl"] });
    assert.equal(unknown.field, "fields.0");
    assert.match(unknown.message, /"totl" is not a field of order\.paid's data/);
  });

  it("at dispatch: no filter receives everything, a stored filter that no longer parses too, never throws", () => {
    const cache = createFilterCache(2);
    assert.equal(cache.receives(null, { status: "paid" }), true);
    assert.equal(cache.receives("status:paid", { status: "paid" }), true);
    assert.equal(cache.receives("status:paid", { status: "pending" }), false);
    assert.equal(cache.receives("status:paid AND", { status: "pending" }), true, "unparseable: let through");
    assert.equal(cache.receives("total:>1", null), false);
    assert.equal(cache.receives("total:>1", "text"), false);
  });
});
