import assert from "node:assert/strict";
import { installedApp } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import {
  type EventName,
  merchantWithStore,
  outboxOf,
  type RequestBody,
  type ResponseData,
  type TestContext,
  text,
} from "./harness.ts";
import type { openApiChecker } from "./openapi-assert.ts";

/** A store to test the money of its orders with (order-money.test.ts, order-edits.test.ts). */
export type Checker = Awaited<ReturnType<typeof openApiChecker>>;
export type Order = ResponseData<"/api/v1/dashboard/stores/{slug}/orders/{id}", "get">;
export type DiscountBody = RequestBody<"/api/v1/dashboard/stores/{slug}/discounts", "post">;
type OrderBody = RequestBody<"/api/v1/dashboard/stores/{slug}/orders", "post">;

/** The identity every order keeps, in minor units of a two-decimal currency. */
export function assertIdentity(o: Order) {
  const m = (x: string) => Math.round(Number(x) * 1000);
  assert.equal(m(o.subtotal) - m(o.discounts) + m(o.shipping) + m(o.tax), m(o.total), JSON.stringify(o));
}

export async function moneyShop(
  ctx: TestContext,
  spec: Checker,
  settings: RequestBody<"/api/v1/dashboard/stores/{slug}", "patch"> = {},
) {
  const m = await merchantWithStore(ctx.app);
  const client = spec.watch(m.client);
  const path = { slug: m.slug };
  if (Object.keys(settings).length) {
    const res = await client.PATCH("/api/v1/dashboard/stores/{slug}", { params: { path }, body: settings });
    assert.equal(res.response.status, 200, text(res));
  }
  const product = async (title: string, price: string, stock = 1000) => {
    const res = await client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path },
      body: flat({ title, price, stock }),
    });
    assert.equal(res.response.status, 201, text(res));
    return res.data!.data;
  };
  const customer = async (email: string, more: { taxExempt?: boolean } = {}) => {
    const res = await client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path },
      body: { email, firstName: "Maya", ...more },
    });
    assert.equal(res.response.status, 201, text(res));
    return res.data!.data;
  };
  const discount = async (body: DiscountBody) => {
    const res = await client.POST("/api/v1/dashboard/stores/{slug}/discounts", { params: { path }, body });
    assert.equal(res.response.status, 201, text(res));
    return res.data!.data;
  };
  const taxRate = async (body: RequestBody<"/api/v1/dashboard/stores/{slug}/tax-rates", "post">) => {
    const res = await client.POST("/api/v1/dashboard/stores/{slug}/tax-rates", { params: { path }, body });
    assert.equal(res.response.status, 201, text(res));
    return res.data!.data;
  };
  const order = (body: OrderBody) =>
    client.POST("/api/v1/dashboard/stores/{slug}/orders", { params: { path }, body });
  const placed = async (body: OrderBody) => {
    const res = await order(body);
    assert.equal(res.response.status, 201, text(res));
    assertIdentity(res.data!.data);
    return res.data!.data;
  };
  const events = <E extends EventName>(topic: E) => outboxOf(ctx.platform, topic, m.store.id);
  return { ...m, client, path, product, customer, discount, taxRate, order, placed, events };
}

export const NY = {
  name: "Maya Stone",
  line1: "5th Avenue 1",
  city: "New York",
  region: "NY",
  country: "US",
} as const;

/** An app with read_orders and write_orders, and an order it placed: one 12.00 mug for Ada. */
export async function appWithOrder(ctx: TestContext, email: string) {
  const app = await installedApp(ctx.app, ["read_orders", "write_orders", "read_products"]);
  const m = app.merchant;
  const product = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
    params: { path: { slug: m.slug } },
    body: flat({ title: "Mug", price: "12.00", stock: 5 }),
  });
  const order = await app.api.POST("/api/v1/apps/api/orders", {
    body: {
      customer: { email, firstName: "Ada" },
      lineItems: [{ productId: product.data!.data.id, quantity: 1 }],
    },
  });
  assert.equal(order.response.status, 201, text(order));
  return { app, order: order.data!.data };
}
