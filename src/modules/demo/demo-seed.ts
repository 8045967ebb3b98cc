import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ActorKind, OrderStatus, ProductStatus } from "../../contracts/index.ts";
import { randomBase62 } from "../../lib/crypto.ts";
import type { Platform } from "../../platform.ts";

export const DEMO_EMAIL = "demo@example.com";
export const DEMO_STORE_SLUG = "demo-store";

const PRODUCTS = [
  {
    title: "Linen shirt",
    price: "39.00",
    sku: "SHIRT-LIN",
    stock: 40,
    description: "Pre-washed linen, relaxed fit.",
  },
  { title: "Canvas tote", price: "18.50", sku: "TOTE-CNV", stock: 120, description: "Heavy cotton canvas." },
  { title: "Ceramic mug", price: "12.00", sku: "MUG-CER", stock: 65, description: "Stoneware, 350 ml." },
  {
    title: "Leather wallet",
    price: "54.90",
    sku: "WAL-LTH",
    stock: 15,
    description: "Vegetable-tanned leather.",
  },
  {
    title: "Gift card",
    price: "25.00",
    sku: null,
    stock: 0,
    description: "Coming soon.",
    status: ProductStatus.draft,
  },
];

const CUSTOMERS = [
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

/**
 * Creates the demo merchant, store, products, customers and orders through the same services as
 * the API (so the outbox holds their events too). Idempotent: does nothing once the demo account
 * exists. The password is random, kept in DATA_DIR (or returned) so the start-up log can show it.
 */
export async function seedDemo(platform: Platform, options: { credentialsFile?: string | undefined } = {}) {
  const { services, repos } = platform;
  const existing = await repos.accounts.findByEmail(DEMO_EMAIL);
  if (existing) {
    const file = options.credentialsFile;
    const password = file && existsSync(file) ? readFileSync(file, "utf8").trim() : null;
    return { created: false, email: DEMO_EMAIL, password, storeSlug: DEMO_STORE_SLUG };
  }
  const password = `demo-${randomBase62(12)}`;
  const { account } = await services.accounts.signup({ email: DEMO_EMAIL, password, name: "Demo Merchant" });
  const created = await services.stores.create(account.id, {
    name: "Demo Store",
    slug: DEMO_STORE_SLUG,
    currency: "USD",
  });
  await services.stores.updateSettings(created, {
    contactEmail: "hello@demo-store.example",
    timeZone: "America/New_York",
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
  const products = [];
  for (const p of PRODUCTS) products.push(await services.products.create(store, p));
  const customers = [];
  for (const c of CUSTOMERS) customers.push(await services.customers.create(store, c));
  const [shirt, tote, mug, wallet] = products;
  const [layla, omar, grace] = customers;
  // The demo's orders are the platform's doing, and their history says so.
  const seed = { kind: ActorKind.system, id: null, name: "Demo data" };
  const move = async (
    id: string,
    to: OrderStatus[],
    fulfillment?: { carrier: string; trackingNumber: string; trackingUrl: string },
  ) => {
    for (const status of to)
      await services.orders.setStatus(
        store,
        id,
        status,
        seed,
        status === OrderStatus.shipped ? fulfillment : undefined,
      );
  };
  // Delivered, with the tracking it shipped with.
  const delivered = await services.orders.create(
    store,
    {
      customerId: grace!.id,
      lineItems: [{ productId: wallet!.id, quantity: 1 }],
      note: "Gift: no invoice in the parcel.",
      tags: ["gift"],
    },
    seed,
  );
  await move(
    delivered.id,
    [OrderStatus.paid, OrderStatus.confirmed, OrderStatus.shipped, OrderStatus.delivered],
    {
      carrier: "UPS",
      trackingNumber: "1Z999AA10123456784",
      trackingUrl: "https://www.ups.com/track?tracknum=1Z999AA10123456784",
    },
  );
  // Shipped to the customer's default address, on its way.
  const first = await services.orders.create(
    store,
    {
      customerId: layla!.id,
      lineItems: [
        { productId: shirt!.id, quantity: 1 },
        { productId: mug!.id, quantity: 2 },
      ],
    },
    seed,
  );
  await move(first.id, [OrderStatus.paid, OrderStatus.confirmed, OrderStatus.shipped], {
    carrier: "DHL Express",
    trackingNumber: "JD014600006281230512",
    trackingUrl: "https://www.dhl.com/global-en/home/tracking.html?tracking-id=JD014600006281230512",
  });
  // Paid, waiting to be shipped to the customer's second address.
  const paid = await services.orders.create(
    store,
    {
      customerId: layla!.id,
      lineItems: [{ productId: tote!.id, quantity: 2 }],
      shippingAddress: layla!.addresses[1],
      note: "Deliver to the office reception.",
    },
    seed,
  );
  await move(paid.id, [OrderStatus.paid]);
  // Just placed.
  await services.orders.create(
    store,
    { customerId: omar!.id, lineItems: [{ productId: tote!.id, quantity: 3 }], tags: ["wholesale"] },
    seed,
  );
  if (options.credentialsFile) writeFileSync(options.credentialsFile, `${password}\n`, { mode: 0o600 });
  return { created: true, email: DEMO_EMAIL, password, storeSlug: DEMO_STORE_SLUG };
}

export function demoCredentialsFile(dataDir: string): string {
  return join(dataDir, "demo-password.txt");
}
