import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Type, { type TSchema } from "typebox";
import { Value } from "typebox/value";
import { Money } from "../../../contracts/fields.ts";
import {
  EVENT,
  EVENT_BY_NAME,
  EVENT_DATA_RECORD,
  EVENT_NAMES,
  EVENT_PAYLOADS,
  type EventName,
  idPattern,
  ORDER_STATUSES,
} from "../../../contracts/index.ts";
import { CustomerResource, Id, LineItemResource, OrderResource } from "../../../contracts/resources.ts";
import { type StoreSample, TEST_ORDER_NUMBER_GAP, testEventData } from "./test-events.ts";

const NOW = new Date("2026-11-26T09:30:00.000Z");

const SAMPLE: StoreSample = {
  currency: "SAR",
  highestOrderNumber: 1041,
  products: [
    { title: "Oud Perfume 50 ml", sku: "OUD-50", priceMinor: 24900 },
    { title: "Dates Gift Box", sku: null, priceMinor: 8950 },
    { title: "Prayer Rug", sku: "RUG-01", priceMinor: 15000 },
  ],
  app: { clientId: "mpc_7Hc2Qm9XwLp4Rt8VbN3kZs6Y", name: "Fulfilment Bridge" },
  store: { name: "Oud House", slug: "oud-house" },
};

/** A deterministic random source: the same sequence every run. */
function seeded(seed = 7) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema walked as data.
type Json = Record<string, any>;

/** The schema with no additional properties anywhere: a payload checks against it only if it has exactly the schema's fields. */
function exact(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(exact);
  if (!schema || typeof schema !== "object") return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) out[k] = typeof v === "object" ? exact(v) : v;
  if (out.type === "object" && out.properties) out.additionalProperties = false;
  return out;
}

/** Every string leaf of a value. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === "object") return Object.values(value).flatMap(strings);
  return [];
}

function build(event: EventName, sample = SAMPLE, random = seeded()) {
  return testEventData(event, sample, { now: NOW, random });
}

describe("test event data", () => {
  it("has exactly the payload schema of every event, with no placeholder text", () => {
    for (const event of EVENT_NAMES) {
      const { data, resourceId } = build(event);
      const schema = EVENT_PAYLOADS[EVENT_BY_NAME[event].data];
      const errors = [...Value.Errors(exact(schema) as TSchema, data)].map(
        (e) => `${e.instancePath} ${e.message}`,
      );
      assert.deepEqual(errors, [], `${event}: ${JSON.stringify(data)}`);
      for (const text of strings(data)) {
        assert.doesNotMatch(text, /^(string\w*|Test\b.*)$/, `${event}: a placeholder "${text}"`);
        assert.ok(
          !text.includes("7Hc2Qm9XwLp4Rt8VbN3kZs") || text === SAMPLE.app.clientId,
          `${event}: an example id`,
        );
      }
      // A refund's, a return's or an edit's event is about its order (EVENT_DATA_RECORD), as the real ones are.
      if (EVENT_DATA_RECORD[EVENT_BY_NAME[event].data] === "order" && "orderId" in data)
        assert.equal(resourceId, data.orderId);
      else if (event !== EVENT.appUninstalled && event !== EVENT.shopRedact)
        assert.equal(resourceId, data.id ?? data.subscriptionId ?? data.customerId);
    }
  });

  it("makes an order of the store: its currency, its products, totals that add up, the event's status, a number no order has", () => {
    for (const event of EVENT_NAMES.filter((e) => EVENT_BY_NAME[e].data === "order")) {
      for (let run = 0; run < 20; run++) {
        const { data } = build(event, SAMPLE, seeded(run + 1));
        const order = data as Json;
        assert.equal(order.currency, "SAR");
        // A status event's order is in that status; order.updated implies none.
        if (Object.values(ORDER_STATUSES).some((s) => s.event === event))
          assert.equal(ORDER_STATUSES[order.status as keyof typeof ORDER_STATUSES].event, event);
        assert.ok(order.number > SAMPLE.highestOrderNumber + TEST_ORDER_NUMBER_GAP, String(order.number));
        assert.ok(order.number <= SAMPLE.highestOrderNumber + TEST_ORDER_NUMBER_GAP + 9000);
        assert.match(order.id, new RegExp(idPattern("order")));
        assert.match(order.customerId, new RegExp(idPattern("customer")));
        assert.ok(order.lineItems.length >= 1 && order.lineItems.length <= 3);
        let sum = 0;
        for (const item of order.lineItems as Json[]) {
          const product = SAMPLE.products.find((p) => p.title === item.title);
          assert.ok(product, `a line item from the store's products: ${item.title}`);
          assert.equal(item.sku, product.sku);
          assert.equal(item.unitPrice, (product.priceMinor / 100).toFixed(2));
          assert.equal(item.total, ((product.priceMinor * item.quantity) / 100).toFixed(2));
          assert.match(item.id, new RegExp(idPattern("lineItem")));
          assert.match(item.productId, new RegExp(idPattern("product")), "a fresh id, not the product's");
          sum += product.priceMinor * item.quantity;
        }
        assert.equal(order.subtotal, (sum / 100).toFixed(2));
        assert.equal(order.total, order.subtotal);
        assert.equal(new Set((order.lineItems as Json[]).map((i) => i.title)).size, order.lineItems.length);
        if (event === EVENT.orderCreated) assert.equal(order.createdAt, NOW.toISOString());
        else
          assert.ok(Date.parse(order.createdAt) < NOW.getTime(), "an order that moved on was placed before");
        assert.equal(order.updatedAt, NOW.toISOString());
      }
    }
  });

  it("fresh ids each time", () => {
    const a = build(EVENT.orderPaid).data as Json;
    const b = build(EVENT.orderPaid).data as Json;
    assert.notEqual(a.id, b.id);
    assert.notEqual(a.customerId, b.customerId);
    assert.notEqual(a.lineItems[0].id, b.lineItems[0].id);
  });

  it("a store without products gets plausible ones, priced with its currency's decimals", () => {
    for (const [currency, pattern] of [
      ["USD", /^\d+\.\d{2}$/],
      ["JPY", /^\d+$/],
      ["KWD", /^\d+\.\d{3}$/],
    ] as const) {
      const order = build(EVENT.orderCreated, { ...SAMPLE, currency, products: [], highestOrderNumber: 0 })
        .data as Json;
      assert.equal(order.currency, currency);
      assert.ok(order.number > TEST_ORDER_NUMBER_GAP);
      for (const item of order.lineItems as Json[]) {
        assert.match(item.title, /^[A-Z][a-z]+( [A-Z0-9][\w-]*)+$/);
        assert.match(item.unitPrice, pattern, `${currency} ${item.unitPrice}`);
        assert.ok(Number(item.unitPrice) > 0);
      }
      assert.match(order.subtotal, pattern);
    }
  });

  it("a customer is a made-up person at example.com; a product is in the store's currency; app/uninstalled names the app", () => {
    const customer = build(EVENT.customerCreated).data as Json;
    assert.match(customer.email, /^[a-z]+\.[a-z]+@example\.com$/);
    assert.equal(customer.email, `${customer.firstName}.${customer.lastName}@example.com`.toLowerCase());
    assert.equal(customer.anonymizedAt, null);
    assert.ok(customer.phone);
    const product = build(EVENT.productUpdated).data as Json;
    assert.equal(product.currency, "SAR");
    assert.match(product.variants[0].price, /^\d+\.\d{2}$/);
    assert.equal(product.priceRange.min, product.variants[0].price);
    assert.ok(product.title && product.variants[0].sku && product.description);
    const uninstalled = build(EVENT.appUninstalled).data as Json;
    assert.deepEqual(uninstalled, {
      clientId: SAMPLE.app.clientId,
      appName: SAMPLE.app.name,
      uninstalledAt: NOW.toISOString(),
    });
  });

  it("follows a payload schema that grows: new fields are filled from their declaration, consistent, and checked", () => {
    const Address = Type.Object({
      name: Type.String(),
      company: Type.Union([Type.String(), Type.Null()]),
      line1: Type.String(),
      line2: Type.Union([Type.String(), Type.Null()]),
      city: Type.String(),
      postalCode: Type.Union([Type.String(), Type.Null()]),
      country: Type.Enum(["DE", "SA", "US"], { type: "string" }),
      phone: Type.Union([Type.String(), Type.Null()]),
    });
    const Fulfillment = Type.Object({
      carrier: Type.Union([Type.String({ examples: ["DHL Express"] }), Type.Null()]),
      trackingNumber: Type.Union([Type.String(), Type.Null()]),
      shippedAt: Type.String({ format: "date-time" }),
    });
    const GrownOrder = Type.Object({
      ...OrderResource.properties,
      name: Type.String({ examples: ["#1001"] }),
      tags: Type.Array(Type.String()),
      shippingAddress: Type.Union([Address, Type.Null()]),
      fulfillment: Type.Union([Fulfillment, Type.Null()]),
      shippingTotal: Money,
      giftMessage: Type.String({ maxLength: 200 }),
      placedBy: Id("account"),
      metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
      lineItems: Type.Array(Type.Object({ ...LineItemResource.properties, weightGrams: Type.Integer() })),
    });
    const GrownCustomer = Type.Object({
      ...CustomerResource.properties,
      addresses: Type.Array(Address),
      defaultAddress: Type.Union([Address, Type.Null()]),
    });
    const payloads = { ...EVENT_PAYLOADS, order: GrownOrder, customer: GrownCustomer } as Record<
      keyof typeof EVENT_PAYLOADS,
      TSchema
    >;
    const pending = testEventData(EVENT.orderCreated, SAMPLE, { now: NOW, random: seeded(), payloads })
      .data as Json;
    assert.ok(Value.Check(exact(GrownOrder) as TSchema, pending), JSON.stringify(pending));
    assert.equal(pending.name, `#${pending.number}`);
    assert.deepEqual(pending.tags, []);
    assert.equal(pending.fulfillment, null, "a pending order has not shipped");
    assert.equal(pending.shippingTotal, "0.00", "an unknown amount is zero: the total still adds up");
    assert.equal(pending.giftMessage, "Test gift message", "an unknown text says what it is");
    assert.match(pending.placedBy, new RegExp(idPattern("account")));
    assert.equal("metadata" in pending, false, "optional fields are left out");
    assert.deepEqual(pending.shippingAddress, {
      name: "Layla Haddad",
      company: null,
      line1: "King Fahd Road 12",
      line2: null,
      city: "Riyadh",
      postalCode: "12211",
      country: "SA",
      phone: "+966 50 123 4567",
    });
    assert.ok(pending.lineItems.every((i: Json) => i.weightGrams === 1));
    const shipped = testEventData(EVENT.orderShipped, SAMPLE, { now: NOW, random: seeded(), payloads })
      .data as Json;
    assert.ok(Value.Check(exact(GrownOrder) as TSchema, shipped));
    assert.equal(shipped.fulfillment.carrier, "DHL Express");
    assert.ok(Date.parse(shipped.fulfillment.shippedAt) <= NOW.getTime());

    const customer = testEventData(
      EVENT.customerCreated,
      { ...SAMPLE, currency: "EUR" },
      {
        now: NOW,
        payloads,
      },
    ).data as Json;
    assert.ok(Value.Check(exact(GrownCustomer) as TSchema, customer));
    assert.equal(customer.addresses.length, 1);
    assert.deepEqual(customer.defaultAddress, customer.addresses[0], "one person, one address");
    assert.equal(customer.defaultAddress.name, `${customer.firstName} ${customer.lastName}`);
    assert.equal(customer.defaultAddress.country, "DE");
  });

  it("refuses a schema it cannot fill instead of sending a placeholder", () => {
    const payloads = {
      ...EVENT_PAYLOADS,
      product: Type.Object({ id: Id("product"), code: Type.String({ pattern: "^[X]{3}-[0-9]{4}$" }) }),
    } as Record<keyof typeof EVENT_PAYLOADS, TSchema>;
    assert.throws(
      () => testEventData(EVENT.productCreated, SAMPLE, { now: NOW, payloads }),
      /test product\.created data does not fit its schema: \/code/,
    );
  });
});
