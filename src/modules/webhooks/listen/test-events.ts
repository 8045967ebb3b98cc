import type { TSchema } from "typebox";
import { Value } from "typebox/value";
import {
  DiscountStatus,
  EVENT,
  EVENT_BY_NAME,
  EVENT_DATA_RECORD,
  EVENT_PAYLOADS,
  type EventDataKind,
  type EventName,
  FinancialStatus,
  ID_PREFIX,
  type IdKind,
  ORDER_STATUS_NAMES,
  ORDER_STATUSES,
  OrderStatus,
  ProductStatus,
  RETURN_STATUSES,
  ReturnStatus,
} from "../../../contracts/index.ts";
import { randomBase62 } from "../../../lib/crypto.ts";
import { newId } from "../../../lib/ids.ts";
import { currencyExponent, formatMinorUnits } from "../../../lib/money.ts";

/**
 * What a test event borrows from its store (read by test-events-repo.ts): its currency, where its
 * order numbers are, some of its products, and the calling app. Nothing personal: customers and
 * orders are never read, so a test event cannot leak one.
 */
export interface StoreSample {
  currency: string;
  /** The highest order number the store has given (its next number minus one). */
  highestOrderNumber: number;
  /** Some of the store's active products, to fill line items the way its real orders look. */
  products: ReadonlyArray<{ title: string; sku: string | null; priceMinor: number }>;
  /** The app the test event is for (an `app/uninstalled` test names it). */
  app: { clientId: string; name: string };
  /** The store's own name and slug (an event about the store's settings carries them). */
  store: { name: string; slug: string };
}

/**
 * Test order numbers start this far above the store's highest: never an existing order's number,
 * and not the one its next real orders will take either.
 */
export const TEST_ORDER_NUMBER_GAP = 1000;
/** ...and spread over this many numbers, so two test orders rarely share one. */
const TEST_ORDER_NUMBER_SPREAD = 9000;

/** Products a store without any of its own sells in a test order (prices in cents of a 2-decimal currency). */
const CATALOGUE = [
  {
    title: "Ceramic Coffee Mug",
    sku: "MUG-CER-350",
    cents: 1450,
    description: "Stoneware, 350 ml, dishwasher safe.",
  },
  {
    title: "Organic Cotton Tote Bag",
    sku: "BAG-TOTE-NAT",
    cents: 1900,
    description: "Natural canvas, 38 x 42 cm.",
  },
  {
    title: "Linen Notebook A5",
    sku: "NB-LIN-A5",
    cents: 1200,
    description: "120 dotted pages, lay-flat binding.",
  },
  { title: "Stainless Water Bottle", sku: "BTL-STL-750", cents: 2900, description: "Insulated, 750 ml." },
  { title: "Merino Wool Beanie", sku: "HAT-MER-GRY", cents: 3400, description: "Grey, one size." },
  { title: "Scented Soy Candle", sku: "CND-SOY-FIG", cents: 2250, description: "Fig and cedar, 40 hours." },
] as const;

/**
 * People of test customers and addresses, one per test event, so its names, e-mail address,
 * phone and address agree with each other. E-mail addresses are at example.com (reserved: an app
 * that mails a test customer reaches nobody); phone numbers are fictional.
 */
const PERSONAS = [
  {
    currencies: ["SAR"],
    firstName: "Layla",
    lastName: "Haddad",
    phone: "+966 50 123 4567",
    address: {
      line1: "King Fahd Road 12",
      city: "Riyadh",
      region: "Riyadh Province",
      postalCode: "12211",
      country: "SA",
    },
  },
  {
    currencies: ["EUR"],
    firstName: "Jonas",
    lastName: "Weber",
    phone: "+49 30 901820",
    address: { line1: "Kastanienallee 41", city: "Berlin", region: null, postalCode: "10435", country: "DE" },
  },
  {
    currencies: ["GBP"],
    firstName: "Amelia",
    lastName: "Clarke",
    phone: "+44 161 496 0000",
    address: { line1: "14 Deansgate", city: "Manchester", region: null, postalCode: "M3 2BW", country: "GB" },
  },
  {
    currencies: ["JPY"],
    firstName: "Aiko",
    lastName: "Tanaka",
    phone: "+81 6 1234 5678",
    address: { line1: "2-5-10 Namba", city: "Osaka", region: "Osaka", postalCode: "542-0076", country: "JP" },
  },
  {
    currencies: ["USD"],
    firstName: "Daniel",
    lastName: "Brooks",
    phone: "+1 503 555 0142",
    address: {
      line1: "1820 SE Belmont St",
      city: "Portland",
      region: "OR",
      postalCode: "97214",
      country: "US",
    },
  },
] as const;
type Persona = (typeof PERSONAS)[number];

/** An amount the builder does not know (a discount, a shipping fee added later): zero keeps totals adding up. */
const AMOUNT_KEY = /(price|total|amount|tax|discount|fee)$/i;

/** What every generated value of one event shares. */
interface Context {
  now: Date;
  currency: string;
  persona: Persona;
  random: () => number;
}

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema is walked as plain data.
type Json = Record<string, any>;

/**
 * A test event's `data`: the event's payload schema (EVENT_PAYLOADS) filled with values that look
 * like the store's own records. The order is in the store's currency with line items taken from
 * its products (or plausible ones), totals that add up, the status its event implies and a number
 * above any the store has given; customers are made-up people at example.com; every id is fresh
 * and nothing is read from or written to a real customer or order.
 *
 * Schema-driven, so it keeps up with the contract: what the builder knows for the kind (the seed)
 * is used where the schema has that field and the value fits it; every other field the schema
 * requires is made from the field's own declaration (an id pattern gets a fresh id, a date-time
 * the current time, a person's or an address's field the event's persona, then the schema's
 * `examples`, and last a value of the type), and optional fields are left out. The result is
 * checked against the schema: a schema this cannot fill is an error, never a placeholder.
 */
export function testEventData(
  event: EventName,
  sample: StoreSample,
  options: {
    now: Date;
    random?: () => number;
    /** The payload schemas (the contract's; another set to show the builder follows a changed one). */
    payloads?: Readonly<Record<EventDataKind, TSchema>>;
  },
): { resourceId: string; data: Record<string, unknown> } {
  const random = options.random ?? Math.random;
  const kind = EVENT_BY_NAME[event].data;
  const ctx: Context = {
    now: options.now,
    currency: sample.currency,
    persona: personaFor(sample.currency, random),
    random,
  };
  const schema = (options.payloads ?? EVENT_PAYLOADS)[kind];
  const seed = SEEDS[kind]?.(event, sample, ctx) ?? {};
  const data = fill(schema, seed, ctx, "", null) as Record<string, unknown>;
  if (!Value.Check(schema, data)) {
    const errors = [...Value.Errors(schema, data)]
      .slice(0, 5)
      .map((e) => `${e.instancePath || "/"} ${e.message}`);
    throw new Error(`test ${event} data does not fit its schema: ${errors.join("; ")}`);
  }
  // The record the event is about: its `id`, or the subscription a webhook.disabled names, or the
  // customer a privacy event names (as the real ones record it), or a fresh installation id
  // (app/uninstalled, shop.redact).
  const resourceId =
    // A refund's, a return's or an edit's event is about its order, as the real ones are.
    EVENT_DATA_RECORD[kind] === "order" && typeof data.orderId === "string"
      ? data.orderId
      : typeof data.id === "string"
        ? data.id
        : typeof data.subscriptionId === "string"
          ? data.subscriptionId
          : typeof data.customerId === "string"
            ? data.customerId
            : newId("installation");
  return { resourceId, data };
}

/**
 * What the builder knows for each kind of payload (events.ts names the kind of each event). A kind
 * not listed is filled from its schema alone; the unit test then finds any placeholder it made.
 */
const SEEDS: Record<string, (event: EventName, sample: StoreSample, ctx: Context) => Json> = {
  order: orderSeed,
  product: (_event, _sample, ctx) => productSeed(ctx),
  customer: (_event, _sample, ctx) => customerSeed(ctx),
  inventoryLevel: (_event, _sample, ctx) => {
    const stamp = ctx.now.toISOString();
    const [variantId, locationId] = [newId("variant"), newId("location")];
    return {
      id: newId("inventoryLevel"),
      variantId,
      productId: newId("product"),
      locationId,
      available: 18,
      committed: 2,
      unavailable: 0,
      onHand: 20,
      updatedAt: stamp,
      changes: [
        {
          id: newId("inventoryChange"),
          variantId,
          locationId,
          quantity: "available",
          delta: -2,
          quantityAfter: 18,
          reason: "correction",
          note: "Recount after the stocktake",
          actor: { kind: "system", id: null },
          orderId: null,
          createdAt: stamp,
        },
      ],
    };
  },
  location: (_event, _sample, ctx) => ({
    id: newId("location"),
    name: "Harbor Street warehouse",
    address: null,
    active: true,
    fulfilsOnlineOrders: true,
    createdAt: ctx.now.toISOString(),
    updatedAt: ctx.now.toISOString(),
  }),
  collection: (_event, _sample, ctx) => ({
    id: newId("collection"),
    title: "Summer picks",
    description: "Light things for warm days.",
    kind: "manual",
    match: null,
    rules: [],
    productsCount: 3,
    createdAt: ctx.now.toISOString(),
    updatedAt: ctx.now.toISOString(),
  }),
  discount: (_event, _sample, ctx) => ({
    id: newId("discount"),
    code: "WELCOME10",
    kind: "percentage",
    percentage: "10",
    value: null,
    allocation: "across",
    productIds: [],
    collectionIds: [],
    minimumSubtotal: null,
    minimumQuantity: null,
    startsAt: ctx.now.toISOString(),
    endsAt: null,
    usageLimit: 100,
    oncePerCustomer: true,
    combinable: false,
    status: DiscountStatus.active,
    timesUsed: 0,
    createdAt: ctx.now.toISOString(),
    updatedAt: ctx.now.toISOString(),
  }),
  // A refund of one unit of a made-up order, in the store's currency, without tax or shipping.
  refund: (_event, sample, ctx) => {
    const minor = sample.products[0]?.priceMinor ?? minorOf(1450, ctx.currency);
    const money = (m: number) => formatMinorUnits(m, ctx.currency);
    return {
      id: newId("refund"),
      orderId: newId("order"),
      customerId: newId("customer"),
      currency: ctx.currency,
      lineItems: [
        {
          lineItemId: newId("lineItem"),
          quantity: 1,
          subtotal: money(minor),
          discount: money(0),
          tax: money(0),
          amount: money(minor),
          restock: false,
        },
      ],
      shipping: money(0),
      tax: money(0),
      amount: money(minor),
      locationId: null,
      note: "Arrived damaged",
      createdAt: ctx.now.toISOString(),
    };
  },
  // A return of one unit of a made-up shipped order, at the step its event names.
  return: (event, _sample, ctx) => {
    const stamp = ctx.now.toISOString();
    const status =
      (Object.keys(RETURN_STATUSES) as ReturnStatus[]).find((s) => RETURN_STATUSES[s].event === event) ??
      ReturnStatus.requested;
    const earlier = new Date(ctx.now.getTime() - 24 * 3600_000).toISOString();
    return {
      id: newId("return"),
      orderId: newId("order"),
      customerId: newId("customer"),
      status,
      lineItems: [{ lineItemId: newId("lineItem"), quantity: 1, reason: "size_too_small" }],
      note: "",
      locationId:
        status === ReturnStatus.received || status === ReturnStatus.closed ? newId("location") : null,
      refundId: status === ReturnStatus.closed ? newId("refund") : null,
      requestedAt: status === ReturnStatus.requested ? stamp : earlier,
      approvedAt: status === ReturnStatus.requested || status === ReturnStatus.declined ? null : earlier,
      declinedAt: status === ReturnStatus.declined ? stamp : null,
      receivedAt: status === ReturnStatus.received || status === ReturnStatus.closed ? stamp : null,
      closedAt: status === ReturnStatus.closed ? stamp : null,
      updatedAt: stamp,
    };
  },
  // The store itself (its settings): its own name, slug and currency, which every installed app
  // may read; the id is fresh, as every test record's.
  // One more unit of one line of a made-up unpaid order, in the store's currency, no codes or shipping.
  orderEdit: (_event, sample, ctx) => {
    const minor = sample.products[0]?.priceMinor ?? minorOf(1450, ctx.currency);
    const money = (m: number) => formatMinorUnits(m, ctx.currency);
    const line = (quantity: number) => ({
      lineItemId,
      variantId: newId("variant"),
      title: sample.products[0]?.title ?? "Harbor shirt",
      variantTitle: "Default",
      sku: sample.products[0]?.sku ?? null,
      unitPrice: money(minor),
      quantity,
      total: money(minor * quantity),
    });
    const lineItemId = newId("lineItem");
    return {
      id: newId("orderEdit"),
      orderId: newId("order"),
      customerId: newId("customer"),
      currency: ctx.currency,
      lineItemsBefore: [line(1)],
      lineItemsAfter: [line(2)],
      discountCodesBefore: [],
      discountCodesAfter: [],
      shippingLinesBefore: [],
      shippingLinesAfter: [],
      totalBefore: money(minor),
      totalAfter: money(2 * minor),
      difference: money(minor),
      outstanding: money(0),
      note: "Customer asked for a second one",
      createdAt: ctx.now.toISOString(),
    };
  },
  store: (_event, sample, ctx) => ({
    name: sample.store.name,
    slug: sample.store.slug,
    currency: ctx.currency,
    updatedAt: ctx.now.toISOString(),
  }),
  uninstalled: (_event, sample, ctx) => ({
    clientId: sample.app.clientId,
    appName: sample.app.name,
    uninstalledAt: ctx.now.toISOString(),
  }),
  // A made-up customer with one to three made-up orders: fresh ids, as every test record's.
  customerRedact: (_event, _sample, ctx) => privacySeed(ctx),
  customerDataRequest: (_event, _sample, ctx) => ({
    ...privacySeed(ctx),
    requestedAt: ctx.now.toISOString(),
  }),
  // shop.redact comes SHOP_REDACT_DELAY_SECONDS (48 h by default) after the uninstall.
  shopRedact: (_event, sample, ctx) => ({
    clientId: sample.app.clientId,
    uninstalledAt: new Date(ctx.now.getTime() - 48 * 3600_000).toISOString(),
  }),
};

function privacySeed(ctx: Context): Json {
  const orders = 1 + Math.floor(ctx.random() * 3);
  return {
    customerId: newId("customer"),
    orderIds: Array.from({ length: orders }, () => newId("order")),
  };
}

/** The persona whose country uses the store's currency, else any. */
function personaFor(currency: string, random: () => number): Persona {
  return (
    PERSONAS.find((p) => (p.currencies as readonly string[]).includes(currency)) ??
    PERSONAS[Math.floor(random() * PERSONAS.length)]!
  );
}

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)]!;
}

/** Cents of a 2-decimal price as minor units of `currency` (1450 cents: 1450 yen, 14.500 dinars). */
function minorOf(cents: number, currency: string): number {
  const exponent = currencyExponent(currency);
  return exponent >= 2 ? cents * 10 ** (exponent - 2) : cents;
}

function orderSeed(event: EventName, sample: StoreSample, ctx: Context): Json {
  const { currency, random } = ctx;
  const status = ORDER_STATUS_NAMES.find((s) => ORDER_STATUSES[s].event === event) ?? OrderStatus.pending;
  const number =
    Math.max(0, sample.highestOrderNumber) +
    TEST_ORDER_NUMBER_GAP +
    1 +
    Math.floor(random() * TEST_ORDER_NUMBER_SPREAD);
  // Up to three different products, the store's own when it has some.
  const pool = sample.products.length
    ? sample.products.map((p) => ({ title: p.title, sku: p.sku, minor: p.priceMinor }))
    : CATALOGUE.map((p) => ({
        title: p.title,
        sku: p.sku as string | null,
        minor: minorOf(p.cents, currency),
      }));
  const count = Math.min(pool.length, 1 + Math.floor(random() * 3));
  // No discount, shipping or tax: the totals add up as the real ones do (subtotal − discounts + shipping + tax).
  const zero = formatMinorUnits(0, currency);
  const chosen = [...pool].sort(() => random() - 0.5).slice(0, count);
  const lineItems = chosen.map((p) => {
    const quantity = 1 + Math.floor(random() * 2);
    return {
      id: newId("lineItem"),
      productId: newId("product"),
      variantId: newId("variant"),
      title: p.title,
      variantTitle: "Default",
      sku: p.sku,
      unitPrice: formatMinorUnits(p.minor, currency),
      quantity,
      total: formatMinorUnits(p.minor * quantity, currency),
      discount: zero,
      discountAllocations: [],
      tax: zero,
      taxLines: [],
      refundedQuantity: 0,
    };
  });
  const subtotal = formatMinorUnits(
    chosen.reduce((sum, p, i) => sum + p.minor * lineItems[i]!.quantity, 0),
    currency,
  );
  // Only order.created is the moment of placing; an order that moved on or changed was placed before.
  const placedAt = event === EVENT.orderCreated ? ctx.now : new Date(ctx.now.getTime() - 2 * 3600_000);
  const shipped = status === OrderStatus.shipped || status === OrderStatus.delivered;
  return {
    id: newId("order"),
    number,
    status,
    customerId: newId("customer"),
    currency,
    subtotal,
    discounts: zero,
    shipping: zero,
    tax: zero,
    taxIncluded: zero,
    total: subtotal,
    refunded: zero,
    net: subtotal,
    taxesIncluded: false,
    financialStatus:
      status === OrderStatus.pending
        ? FinancialStatus.pending
        : status === OrderStatus.cancelled
          ? FinancialStatus.voided
          : FinancialStatus.paid,
    note: "",
    lineItems,
    shippingLines: [],
    discountApplications: [],
    taxLines: [],
    locationId: newId("location"),
    createdAt: placedAt.toISOString(),
    updatedAt: ctx.now.toISOString(),
    // Used only where the schema has them (orders are growing a display name and fulfilment):
    // named here because a schema-made value would not know the number or the status.
    name: `#${number}`,
    fulfillment: shipped
      ? {
          carrier: "DHL Express",
          trackingNumber: `JD01460000${String(number).padStart(8, "0")}`,
          trackingUrl: null,
          shippedAt: new Date(ctx.now.getTime() - 3600_000).toISOString(),
        }
      : null,
  };
}

function productSeed(ctx: Context): Json {
  const p = pick(CATALOGUE, ctx.random);
  const stamp = ctx.now.toISOString();
  const id = newId("product");
  const price = formatMinorUnits(minorOf(p.cents, ctx.currency), ctx.currency);
  return {
    id,
    title: p.title,
    description: p.description,
    vendor: "",
    productType: "",
    tags: [],
    status: ProductStatus.active,
    options: [],
    variants: [
      {
        id: newId("variant"),
        productId: id,
        title: "Default",
        optionValues: [],
        sku: p.sku,
        barcode: null,
        price,
        compareAtPrice: null,
        weightGrams: null,
        tracked: true,
        available: 24,
        position: 0,
        createdAt: stamp,
        updatedAt: stamp,
      },
    ],
    priceRange: { min: price, max: price },
    currency: ctx.currency,
    totalAvailable: 24,
    // A made-up product has no stored image to point at (a URL of one would answer 404).
    images: [],
    createdAt: stamp,
    updatedAt: stamp,
  };
}

function customerSeed(ctx: Context): Json {
  const stamp = ctx.now.toISOString();
  return {
    id: newId("customer"),
    email: emailOf(ctx.persona),
    firstName: ctx.persona.firstName,
    lastName: ctx.persona.lastName,
    phone: ctx.persona.phone,
    createdAt: stamp,
    updatedAt: stamp,
    anonymizedAt: null,
  };
}

function emailOf(persona: Persona): string {
  return `${persona.firstName}.${persona.lastName}@example.com`.toLowerCase();
}

/**
 * What a field of this name holds for the event's persona, in an object named `owner` (null at
 * the payload's top). `null` where a nullable field is usually empty (a second address line);
 * undefined when the name says nothing.
 */
function hint(key: string, ctx: Context, owner: string | null): unknown {
  const p = ctx.persona;
  switch (key) {
    case "email":
      return emailOf(p);
    case "firstName":
      return p.firstName;
    case "lastName":
      return p.lastName;
    case "name":
      // A person's only inside a record (an address's recipient); at the top it names the record.
      return owner === null ? undefined : `${p.firstName} ${p.lastName}`;
    case "phone":
      return p.phone;
    case "company":
    case "line2":
      return null;
    case "line1":
    case "city":
    case "region":
    case "postalCode":
    case "country":
      return p.address[key];
    case "currency":
      return ctx.currency;
    case "note":
    case "description":
      return "";
  }
  if (AMOUNT_KEY.test(key)) return formatMinorUnits(0, ctx.currency);
  // `customerId`, `productId`, ...: a fresh id of that kind.
  const kind = /^(\w+)Id$/.exec(key)?.[1];
  if (kind && kind in ID_PREFIX) return newId(kind as IdKind);
  return undefined;
}

/** A fresh id when the schema is an id pattern (`^ord_[0-9A-Za-z]{22}$`). */
function idOf(schema: Json): string | undefined {
  const match =
    typeof schema.pattern === "string" ? /^\^(\w+)_\[0-9A-Za-z\]\{(\d+)\}\$$/.exec(schema.pattern) : null;
  return match ? `${match[1]}_${randomBase62(Number(match[2]))}` : undefined;
}

function formatted(schema: Json, ctx: Context): string | undefined {
  switch (schema.format) {
    case "date-time":
      return ctx.now.toISOString();
    case "date":
      return ctx.now.toISOString().slice(0, 10);
    case "email":
      return emailOf(ctx.persona);
    case "uri":
    case "url":
      return "https://example.com/";
  }
  return undefined;
}

/** "giftMessage" -> "Test gift message": an unknown text that says what it is. */
function textFor(key: string): string {
  const words = key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words ? `Test ${words}` : "Test";
}

const fits = (schema: Json, value: unknown) => value !== undefined && Value.Check(schema as TSchema, value);

/**
 * A value of `schema` for the field `key` of an object named `owner` (the singular of the array
 * or the field holding it): the seed's where it fits, else one made from the declaration.
 */
function fill(schema: Json, seed: unknown, ctx: Context, key: string, owner: string | null): unknown {
  if (schema.const !== undefined) return schema.const;
  const alternatives = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (alternatives) {
    const values = alternatives.filter((a) => a.type !== "null");
    const nullable = values.length < alternatives.length;
    if (seed === null && nullable) return null;
    if (seed !== undefined)
      for (const alternative of values) {
        const value = fill(alternative, seed, ctx, key, owner);
        if (fits(alternative, value)) return value;
      }
    // Something that has not happened yet (`anonymizedAt`), or a field that is usually empty.
    if (nullable && (/At$/.test(key) || hint(key, ctx, owner) === null)) return null;
    return fill(values[0] ?? alternatives[0]!, undefined, ctx, key, owner);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  if (type === "object" || schema.properties) {
    const from = seed !== null && typeof seed === "object" && !Array.isArray(seed) ? (seed as Json) : {};
    const required = new Set<string>(schema.required ?? []);
    const out: Json = {};
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Json)) {
      // Optional fields only when the seed has them (an app's own metadata has no test value).
      if (!required.has(name) && from[name] === undefined) continue;
      out[name] = fill(property, from[name], ctx, name, key || owner);
    }
    return out;
  }
  if (type === "array") {
    const item = schema.items as Json | undefined;
    const singular = key.replace(/(ies|s)$/, (s) => (s === "ies" ? "y" : ""));
    if (Array.isArray(seed) && item) return seed.map((v) => fill(item, v, ctx, singular, owner));
    if (!item) return [];
    // Lists of records get one (a customer's address), lists of words none (tags).
    const isRecord = item.type === "object" || item.properties !== undefined || item.anyOf !== undefined;
    const length = Math.max(schema.minItems ?? 0, isRecord ? 1 : 0);
    return Array.from({ length }, () => fill(item, undefined, ctx, singular, owner));
  }
  const candidates: unknown[] = [
    seed,
    idOf(schema),
    formatted(schema, ctx),
    key === "id" && owner && owner in ID_PREFIX ? newId(owner as IdKind) : undefined,
    hint(key, ctx, owner),
    ...(Array.isArray(schema.examples) ? schema.examples : []),
    schema.default,
    Array.isArray(schema.enum) ? schema.enum[0] : undefined,
  ];
  for (const candidate of candidates) if (fits(schema, candidate)) return candidate;
  switch (type) {
    case "string":
      return key === "id" ? `${owner ?? "test"}_${randomBase62(22)}` : textFor(key);
    case "integer":
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return false;
    default:
      return null;
  }
}
