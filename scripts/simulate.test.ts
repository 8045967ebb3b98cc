import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { ORDER_STATUSES, type OrderStatus } from "../src/contracts/statuses.ts";
import { createTestContext, merchantWithStore, outbox, type TestContext } from "../test/harness.ts";
import { parseRate, SimulateError, simulate } from "./simulate.ts";

describe("store traffic simulator", () => {
  let ctx: TestContext;
  let baseUrl: string;
  before(async () => {
    ctx = await createTestContext();
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  });
  after(() => ctx.close());

  it("parses rates", () => {
    assert.equal(parseRate("60/min"), 60);
    assert.equal(parseRate("2/s"), 120);
    assert.equal(parseRate("600/h"), 10);
    assert.throws(() => parseRate("fast"), /--rate/);
  });

  it("creates customers and orders and moves orders along legal transitions, each an event", async () => {
    const m = await merchantWithStore(ctx.app);
    let seed = 7;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    const result = await simulate({
      baseUrl,
      store: m.slug,
      email: m.email,
      password: m.password,
      perMinute: 60_000,
      count: 60,
      out: null,
      random,
    });
    assert.equal(result.errors, 0, JSON.stringify(result));
    assert.ok(result.customers > 5 && result.orders > 5 && result.statusChanges > 5, JSON.stringify(result));
    const orders = (
      await m.client.GET("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: m.slug }, query: { limit: 250 } },
      })
    ).data!.data as Array<{
      id: string;
      status: OrderStatus;
    }>;
    assert.equal(orders.length, result.orders);
    assert.ok(
      orders.some((o) => o.status !== "pending"),
      "some orders moved on",
    );
    for (const o of orders) {
      const history = (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/history", {
          params: { path: { slug: m.slug, id: o.id } },
        })
      ).data!.data as Array<{
        status: OrderStatus;
      }>;
      for (let i = 1; i < history.length; i++)
        assert.ok(
          (ORDER_STATUSES[history[i - 1]!.status].next as readonly string[]).includes(history[i]!.status),
          `${history[i - 1]!.status} -> ${history[i]!.status}`,
        );
    }
    const topics = (await outbox(ctx.platform, m.store.id)).map((e) => e.topic);
    assert.equal(topics.filter((t) => t === "customer.created").length, result.customers);
    assert.equal(topics.filter((t) => t === "order.created").length, result.orders);
  });

  it("stops with a clear error for a wrong password or an unknown store", async () => {
    const m = await merchantWithStore(ctx.app);
    const base = { baseUrl, email: m.email, perMinute: 600, count: 1, out: null };
    await assert.rejects(simulate({ ...base, store: m.slug, password: "wrong password!" }), SimulateError);
    await assert.rejects(simulate({ ...base, store: "no-such-store", password: m.password }), /not found/);
    // Nothing listening (a port just freed): the URL and why, not fetch's bare "fetch failed".
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await assert.rejects(
      simulate({ ...base, baseUrl: `http://127.0.0.1:${port}`, store: m.slug, password: m.password }),
      (e: Error) =>
        e instanceof SimulateError &&
        e.message.startsWith(
          `POST http://127.0.0.1:${port}/api/v1/dashboard/auth/login failed: ECONNREFUSED`,
        ),
    );
  });

  it("--help prints the usage and exits 0", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      join(import.meta.dirname, "simulate.ts"),
      "--help",
    ]);
    assert.match(stdout, /^usage: npm run simulate -- --store <slug>/);
  });
});
