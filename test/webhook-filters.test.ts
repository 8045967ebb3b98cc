import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { verifyWebhook } from "@merchant-platform/sdk";
import { Webhook } from "standardwebhooks";
import { run } from "../packages/cli/src/commands.ts";
import { installedApp } from "./apps-harness.ts";
import {
  type EventBody,
  errorCode,
  fieldErrors,
  type Json,
  offDocument,
  type RequestBody,
  type ResponseData,
  type Scope,
  text,
} from "./harness.ts";

type SubscriptionBody = RequestBody<"/api/v1/apps/api/webhooks", "post">;

import { flat } from "./catalogue.ts";
import { type Received, startReceiver } from "./receiver.ts";
import { createWebhookContext, waitUntil } from "./webhooks-harness.ts";

/**
 * Issue 21, part 2: a subscription's `filter` and `fields`. A subscription to `order.paid` with
 * `status:paid AND total:>100` and three fields receives exactly the matching orders with exactly
 * those fields (and `id`), signed over the body as sent (the SDK's verifyWebhook with either
 * family of headers, the npm `standardwebhooks` verifier); the events it does not match make no
 * delivery row, count as no failure, and stay whole in the event feed; test events are sent
 * whatever the filter says, projected; bad filters and fields are 400s naming the problem; every
 * read shows both. Real HTTPS receiver, the real worker, both databases.
 */

const SCOPES: Scope[] = ["read_orders", "write_orders", "read_products", "manage_webhooks"];
const FIELDS = ["total", "currency", "customerId"];

type Headers = Record<string, string>;

function headersOf(headers: IncomingHttpHeaders): Headers {
  return Object.fromEntries(
    Object.entries(headers).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

/** Only the headers of one signature family (the other removed), so the SDK must verify by that one. */
function family(headers: Headers, which: "standard" | "spec"): Headers {
  return Object.fromEntries(
    Object.entries(headers).filter(([k]) =>
      which === "spec" ? !k.startsWith("webhook-") : !k.startsWith("x-webhook-"),
    ),
  );
}

describe("subscription filters and field lists", () => {
  let ctx: Awaited<ReturnType<typeof createWebhookContext>>;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    ctx = await createWebhookContext({ SECRETS_KEY: randomBytes(32).toString("base64") });
    rx = await startReceiver();
  });
  after(async () => {
    await rx.close();
    await ctx.close();
  });

  /**
   * The deliveries that reached `path`, each once: delivery is at least once, and on a loaded
   * machine an attempt that outlived the 1 s time-out is retried (the same x-webhook-id).
   */
  const at = (path: string) => {
    const seen = new Set<string>();
    return rx.received.filter((r) => {
      const id = String(r.headers["x-webhook-id"]);
      if (r.path !== path || seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  };

  it("a filtered order.paid subscription receives exactly the matching orders, with exactly its fields, verifiably signed", async () => {
    const inst = await installedApp(ctx.app, SCOPES);
    const m = inst.merchant;
    const subscribe = async (path: string, extra: Partial<SubscriptionBody> = {}) => {
      const res = await inst.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "order.paid",
          targetUrl: `${rx.url}${path}`,
          ...extra,
        },
      });
      assert.equal(res.response.status, 201, text(res));
      return res.data!.data;
    };
    const big = await subscribe("/big", { filter: "status:paid AND total:>100", fields: FIELDS });
    assert.equal(big.filter, "status:paid AND total:>100", "the create answer shows the filter");
    assert.deepEqual(big.fields, FIELDS);
    const all = await subscribe("/all");
    assert.equal(all.filter, null);
    assert.equal(all.fields, null);
    // Matches nothing real: shows below that a test event ignores the filter.
    const never = await subscribe("/never", { filter: "total:>99999999" });
    // Disabled by the platform: a matching event is a skipped delivery (that is a failure in the
    // feed), a non-matching one nothing at all.
    const paused = await subscribe("/paused", { filter: "total:>200" });
    await ctx.platform.db
      .updateTable("webhook_subscriptions")
      .set({ status: "disabled", disabled_at: new Date(), disabled_reason: "HTTP 410 Gone" })
      .where("id", "=", paused.id)
      .execute();

    const product = (
      await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body: flat({ title: "Lamp", price: "45.00", stock: 100 }),
      })
    ).data!.data;
    const customer = (
      await m.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: m.slug } },
        body: { email: "filters@example.com", firstName: "Filter" },
      })
    ).data!.data;
    // Totals 45, 135, 90, 225: the second and the fourth are over 100, only the fourth over 200.
    const orders: Array<ResponseData<"/api/v1/dashboard/stores/{slug}/orders/{id}/status", "post">> = [];
    for (const quantity of [1, 3, 2, 5]) {
      const order = await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: m.slug } },
        body: {
          customerId: customer.id,
          lineItems: [{ productId: product.id, quantity }],
        },
      });
      assert.equal(order.response.status, 201, text(order));
      const paid = await m.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
        params: { path: { slug: m.slug, id: order.data!.data.id } },
        body: { status: "paid" },
      });
      assert.equal(paid.response.status, 200, text(paid));
      orders.push(paid.data!.data);
    }
    assert.deepEqual(
      orders.map((o) => o.total),
      ["45.00", "135.00", "90.00", "225.00"],
    );
    const matching = orders.filter((o) => Number(o.total) > 100);

    // The unfiltered subscription gets all four: by then every event has been dispatched.
    await waitUntil(() => at("/all").length >= 4, 20_000, "4 deliveries at /all");
    await waitUntil(() => at("/big").length >= 2, 20_000, "2 deliveries at /big");
    const undispatched = await ctx.platform.db
      .selectFrom("events")
      .select("id")
      .where("store_id", "=", m.store.id)
      .where("dispatched_at", "is", null)
      .execute();
    assert.deepEqual(undispatched, [], "events nobody's filter matched are dispatched all the same");

    const got = at("/big");
    assert.equal(got.length, 2, "exactly the matching orders (each delivery once, whatever its attempts)");
    // Projected bodies: only the subscription's fields of `data`, not the document's whole event.
    const bodies = got.map((r) => JSON.parse(r.body) as Json);
    assert.deepEqual(bodies.map((b) => b.data.id).sort(), matching.map((o) => o.id).sort());
    for (const [i, body] of bodies.entries()) {
      const order = matching.find((o) => o.id === body.data.id)!;
      assert.equal(body.event, "order.paid");
      // Exactly the chosen fields and id, with the order's values.
      assert.deepEqual(Object.keys(body.data).sort(), ["currency", "customerId", "id", "total"]);
      assert.deepEqual(body.data, {
        id: order.id,
        customerId: order.customerId,
        currency: order.currency,
        total: order.total,
      });
      const r = got[i]!;
      assertVerifies(big.secret, r, `delivery ${i + 1}`);
    }
    // The unfiltered subscription's bodies are whole.
    for (const r of at("/all")) {
      const data = (JSON.parse(r.body) as EventBody<"order.paid">).data;
      assert.ok("lineItems" in data && "status" in data && "subtotal" in data, "the whole order");
    }
    assert.equal(at("/never").length, 0);
    assert.equal(at("/paused").length, 0);

    // Delivery rows: the non-matching events made none, for the active and the disabled subscription.
    const rows = async (subscriptionId: string) =>
      ctx.platform.db
        .selectFrom("webhook_deliveries")
        .select(["event_id", "status"])
        .where("subscription_id", "=", subscriptionId)
        .execute();
    assert.equal((await rows(big.id)).length, 2);
    assert.equal((await rows(all.id)).length, 4);
    assert.equal((await rows(never.id)).length, 0);
    const skipped = await rows(paused.id);
    assert.deepEqual(
      skipped.map((s) => s.status),
      ["skipped"],
      "only the matching event is kept for the disabled subscription",
    );
    const failures = await ctx.platform.db
      .selectFrom("webhook_subscription_failures")
      .select("subscription_id")
      .where("subscription_id", "in", [big.id, never.id])
      .execute();
    assert.deepEqual(failures, [], "a filtered-out event is no run of failures");

    // The event feed: every order.paid whole; the filtered-out ones have no delivery to the
    // filtered subscriptions; delivery=failed lists only the disabled subscription's matching one.
    const feed = await inst.api.GET("/api/v1/apps/api/events", {
      params: { query: { types: "order.paid" } },
    });
    assert.equal(feed.response.status, 200, text(feed));
    const items = feed.data!.data;
    assert.equal(items.length, 4);
    for (const item of items) {
      assert.ok("lineItems" in item.data && "total" in item.data, "the feed shows the whole event");
      const subs = item.deliveries.map((d) => d.subscriptionId);
      const matched = Number(item.data.total) > 100;
      assert.equal(subs.includes(big.id), matched, `order ${item.data.total} to /big`);
      assert.equal(subs.includes(never.id), false);
      assert.ok(subs.includes(all.id));
    }
    const failed = await inst.api.GET("/api/v1/apps/api/events", {
      params: { query: { delivery: "failed" } },
    });
    assert.equal(failed.response.status, 200, text(failed));
    assert.deepEqual(
      failed.data!.data.map((e) => ("total" in e.data ? e.data.total : undefined)),
      ["225.00"],
      "events a filter left out are not failures",
    );

    // A test event is sent to every subscription of the event, whatever its filter, projected.
    const sent = { big: at("/big").length, never: at("/never").length };
    const test = await inst.api.POST("/api/v1/apps/api/webhooks/test", { body: { event: "order.paid" } });
    assert.equal(test.response.status, 202, text(test));
    await waitUntil(
      () => at("/big").length > sent.big && at("/never").length > sent.never,
      20_000,
      "the test event at /big and /never",
    );
    const tested = at("/big").find((r) => (JSON.parse(r.body) as EventBody<"order.paid">).test === true)!;
    // Projected: only the subscription's fields of `data`, not the document's whole event.
    const testBody = JSON.parse(tested.body) as Json;
    assert.equal(testBody.test, true);
    assert.deepEqual(Object.keys(testBody.data).sort(), ["currency", "customerId", "id", "total"]);
    assertVerifies(big.secret, tested, "test event");
    assert.equal(at("/never").length, 1, "the test event only");
    const neverBody = JSON.parse(at("/never")[0]!.body) as EventBody<"order.paid">;
    assert.equal(neverBody.test, true);
    assert.ok("lineItems" in neverBody.data, "no fields: the whole test order");

    // Every read shows filter and fields: the Admin API list, and the developer's dashboard list.
    const listed = await inst.api.GET("/api/v1/apps/api/webhooks");
    assert.equal(listed.response.status, 200);
    const byId = new Map(listed.data!.data.map((s) => [s.id, s]));
    assert.equal(byId.get(big.id)?.filter, "status:paid AND total:>100");
    assert.deepEqual(byId.get(big.id)?.fields, FIELDS);
    assert.equal(byId.get(all.id)?.filter, null);
    assert.equal(byId.get(all.id)?.fields, null);
    assert.equal(byId.get(paused.id)?.filter, "total:>200");
    const dashboard = await inst.dev.client.GET("/api/v1/dashboard/apps/{clientId}/webhooks", {
      params: { path: { clientId: inst.clientId } },
    });
    assert.equal(dashboard.response.status, 200, text(dashboard));
    const mine = dashboard.data!.data.find((s) => s.id === big.id);
    assert.equal(mine?.filter, "status:paid AND total:>100");
    assert.deepEqual(mine?.fields, FIELDS);
    // The CLI's `webhooks` prints them under the subscription.
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    let out = "";
    const sink = new Writable({
      write(chunk, _encoding, done) {
        out += String(chunk);
        done();
      },
    });
    const port = (ctx.app.server.address() as AddressInfo).port;
    const code = await run(
      ["webhooks", "--base-url", `http://127.0.0.1:${port}`, "--token", inst.tokens.accessToken as string],
      { stdout: sink, stderr: sink, env: { HOME: "/nonexistent" } },
    );
    assert.equal(code, 0, out);
    assert.match(
      out,
      new RegExp(
        `${big.id} .*/big\n {4}filter: status:paid AND total:>100\n {4}fields: total, currency, customerId \\(and id\\)\n`,
      ),
    );
    assert.match(out, new RegExp(`${all.id} .*/all\n(?! {4}f)`), "nothing more for an unfiltered one");
    // Deleting answers the subscription as it was, with them too.
    const removed = await inst.api.DELETE("/api/v1/apps/api/webhooks/{id}", {
      params: { path: { id: big.id } },
    });
    assert.equal(removed.response.status, 200);
    assert.deepEqual(removed.data!.data.fields, FIELDS);
  });

  it("app/uninstalled, queued by the uninstall itself, takes a subscription's filter and fields too", async () => {
    const inst = await installedApp(ctx.app, SCOPES);
    const sub = async (path: string, extra: Partial<SubscriptionBody>) => {
      const res = await inst.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "app/uninstalled",
          targetUrl: `${rx.url}${path}`,
          ...extra,
        },
      });
      assert.equal(res.response.status, 201, text(res));
      return res.data!.data;
    };
    const named = await sub("/gone-named", { fields: ["appName"] });
    const other = await sub("/gone-other", { filter: 'appName:"Another app"' });
    const un = await inst.merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/installations/{clientId}", {
      params: { path: { slug: inst.merchant.slug, clientId: inst.clientId } },
    });
    assert.equal(un.response.status, 200, text(un));
    await waitUntil(() => at("/gone-named").length === 1, 20_000, "app/uninstalled at /gone-named");
    const got = at("/gone-named")[0]!;
    // Projected to `appName`: not the document's whole event.
    assert.deepEqual((JSON.parse(got.body) as Json).data, { appName: "Test App" }, "no id in this data");
    assertVerifies(named.secret, got, "app/uninstalled");
    const rows = await ctx.platform.db
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("subscription_id", "=", other.id)
      .execute();
    assert.deepEqual(rows, [], "the filter left it out: no delivery");
    assert.equal(at("/gone-other").length, 0);
  });

  it("refuses a filter or fields that cannot work, naming the problem (400 in the envelope)", async () => {
    const inst = await installedApp(ctx.app, SCOPES);
    // Filters and fields the document's types allow but the service refuses, and some it does not
    // allow at all: untyped on purpose.
    const create = (extra: Json, eventName = "order.paid") =>
      inst.api.POST("/api/v1/apps/api/webhooks", {
        body: offDocument({ eventName, targetUrl: `${rx.url}/refused`, ...extra }),
      });
    const refused = async (extra: Json, field: string, message: RegExp, eventName?: string) => {
      const res = await create(extra, eventName);
      assert.equal(res.response.status, 400, text(res));
      assert.equal((res.data ?? res.error)!.success, false);
      assert.equal(errorCode(res), "VALIDATION_FAILED");
      const details = fieldErrors(res);
      const detail = details.find((d) => d.field === field);
      assert.ok(detail, `a detail naming ${field}: ${text(res)}`);
      assert.match(detail.message, message);
    };
    await refused({ filter: "status:paid AND total:>x" }, "filter", /compares numbers.*at character 23/);
    await refused({ filter: "status:paid total:>1" }, "filter", /AND, OR or the end.*at character 13/);
    await refused(
      { filter: "status:paid AND totl:>100" },
      "filter",
      /"totl" is not a field of order\.paid's data/,
    );
    await refused({ filter: "status:payed" }, "filter", /"payed" is not a value of "status"/);
    await refused({ filter: "lineItems.sku:A1" }, "filter", /"lineItems" is a list/);
    await refused({ filter: "title:Lamp" }, "filter", /not a field of order\.paid's data/);
    await refused(
      { filter: "total:>10" },
      "filter",
      /not a field of product\.created's data/,
      "product.created",
    );
    await refused({ fields: ["total", "nope"] }, "fields.1", /"nope" is not a field of order\.paid's data/);
    await refused({ fields: ["shippingAddress.country"] }, "fields.0", /nested/);
    // Bounds from the contract, refused by the schema before anything else.
    await refused({ filter: `note:"${"x".repeat(500)}"` }, "filter", /500/);
    await refused({ fields: Array.from({ length: 31 }, (_, i) => `f${i}`) }, "fields", /30/);
    await refused({ fields: [] }, "fields", /1/);
    await refused({ filter: "" }, "filter", /1/);
    // Nothing was created by any of them.
    assert.deepEqual((await inst.api.GET("/api/v1/apps/api/webhooks")).data!.data, []);
    // A filter over nested objects and the app's own metadata is fine.
    const ok = await create({
      filter: "shippingAddress.country:[DE,SA] OR metadata.erpId:X1",
      fields: ["id"],
    });
    assert.equal(ok.response.status, 201, text(ok));
  });

  /** Verified by the SDK with each family of headers alone, and by the stock Standard Webhooks library. */
  function assertVerifies(secret: string, r: Received, what: string) {
    const headers = headersOf(r.headers);
    const now = Number(headers["webhook-timestamp"]) * 1000;
    for (const which of ["spec", "standard"] as const) {
      const verified = verifyWebhook({ rawBody: r.body, headers: family(headers, which), secret, now });
      assert.equal(verified.event.id, (JSON.parse(r.body) as EventBody).id, `${what}: SDK, ${which} headers`);
    }
    const realNow = Date.now;
    Date.now = () => now;
    try {
      assert.deepEqual(
        new Webhook(secret).verify(r.body, headers),
        JSON.parse(r.body),
        `${what}: standardwebhooks`,
      );
      // The signature covers the body as sent: the whole event would not verify.
      const widened = r.body.replace('"data":{', '"data":{"status":"paid",');
      assert.throws(() => new Webhook(secret).verify(widened, headers), /signature/i);
    } finally {
      Date.now = realNow;
    }
  }
});
