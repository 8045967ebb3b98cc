import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ActorKind, OrderStatus, ProductStatus } from "../../contracts/index.ts";
import { type Db, transactionAsDatabase } from "../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { randomBase62 } from "../../lib/crypto.ts";
import { startOfLocalDay } from "../../lib/local-day.ts";
import type { AccountRepo } from "../accounts/accounts-repo.ts";
import type { AccountService } from "../accounts/accounts-service.ts";
import type { CollectionService } from "../collections/collections-service.ts";
import type { CustomerService } from "../customers/customers-service.ts";
import type { DiscountService } from "../discounts/discounts-service.ts";
import type { InventoryService } from "../inventory/inventory-service.ts";
import type { LocationService } from "../inventory/locations-service.ts";
import type { OrderEditService } from "../order-edits/order-edits-service.ts";
import type { OrderService } from "../orders/orders-service.ts";
import type { ProductService } from "../products/products-service.ts";
import type { RefundService } from "../refunds/refunds-service.ts";
import type { ReturnService } from "../returns/returns-service.ts";
import type { StoreService } from "../stores/stores-service.ts";
import type { TaxService } from "../taxes/taxes.ts";

export const DEMO_EMAIL = "demo@example.com";
export const DEMO_STORE_SLUG = "demo-store";

/** Days of history the demo store has: enough for the overview's 30 days and a quarter of orders. */
export const DEMO_HISTORY_DAYS = 90;
export const DEMO_ORDERS = 600;
/** Why the demo's returns came back. */
const RETURN_REASONS_SEEN = ["size_too_small", "unwanted", "defective", "not_as_described"] as const;
/** The demo store's sales tax, by state (US, prices without tax) and the one other country it ships to most. */
const DEMO_TAX_RATES = [
  { country: "US", region: "NY", title: "NY State and City Tax", rate: "8.875" },
  { country: "US", region: "MA", title: "MA Sales Tax", rate: "6.25" },
  { country: "US", region: "IL", title: "IL Sales Tax", rate: "6.25" },
  { country: "US", region: "TX", title: "TX Sales Tax", rate: "6.25" },
  { country: "US", region: "WA", title: "WA Sales Tax", rate: "6.5" },
  { country: "CA", title: "GST", rate: "5" },
  { country: "CA", region: "ON", title: "Ontario HST (provincial part)", rate: "8" },
] as const;
/** Its discount codes: combinable so a welcome or spring code goes with free shipping. */
const DEMO_DISCOUNTS = [
  { code: "WELCOME10", kind: "percentage", percentage: "10", oncePerCustomer: true, combinable: true },
  { code: "SHIPFREE", kind: "free_shipping", minimumQuantity: 3, combinable: true },
  { code: "SPRING5", kind: "fixed_amount", value: "5.00", usageLimit: 40, combinable: true },
] as const;

export const DEMO_CUSTOMERS = 150;
/** The demo store's zone: its "today" and its daily figures are New York's days. */
export const DEMO_TIME_ZONE = "America/New_York";

const DAY_MS = 24 * 3600 * 1000;
/**
 * Service calls per commit while seeding: a commit each would cost a quarter more; hundreds would
 * keep the embedded database (one connection) from requests for seconds while the history is
 * written behind a running service.
 */
const BATCH = 5;
const HOUR_MS = 3600 * 1000;

/**
 * A small seeded pseudo-random generator (mulberry32): the same demo store on every first start,
 * so a screenshot, a support question and a test all see the same data.
 */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** An integer in [min, max]. */
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!,
    chance: (p: number) => next() < p,
  };
}
type Random = ReturnType<typeof seededRandom>;

/** The first products, as the demo always had them (searching "lth" finds the wallet by its SKU). */
const CLASSICS = [
  { title: "Linen shirt", price: 3900, sku: "SHIRT-LIN", description: "Pre-washed linen, relaxed fit." },
  { title: "Canvas tote", price: 1850, sku: "TOTE-CNV", description: "Heavy cotton canvas." },
  { title: "Ceramic mug", price: 1200, sku: "MUG-CER", description: "Stoneware, 350 ml." },
  { title: "Leather wallet", price: 5490, sku: "WAL-LTH", description: "Vegetable-tanned leather." },
];
/** Who writes the demo's stock: the platform. */
const SYSTEM = { kind: ActorKind.system, id: null };

/** Apparel sold in colours and sizes (options and variants, issue 30). */
const APPAREL = [
  {
    title: "Harbor overshirt",
    type: "Shirts",
    sku: "OVR",
    price: 6800,
    grams: 520,
    colours: ["Sand", "Navy", "Olive"],
    tags: ["outerwear"],
    description: "Brushed cotton twill, two chest pockets.",
  },
  {
    title: "Everyday hoodie",
    type: "Sweatshirts",
    sku: "HOOD",
    price: 5400,
    grams: 610,
    colours: ["Heather grey", "Black"],
    tags: ["bestseller"],
    description: "Loopback cotton, 400 gsm.",
  },
];

const LINES = [
  { title: "Cotton tee", price: 2200, sku: "TEE-COT", description: "Heavyweight organic cotton." },
  { title: "Wool scarf", price: 3400, sku: "SCARF-WL", description: "Merino wool, 180 × 30 cm." },
  { title: "Canvas cap", price: 1900, sku: "CAP-CNV", description: "Six panels, adjustable strap." },
  { title: "Beeswax candle", price: 1650, sku: "CNDL-BW", description: "Hand-poured, 40 hours." },
  { title: "Linen apron", price: 2800, sku: "APRN-LIN", description: "Cross-back straps, one pocket." },
  { title: "Stoneware bowl", price: 1400, sku: "BOWL-STN", description: "Dishwasher safe, 15 cm." },
  { title: "Leather belt", price: 4500, sku: "BELT-LTH", description: "Solid brass buckle." },
  { title: "Cotton socks", price: 950, sku: "SOCK-COT", description: "Ribbed, reinforced heel." },
  { title: "Dot-grid notebook", price: 1250, sku: "NOTE-DOT", description: "A5, 160 numbered pages." },
];
const COLOURS = [
  ["Sand", "SND"],
  ["Indigo", "IND"],
  ["Olive", "OLV"],
  ["Charcoal", "CHR"],
  ["Rust", "RST"],
] as const;

const FIRST_NAMES = [
  "Amira",
  "Ben",
  "Chloé",
  "Daniel",
  "Elif",
  "Farah",
  "George",
  "Hiro",
  "Ines",
  "Jonas",
  "Karim",
  "Lucía",
  "Maya",
  "Noah",
  "Olga",
  "Priya",
  "Rami",
  "Sofia",
  "Tomás",
  "Yara",
];
const LAST_NAMES = [
  "Abbott",
  "Bauer",
  "Costa",
  "Dubois",
  "Evans",
  "Fischer",
  "García",
  "Hassan",
  "Ito",
  "Jensen",
  "Kowalski",
  "Larsen",
  "Moreau",
  "Novak",
  "Okafor",
  "Patel",
];
const PLACES = [
  { city: "New York", region: "NY", postalCode: "10001", country: "US", street: "Broadway" },
  { city: "Brooklyn", region: "NY", postalCode: "11201", country: "US", street: "Court Street" },
  { city: "Boston", region: "MA", postalCode: "02108", country: "US", street: "Beacon Street" },
  { city: "Chicago", region: "IL", postalCode: "60601", country: "US", street: "Michigan Avenue" },
  { city: "Austin", region: "TX", postalCode: "73301", country: "US", street: "Congress Avenue" },
  { city: "Seattle", region: "WA", postalCode: "98101", country: "US", street: "Pike Street" },
  { city: "Toronto", region: "ON", postalCode: "M5H 2N2", country: "CA", street: "Queen Street West" },
  { city: "London", postalCode: "EC1A 1BB", country: "GB", street: "Exmouth Market" },
  { city: "Berlin", postalCode: "10119", country: "DE", street: "Torstraße" },
  { city: "Riyadh", postalCode: "12271", country: "SA", street: "King Fahd Road" },
] as const;

/** The first customers, as the demo always had them. */
const REGULARS = [
  {
    email: "layla@example.com",
    firstName: "Layla",
    lastName: "Haddad",
    phone: "+966 50 123 4567",
    tags: ["vip"],
    addresses: [
      {
        name: "Layla Haddad",
        line1: "King Fahd Road 12",
        line2: "Floor 3",
        city: "Riyadh",
        postalCode: "12271",
        country: "SA",
        phone: "+966 50 123 4567",
      },
      {
        name: "Layla Haddad",
        company: "Haddad Trading",
        line1: "Olaya Street 5",
        city: "Riyadh",
        country: "SA",
      },
    ],
  },
  {
    email: "omar@example.com",
    firstName: "Omar",
    lastName: "Nasser",
    tags: ["wholesale"],
    addresses: [
      { name: "Omar Nasser", line1: "Torstraße 1", city: "Berlin", postalCode: "10119", country: "DE" },
    ],
  },
  {
    email: "grace@example.com",
    firstName: "Grace",
    lastName: "Hopper",
    note: "Prefers deliveries after 5 pm.",
    addresses: [
      {
        name: "Grace Hopper",
        line1: "700 Pennsylvania Ave SE",
        city: "Washington",
        region: "DC",
        postalCode: "20003",
        country: "US",
      },
    ],
  },
];

const CARRIERS = [
  { carrier: "UPS", prefix: "1Z999AA1", url: "https://www.ups.com/track?tracknum=" },
  {
    carrier: "DHL Express",
    prefix: "JD0146000",
    url: "https://www.dhl.com/global-en/home/tracking.html?tracking-id=",
  },
  { carrier: "USPS", prefix: "9400111", url: "https://tools.usps.com/go/TrackConfirmAction?tLabels=" },
];
const NOTES = [
  "Gift: no invoice in the parcel.",
  "Deliver to the office reception.",
  "Leave with the neighbour if nobody answers.",
  "Please wrap each item separately.",
];
const TAGS = ["gift", "wholesale", "priority", "repeat"];

type Step = { status: OrderStatus; at: number };

/**
 * What happened to an order placed at `placed` by `now`: the steps of the life cycle, each some
 * hours or days after the one before, as far as they have happened; some orders are cancelled
 * before they ship. Older orders have mostly arrived; the newest wait to be paid.
 */
function lifeOf(random: Random, placed: number, now: number): Step[] {
  const steps: Step[] = [];
  let at = placed;
  const step = (status: OrderStatus, after: number) => {
    at += after;
    if (at >= now) return false;
    steps.push({ status, at });
    return true;
  };
  const cancelled = random.chance(0.07);
  if (!step(OrderStatus.paid, random.int(5, 180) * 60_000)) return steps;
  if (cancelled) {
    step(OrderStatus.cancelled, random.int(2, 30) * HOUR_MS);
    return steps;
  }
  if (!step(OrderStatus.confirmed, random.int(2, 20) * HOUR_MS)) return steps;
  if (!step(OrderStatus.shipped, random.int(12, 48) * HOUR_MS)) return steps;
  step(OrderStatus.delivered, random.int(48, 120) * HOUR_MS);
  return steps;
}

/**
 * When each of `count` orders was placed, oldest first: more lately, more on weekends, in the day;
 * the last few today in `timeZone` (between its midnight and `now`), whatever the time of day.
 */
export function orderTimes(
  random: Random,
  count: number,
  start: number,
  now: number,
  timeZone: string,
): number[] {
  const days = Math.ceil((now - start) / DAY_MS);
  const weights = Array.from({ length: days }, (_, d) => {
    const weekday = new Date(start + d * DAY_MS).getUTCDay();
    return (1 + (0.8 * d) / days) * (weekday === 0 || weekday === 6 ? 1.35 : 1);
  });
  const total = weights.reduce((a, b) => a + b, 0);
  const times: number[] = [];
  // The last few within the hour and after the store's midnight, so "today" has orders whatever
  // the time of day (at 00:20 in New York, within those 20 minutes).
  const recent = 4;
  const today = Math.min(55 * 60_000, now - startOfLocalDay(now, timeZone));
  for (let i = 0; i < count - recent; i++) {
    let r = random.next() * total;
    let d = 0;
    while (d < days - 1 && r >= weights[d]!) r -= weights[d++]!;
    // 13:00-03:00 UTC: the store's day in New York.
    const at = start + d * DAY_MS + (13 + random.next() * 14) * HOUR_MS;
    times.push(Math.min(at, now - 2 * HOUR_MS - random.int(0, 600) * 60_000));
  }
  for (let i = 0; i < recent; i++) times.push(now - Math.floor(random.next() * today));
  return times.sort((a, b) => a - b);
}

/** What the seed needs of the platform (platform.ts passes itself). */
export interface DemoSeedDeps {
  db: Db;
  clock: Clock;
  repos: { accounts: Pick<AccountRepo, "findByEmail"> };
  services: { accounts: Pick<AccountService, "signup">; stores: Pick<StoreService, "current"> };
  /** The commerce services on another clock, and on another database handle if given (a batch). */
  commerceAt: (
    on: Clock,
    db?: Db,
  ) => {
    stores: Pick<StoreService, "create" | "updateSettings">;
    products: Pick<ProductService, "create">;
    locations: Pick<LocationService, "create" | "list">;
    collections: Pick<CollectionService, "create">;
    discounts: Pick<DiscountService, "create" | "update">;
    taxes: Pick<TaxService, "create">;
    refunds: Pick<RefundService, "create">;
    orderEdits: Pick<OrderEditService, "create">;
    returns: Pick<ReturnService, "create" | "approve" | "decline" | "receive" | "close">;
    inventory: Pick<InventoryService, "move">;
    customers: Pick<CustomerService, "create">;
    orders: Pick<OrderService, "create" | "setStatus">;
  };
}

/**
 * Creates the demo merchant and store with 90 days of history (50 products, 150 customers, 600
 * orders across every status, the shipped ones with tracking) through the same services as the
 * API, so the rules hold and the outbox holds their events. The history is written on a clock the
 * seed moves (`platform.commerceAt`), from the injected clock's now back; it is the same on every
 * run (seeded). Idempotent: does nothing once the demo account exists. The password is random,
 * kept in DATA_DIR (or returned) so the start-up log can show it.
 *
 * The account and store are there when this returns; the catalogue, customers and orders are
 * written by `history()` (null when the demo existed already): about 20,000 statements, which
 * main.ts runs after the service listens, so the first start is not slower by them.
 */
export async function seedDemo(
  platform: DemoSeedDeps,
  options: { credentialsFile?: string | undefined } = {},
) {
  const { services, repos } = platform;
  const existing = await repos.accounts.findByEmail(DEMO_EMAIL);
  if (existing) {
    const file = options.credentialsFile;
    const password = file && existsSync(file) ? readFileSync(file, "utf8").trim() : null;
    return { created: false, email: DEMO_EMAIL, password, storeSlug: DEMO_STORE_SLUG, history: null };
  }
  const random = seededRandom(20261126);
  const now = platform.clock.now().getTime();
  const start = now - DEMO_HISTORY_DAYS * DAY_MS;
  let at = start - 2 * DAY_MS;
  const history: Clock = { now: () => new Date(at) };
  const commerce = platform.commerceAt(history);
  // Thousands of service calls, a few hundred to a commit: each call's transaction becomes part
  // of its batch's (a commit each took most of the first start's time).
  const inBatches = async <T>(items: T[], write: (batch: typeof commerce, item: T) => Promise<void>) => {
    for (let i = 0; i < items.length; i += BATCH) {
      await platform.db.transaction().execute(async (tx) => {
        const batch = platform.commerceAt(history, transactionAsDatabase(tx));
        for (const item of items.slice(i, i + BATCH)) await write(batch, item);
      });
      // The embedded database answers in microtasks: without a turn of the event loop between
      // batches, requests to the running service would wait for the whole history.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  const password = `demo-${randomBase62(12)}`;
  const { account } = await services.accounts.signup({ email: DEMO_EMAIL, password, name: "Demo Merchant" });
  const created = await commerce.stores.create(account.id, {
    name: "Demo Store",
    slug: DEMO_STORE_SLUG,
    currency: "USD",
  });
  await commerce.stores.updateSettings(created, {
    contactEmail: "hello@demo-store.example",
    timeZone: DEMO_TIME_ZONE,
    orderNumberPrefix: "#",
    address: {
      name: "Demo Store",
      company: "Demo Store LLC",
      line1: "350 Fifth Avenue",
      city: "New York",
      region: "NY",
      postalCode: "10118",
      country: "US",
    },
  });
  const store = await services.stores.current(created.id);

  // The orders first (on paper): what each buys decides how much stock its products start with.
  const catalogue = [
    ...CLASSICS,
    ...LINES.flatMap((line) =>
      COLOURS.map(([colour, code]) => ({
        title: `${line.title}, ${colour}`,
        price: line.price,
        sku: `${line.sku}-${code}`,
        description: line.description,
      })),
    ),
  ];
  const times = orderTimes(random, DEMO_ORDERS, start, now, DEMO_TIME_ZONE);
  const buyers = DEMO_CUSTOMERS;
  const plans = times.map((placed) => {
    const lines = new Map<number, number>();
    const count = random.chance(0.6) ? 1 : random.int(2, 3);
    while (lines.size < count) {
      // Some products sell far better than others.
      const product = Math.floor(catalogue.length * random.next() ** 1.7);
      lines.set(product, random.chance(0.8) ? 1 : random.int(2, 3));
    }
    return {
      placed,
      // Repeat buyers: the first customers buy most.
      customer: Math.floor(buyers * random.next() ** 1.5),
      lines: [...lines],
      note: random.chance(0.05) ? random.pick(NOTES) : undefined,
      tags: random.chance(0.08) ? [random.pick(TAGS)] : undefined,
      life: lifeOf(random, placed, now),
    };
  });
  const sold = new Array<number>(catalogue.length).fill(0);
  for (const plan of plans) for (const [product, quantity] of plan.lines) sold[product]! += quantity;

  if (options.credentialsFile) writeFileSync(options.credentialsFile, `${password}\n`, { mode: 0o600 });

  const productIds: string[] = [];
  const customerIds: string[] = [];
  const writeCatalogue = async () => {
    // Products, 91 days ago; a few are nearly sold out by now (the overview's low stock).
    await inBatches([...catalogue.entries()], async (commerce, [i, p]) => {
      at = start - DAY_MS + i * 60_000;
      const left = i % 13 === 5 ? random.int(0, 4) : random.int(12, 140);
      const product = await commerce.products.create(
        store,
        {
          title: p.title,
          description: p.description,
          variants: [{ price: (p.price / 100).toFixed(2), sku: p.sku, inventoryQuantity: sold[i]! + left }],
        },
        SYSTEM,
      );
      productIds.push(product.id);
    });
    at = start - DAY_MS + catalogue.length * 60_000;
    await commerce.products.create(
      store,
      {
        title: "Gift card",
        description: "Coming soon.",
        status: ProductStatus.draft,
        variants: [{ price: "25.00", tracked: false }],
      },
      SYSTEM,
    );
    // Apparel with sizes and colours, its stock at two locations (issue 30).
    at += 60_000;
    const warehouse = await commerce.locations.create(store, {
      name: "New Jersey warehouse",
      address: {
        name: "New Jersey warehouse",
        line1: "200 Harbor Drive",
        city: "Jersey City",
        region: "NJ",
        postalCode: "07305",
        country: "US",
      },
      fulfilsOnlineOrders: false,
    });
    for (const [n, item] of APPAREL.entries()) {
      at += 60_000;
      const sizes = ["S", "M", "L", "XL"];
      const product = await commerce.products.create(
        store,
        {
          title: item.title,
          description: item.description,
          vendor: "Harbor & Pine",
          productType: item.type,
          tags: ["apparel", ...item.tags],
          options: [
            { name: "Colour", values: item.colours },
            { name: "Size", values: sizes },
          ],
          variants: item.colours.flatMap((colour, c) =>
            sizes.map((size, s) => ({
              optionValues: [colour, size],
              price: ((item.price + (size === "XL" ? 300 : 0)) / 100).toFixed(2),
              sku: `${item.sku}-${colour.slice(0, 3).toUpperCase()}-${size}`,
              weightGrams: item.grams,
              inventoryQuantity: (n * 7 + c * 5 + s * 3) % 11 === 0 ? 2 : 6 + ((n + c * 3 + s * 2) % 17),
            })),
          ),
        },
        SYSTEM,
      );
      // Part of the stock waits at the warehouse.
      await commerce.inventory.move(
        store,
        {
          variantId: product.variants[1]!.id,
          fromLocationId: (await commerce.locations.list(store))[0]!.id,
          toLocationId: warehouse.id,
          quantity: 3,
          note: "Restock the warehouse",
        },
        SYSTEM,
      );
    }

    // Two collections: the apparel by its tag (automatic: what the rule matches when read), and
    // the merchant's picks in their own order (manual).
    at += 60_000;
    await commerce.collections.create(store, {
      title: "Harbor & Pine apparel",
      description: "Shirts and knits in every colour and size.",
      kind: "automatic",
      match: "all",
      rules: [{ field: "tag", relation: "equals", value: "apparel" }],
    });
    at += 60_000;
    await commerce.collections.create(store, {
      title: "Staff picks",
      description: "What the team uses every day.",
      kind: "manual",
      productIds: [productIds[3]!, productIds[0]!, productIds[7]!],
    });

    // Sales tax where the customers are (added to the prices, shipping untaxed), and the codes
    // the quarter's orders use: a welcome percentage once per customer, free shipping from three
    // items, a spring amount with a limit; and one paused code.
    at += 60_000;
    for (const rate of DEMO_TAX_RATES) await commerce.taxes.create(store, rate);
    for (const code of DEMO_DISCOUNTS)
      await commerce.discounts.create(store, { ...code, startsAt: new Date(start - DAY_MS).toISOString() });
    const paused = await commerce.discounts.create(store, {
      code: "FLASH25",
      kind: "percentage",
      percentage: "25",
      startsAt: new Date(start - DAY_MS).toISOString(),
    });
    await commerce.discounts.update(store, paused.id, { status: "paused" });

    // Customers, each some days before their first order (or at some time in the quarter).
    const firstOrder = new Map<number, number>();
    for (const plan of plans) if (!firstOrder.has(plan.customer)) firstOrder.set(plan.customer, plan.placed);
    const people = Array.from({ length: buyers }, (_, i) => {
      if (i < REGULARS.length) return REGULARS[i]!;
      const firstName = FIRST_NAMES[i % FIRST_NAMES.length]!;
      const lastName = LAST_NAMES[Math.floor(i / FIRST_NAMES.length + i) % LAST_NAMES.length]!;
      const place = random.pick(PLACES);
      const local = `${firstName}.${lastName}`
        .normalize("NFD")
        .replace(/[^A-Za-z.]/g, "")
        .toLowerCase();
      return {
        email: `${local}.${i}@example.com`,
        firstName,
        lastName,
        ...(random.chance(0.4) ? { phone: `+1 555 01${String(random.int(0, 99)).padStart(2, "0")}` } : {}),
        ...(random.chance(0.1) ? { tags: ["vip"] } : {}),
        addresses: [
          {
            name: `${firstName} ${lastName}`,
            line1: `${random.int(1, 400)} ${place.street}`,
            city: place.city,
            ...("region" in place ? { region: place.region } : {}),
            postalCode: place.postalCode,
            country: place.country,
          },
        ],
      };
    });
    const joined = people.map((_, i) => {
      const first = firstOrder.get(i);
      return first === undefined
        ? start + random.next() * (now - start - DAY_MS)
        : first - random.int(1, 240) * HOUR_MS;
    });
    await inBatches([...people.keys()], async (commerce, i) => {
      at = Math.max(start - DAY_MS / 2, joined[i]!);
      customerIds.push((await commerce.customers.create(store, people[i]!)).id);
    });
  };

  // Each order's shipping and codes, drawn from their own sequence (the history's draws stay as
  // they were): the welcome code on a customer's first order now and then, free shipping on three
  // items or more, the spring amount on some.
  const moneyDraws = seededRandom(20261129);
  const firstOf = new Map<number, number>();
  plans.forEach((plan, i) => {
    if (!firstOf.has(plan.customer)) firstOf.set(plan.customer, i);
  });
  let springLeft = 40;
  const moneyOf = (plan: (typeof plans)[number], i: number) => {
    const express = moneyDraws.chance(0.2);
    const items = plan.lines.reduce((n, [, q]) => n + q, 0);
    const codes: string[] = [];
    if (firstOf.get(plan.customer) === i && moneyDraws.chance(0.5)) codes.push("WELCOME10");
    else if (springLeft > 0 && moneyDraws.chance(0.1)) {
      codes.push("SPRING5");
      springLeft--;
    }
    if (items >= 3) codes.push("SHIPFREE");
    return {
      shippingLines: [
        express
          ? { title: "Express", price: "12.00", code: "express" }
          : { title: "Standard", price: "4.95", code: "standard" },
      ],
      ...(codes.length ? { discountCodes: codes } : {}),
    };
  };

  // Then the quarter as it happened, in time order: each order placed, then moved along.
  const seed = { kind: ActorKind.system, id: null, name: "Demo data" };
  // Some paid orders were refunded later: one unit now and then (back into stock), a few in full
  // with their shipping.
  const PAID_BY_END = new Set<string>([
    OrderStatus.paid,
    OrderStatus.confirmed,
    OrderStatus.shipped,
    OrderStatus.delivered,
  ]);
  const refundOf = (plan: (typeof plans)[number], i: number) => {
    const last = plan.life.at(-1);
    if (!last || !PAID_BY_END.has(last.status) || last.at + 3 * HOUR_MS > now - 60_000) return [];
    const kind = i % 13 === 0 ? ("partial" as const) : i % 29 === 0 ? ("full" as const) : null;
    return kind
      ? [{ at: last.at + 3 * HOUR_MS, order: i, status: null as OrderStatus | null, refund: kind }]
      : [];
  };
  // And some shipped ones came back, a return left at each of its steps.
  const RETURN_ENDS = ["requested", "approved", "declined", "received", "closed"] as const;
  const SHIPPED_BY_END = new Set<string>([OrderStatus.shipped, OrderStatus.delivered]);
  const returnOf = (plan: (typeof plans)[number], i: number) => {
    const last = plan.life.at(-1);
    if (i % 11 !== 5 || i % 13 === 0 || i % 29 === 0) return [];
    if (!last || !SHIPPED_BY_END.has(last.status) || last.at + DAY_MS > now - 60_000) return [];
    return [
      {
        at: last.at + DAY_MS,
        order: i,
        status: null as OrderStatus | null,
        return: RETURN_ENDS[Math.floor(i / 11) % RETURN_ENDS.length]!,
      },
    ];
  };
  // And some were edited half an hour after they were placed, before anything else happened to
  // them: one unit fewer, a line taken off, or express shipping instead (never more stock taken).
  const editOf = (plan: (typeof plans)[number], i: number) => {
    const at = plan.placed + HOUR_MS / 2;
    const next = plan.life[0]?.at ?? now;
    if (i % 17 !== 3 || at >= next || at > now - 60_000) return [];
    return [{ at, order: i, status: null as OrderStatus | null, edit: true }];
  };
  const events: Array<{
    at: number;
    order: number;
    status: OrderStatus | null;
    refund?: "partial" | "full";
    return?: (typeof RETURN_ENDS)[number];
    edit?: boolean;
  }> = plans.flatMap((plan, i) => [
    { at: plan.placed, order: i, status: null as OrderStatus | null },
    ...editOf(plan, i),
    ...plan.life.map((s) => ({ at: s.at, order: i, status: s.status as OrderStatus | null })),
    ...refundOf(plan, i),
    ...returnOf(plan, i),
  ]);
  events.sort((a, b) => a.at - b.at || a.order - b.order);
  const orderIds: string[] = [];
  const orderLines: Array<Array<{ id: string; quantity: number }>> = [];
  const writeHistory = () =>
    inBatches(events, async (commerce, event) => {
      at = event.at;
      const plan = plans[event.order]!;
      if (event.edit) {
        const lines = orderLines[event.order]!;
        const first = lines[0]!;
        const edited = await commerce.orderEdits.create(
          store,
          orderIds[event.order]!,
          first.quantity > 1
            ? {
                lineItems: [{ lineItemId: first.id, quantity: first.quantity - 1 }],
                note: "One fewer, asked on the phone",
              }
            : lines.length > 1
              ? { lineItems: [{ lineItemId: lines.at(-1)!.id, quantity: 0 }], note: "Item taken off" }
              : {
                  shippingLines: [{ title: "Express", price: "12.00", code: "express" }],
                  note: "Upgraded to express",
                },
          seed,
        );
        orderLines[event.order] = edited.lineItemsAfter.map((l) => ({
          id: l.lineItemId,
          quantity: l.quantity,
        }));
      } else if (event.return) {
        const lines = orderLines[event.order]!;
        const made = await commerce.returns.create(store, orderIds[event.order]!, {
          lineItems: [
            { lineItemId: lines[0]!.id, quantity: 1, reason: RETURN_REASONS_SEEN[event.order % 4]! },
          ],
        });
        const end = event.return;
        if (end === "declined") await commerce.returns.decline(store, made.id);
        if (end === "approved" || end === "received" || end === "closed")
          await commerce.returns.approve(store, made.id);
        if (end === "received" || end === "closed") await commerce.returns.receive(store, made.id, {}, seed);
        if (end === "closed") await commerce.returns.close(store, made.id, {}, seed);
      } else if (event.refund) {
        const lines = orderLines[event.order]!;
        await commerce.refunds.create(
          store,
          orderIds[event.order]!,
          event.refund === "full"
            ? {
                lineItems: lines.map((l) => ({ lineItemId: l.id, quantity: l.quantity })),
                shipping: true,
                note: "Cancelled by the customer after payment",
              }
            : {
                lineItems: [{ lineItemId: lines[0]!.id, quantity: 1 }],
                restock: true,
                note: "Returned: wrong size",
              },
          seed,
        );
      } else if (event.status === null) {
        const order = await commerce.orders.create(
          store,
          {
            customerId: customerIds[plan.customer]!,
            lineItems: plan.lines.map(([product, quantity]) => ({
              productId: productIds[product]!,
              quantity,
            })),
            ...(plan.note ? { note: plan.note } : {}),
            ...(plan.tags ? { tags: plan.tags } : {}),
            ...moneyOf(plan, event.order),
          },
          seed,
        );
        orderIds[event.order] = order.id;
        orderLines[event.order] = order.lineItems;
      } else {
        const carrier = CARRIERS[event.order % CARRIERS.length]!;
        const tracking = `${carrier.prefix}${String(100000000 + event.order * 7919).slice(-9)}`;
        await commerce.orders.setStatus(
          store,
          orderIds[event.order]!,
          event.status,
          seed,
          event.status === OrderStatus.shipped
            ? { carrier: carrier.carrier, trackingNumber: tracking, trackingUrl: `${carrier.url}${tracking}` }
            : undefined,
        );
      }
    });
  return {
    created: true,
    email: DEMO_EMAIL,
    password,
    storeSlug: DEMO_STORE_SLUG,
    history: async () => {
      const started = performance.now();
      await writeCatalogue();
      await writeHistory();
      return { orders: plans.length, seconds: (performance.now() - started) / 1000 };
    },
  };
}

export function demoCredentialsFile(dataDir: string): string {
  return join(dataDir, "demo-password.txt");
}
