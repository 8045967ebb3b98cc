import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { verifyWebhook } from "@merchant-platform/sdk";
import pino from "pino";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { run } from "../packages/cli/src/commands.ts";
import { listenForEvents } from "../src/modules/webhooks/delivery/notifications.ts";
import { consent, exchange, REDIRECT } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import {
  apiClient,
  type EventBody,
  fieldErrors,
  merchantWithStore,
  offDocument,
  type Scope,
  text,
} from "./harness.ts";
import { type Received, startReceiver } from "./receiver.ts";
import { createWebhookContext, waitUntil } from "./webhooks-harness.ts";

/**
 * Issue 21, part 1: privacy webhooks every app receives at the privacy endpoint of its
 * registration, signed with its privacy secret, on the real delivery worker to real HTTPS
 * receivers: customer.redact when a customer is deleted or anonymised (apps with read_customers
 * only, with the order ids), customer.data_request from the customer's page (which shows whom it
 * asked), shop.redact SHOP_REDACT_DELAY_SECONDS after an uninstall (injected clock; never after a
 * reinstall; once, whichever worker sweeps); and the CLI's check-privacy.
 */

const SECRETS_KEY = randomBytes(32).toString("base64");
const HOUR_MS = 3_600_000;
const DELAY_SECONDS = 172_800;

type Ctx = Awaited<ReturnType<typeof createWebhookContext>>;
type Merchant = Awaited<ReturnType<typeof merchantWithStore>>;

function headersOf(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

/** Verified by the SDK and by the npm `standardwebhooks` library (at the delivery's own time). */
function assertSigned(got: Received, secret: string) {
  const at = Number(got.headers["webhook-timestamp"]) * 1000;
  const verified = verifyWebhook({ rawBody: got.body, headers: headersOf(got.headers), secret, now: at });
  const realNow = Date.now;
  Date.now = () => at;
  try {
    new StandardWebhook(secret).verify(got.body, headersOf(got.headers));
  } finally {
    Date.now = realNow;
  }
  assert.throws(() =>
    verifyWebhook({
      rawBody: got.body,
      headers: headersOf(got.headers),
      secret: `whsec_${randomBytes(32).toString("base64")}`,
      now: at,
    }),
  );
  return verified;
}

/** Registers an app (with a privacy endpoint at `path`, or none) and installs it in `merchant`'s store. */
async function installWithPrivacy(
  ctx: Ctx,
  merchant: Merchant,
  input: { scopes: Scope[]; privacyUrl?: string; name: string },
) {
  const dev = await merchantWithStore(ctx.app);
  const res = await dev.client.POST("/api/v1/dashboard/apps", {
    body: {
      name: input.name,
      redirectUris: [REDIRECT],
      scopes: input.scopes,
      ...(input.privacyUrl ? { privacyWebhookUrl: input.privacyUrl } : {}),
    },
  });
  assert.equal(res.response.status, 201, text(res));
  const app = res.data!.data;
  if (input.privacyUrl) {
    assert.match(app.privacySecret!, /^whsec_[A-Za-z0-9+/]{43}=$/, "the privacy secret, shown once");
    assert.equal(app.privacyWebhookUrl, input.privacyUrl);
  } else {
    assert.equal(app.privacySecret, undefined);
    assert.equal(app.privacyWebhookUrl, null);
  }
  const install = async () => {
    const { code } = await consent(merchant, app.clientId, input.scopes);
    const tokens = await exchange(ctx.app, {
      slug: merchant.slug,
      code,
      redirectUri: REDIRECT,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
    });
    assert.equal(tokens.response.status, 200, text(tokens));
    return apiClient(ctx.app, { headers: { authorization: `Bearer ${tokens.data!.data.accessToken}` } });
  };
  const api = await install();
  return {
    dev,
    clientId: app.clientId,
    privacySecret: app.privacySecret,
    api,
    install,
    uninstall: async () => {
      const r = await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/installations/{clientId}", {
        params: { path: { slug: merchant.slug, clientId: app.clientId } },
      });
      assert.equal(r.response.status, 200, text(r));
    },
  };
}

async function customerWithOrders(merchant: Merchant, orders: number) {
  const product = (
    await merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: merchant.slug } },
      body: flat({ title: "Mug", price: "12.00", stock: 50 }),
    })
  ).data!.data;
  const customer = (
    await merchant.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: merchant.slug } },
      body: {
        email: `c-${randomBytes(4).toString("hex")}@example.com`,
        firstName: "Layla",
      },
    })
  ).data!.data;
  const orderIds: string[] = [];
  for (let i = 0; i < orders; i++) {
    const order = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: merchant.slug } },
      body: {
        customerId: customer.id,
        lineItems: [{ productId: product.id, quantity: 1 }],
      },
    });
    assert.equal(order.response.status, 201, text(order));
    orderIds.push(order.data!.data.id);
  }
  return { customerId: customer.id, orderIds };
}

describe("privacy webhooks: customer.redact and customer.data_request", () => {
  let ctx: Ctx;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    ctx = await createWebhookContext({ SECRETS_KEY });
    rx = await startReceiver();
  });
  after(async () => {
    await rx.close();
    await ctx.close();
  });
  const at = (path: string) => rx.received.filter((r) => r.path === path);

  it("the privacy endpoint is https and checked like a subscription's; privacy events cannot be subscribed to", async () => {
    const dev = await merchantWithStore(ctx.app);
    const plain = await dev.client.POST("/api/v1/dashboard/apps", {
      body: {
        name: "Plain",
        redirectUris: [REDIRECT],
        scopes: ["read_customers"],
        privacyWebhookUrl: "http://app.example.com/privacy",
      },
    });
    assert.equal(plain.response.status, 400);
    assert.equal(fieldErrors(plain)[0]!.field, "privacyWebhookUrl");
    const merchant = await merchantWithStore(ctx.app);
    const app = await installWithPrivacy(ctx, merchant, {
      name: "Subscriber",
      scopes: ["read_customers", "manage_webhooks"],
      privacyUrl: `${rx.url}/sub-privacy`,
    });
    for (const eventName of ["customer.redact", "customer.data_request", "shop.redact"] as const) {
      const sub = await app.api.POST("/api/v1/apps/api/webhooks", {
        // Privacy events come on the app's own channel: no subscription takes them.
        body: offDocument({ eventName, targetUrl: `${rx.url}/x` }),
      });
      assert.equal(sub.response.status, 400, `${eventName}: ${text(sub)}`);
    }
    // The app's channel is not one of its subscriptions.
    await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: merchant.slug, id: (await customerWithOrders(merchant, 0)).customerId } },
    });
    await waitUntil(() => at("/sub-privacy").length === 1, 20_000, "customer.redact");
    assert.deepEqual((await app.api.GET("/api/v1/apps/api/webhooks")).data!.data, []);
    const listed = await app.dev.client.GET("/api/v1/dashboard/apps/{clientId}/webhooks", {
      params: { path: { clientId: app.clientId } },
    });
    assert.equal(listed.response.status, 200);
    assert.deepEqual(listed.data!.data, []);
  });

  it("anonymising a customer sends customer.redact with the order ids to every app with read_customers, not to another; deleting one without orders too", async () => {
    const merchant = await merchantWithStore(ctx.app);
    const a = await installWithPrivacy(ctx, merchant, {
      name: "Alpha CRM",
      scopes: ["read_customers"],
      privacyUrl: `${rx.url}/alpha`,
    });
    const b = await installWithPrivacy(ctx, merchant, {
      name: "Beta mail",
      scopes: ["read_customers", "read_orders"],
      privacyUrl: `${rx.url}/beta`,
    });
    const c = await installWithPrivacy(ctx, merchant, {
      name: "Catalogue sync",
      scopes: ["read_products", "read_orders"],
      privacyUrl: `${rx.url}/gamma`,
    });
    const d = await installWithPrivacy(ctx, merchant, {
      name: "Delta (no endpoint)",
      scopes: ["read_customers"],
    });
    const { customerId, orderIds } = await customerWithOrders(merchant, 2);
    const removed = await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: merchant.slug, id: customerId } },
    });
    assert.equal(removed.response.status, 200);
    assert.equal(removed.data!.data.outcome, "anonymized");
    await waitUntil(() => at("/alpha").length === 1 && at("/beta").length === 1, 20_000, "customer.redact");
    let eventId = "";
    for (const [got, app] of [
      [at("/alpha")[0]!, a],
      [at("/beta")[0]!, b],
    ] as const) {
      assert.equal(got.headers["x-webhook-event"], "customer.redact");
      const verified = assertSigned(got, app.privacySecret!);
      const body = JSON.parse(got.body) as EventBody<"customer.redact">;
      assert.equal(body.event, "customer.redact");
      assert.equal(body.store.slug, merchant.slug);
      assert.deepEqual(body.data, { customerId, orderIds });
      assert.equal(JSON.stringify(body.data).includes("@"), false, "no e-mail address in it");
      assert.equal(verified.eventId, body.id);
      assert.equal(verified.event.event, "customer.redact", "typed by the SDK as a privacy event");
      eventId ||= body.id;
      assert.equal(body.id, eventId, "one event, the same id for every app");
    }
    // The event feed shows it to the apps it concerns, with their delivery; not to another.
    await waitUntil(async () => {
      const feed = await a.api.GET("/api/v1/apps/api/events", {
        params: { query: { types: "customer.redact" } },
      });
      return feed.data!.data.some((e) => e.id === eventId && e.deliveries[0]?.status === "delivered");
    });
    const feedA = (
      await a.api.GET("/api/v1/apps/api/events", { params: { query: { types: "customer.redact" } } })
    ).data!.data;
    assert.deepEqual(feedA.find((e) => e.id === eventId)?.data, { customerId, orderIds });
    assert.deepEqual(feedA.find((e) => e.id === eventId)?.resource, { type: "customer", id: customerId });
    assert.equal(
      (await d.api.GET("/api/v1/apps/api/events", { params: { query: { types: "customer.redact" } } })).data!
        .data.length,
      1,
      "in D's feed",
    );
    const feedC = await c.api.GET("/api/v1/apps/api/events");
    assert.equal(feedC.response.status, 200);
    assert.equal(
      feedC.data!.data.some((e) => e.type === "customer.redact"),
      false,
      "an app without read_customers never sees it",
    );
    // Logged like any delivery, on the developer's delivery page.
    const log = await a.dev.client.GET("/api/v1/dashboard/apps/{clientId}/deliveries", {
      params: { path: { clientId: a.clientId } },
    });
    assert.equal(log.response.status, 200, text(log));
    const entry = log.data!.data.find((x) => x.eventId === eventId)!;
    assert.equal(entry.eventName, "customer.redact");
    assert.equal(entry.status, "delivered");
    assert.equal(entry.targetUrl, `${rx.url}/alpha`);

    // A customer without orders is deleted, and erased everywhere too.
    const lone = await customerWithOrders(merchant, 0);
    const deleted = await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: merchant.slug, id: lone.customerId } },
    });
    assert.equal(deleted.data!.data.outcome, "deleted");
    await waitUntil(() => at("/alpha").length === 2 && at("/beta").length === 2, 20_000, "second redact");
    assert.deepEqual((JSON.parse(at("/alpha")[1]!.body) as EventBody<"customer.redact">).data, {
      customerId: lone.customerId,
      orderIds: [],
    });
    await ctx.worker.settled();
    assert.equal(at("/gamma").length, 0, "never sent to an app without read_customers");
  });

  it("a failing privacy endpoint is retried like any delivery, and never disabled", async () => {
    const merchant = await merchantWithStore(ctx.app);
    let calls = 0;
    rx.setResponder((r, res) => {
      if (r.path === "/flaky" && ++calls === 1) {
        res.statusCode = 503;
        res.end("busy");
        return;
      }
      res.end("ok");
    });
    try {
      const app = await installWithPrivacy(ctx, merchant, {
        name: "Flaky",
        scopes: ["read_customers"],
        privacyUrl: `${rx.url}/flaky`,
      });
      const { customerId } = await customerWithOrders(merchant, 1);
      await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
        params: { path: { slug: merchant.slug, id: customerId } },
      });
      await waitUntil(() => at("/flaky").length === 2, 20_000, "the retry");
      const [first, second] = at("/flaky");
      assert.equal(first!.headers["x-webhook-attempt"], "1");
      assert.equal(second!.headers["x-webhook-attempt"], "2");
      assert.equal(first!.headers["x-webhook-id"], second!.headers["x-webhook-id"]);
      assertSigned(second!, app.privacySecret!);
    } finally {
      rx.setResponder((_r, res) => res.end("ok"));
    }
  });

  it("customer.data_request reaches the apps with read_customers, and the customer page shows whom it asked, when, and how it went", async () => {
    const merchant = await merchantWithStore(ctx.app);
    const a = await installWithPrivacy(ctx, merchant, {
      name: "Alpha CRM",
      scopes: ["read_customers"],
      privacyUrl: `${rx.url}/dr-alpha`,
    });
    await installWithPrivacy(ctx, merchant, {
      name: "Catalogue sync",
      scopes: ["read_products"],
      privacyUrl: `${rx.url}/dr-gamma`,
    });
    await installWithPrivacy(ctx, merchant, { name: "Delta (no endpoint)", scopes: ["read_customers"] });
    const { customerId, orderIds } = await customerWithOrders(merchant, 1);
    assert.deepEqual(
      (
        await merchant.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}/data-requests", {
          params: { path: { slug: merchant.slug, id: customerId } },
        })
      ).data!.data.requests,
      [],
    );
    const asked = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/customers/{id}/data-requests", {
      params: { path: { slug: merchant.slug, id: customerId } },
    });
    assert.equal(asked.response.status, 201, text(asked));
    assert.match(asked.data!.data.id, /^evt_/);
    assert.deepEqual(
      asked.data!.data.apps.map((x) => x.app.name),
      ["Alpha CRM"],
    );
    assert.deepEqual(
      asked.data!.data.appsWithoutEndpoint.map((x) => x.name),
      ["Delta (no endpoint)"],
    );
    await waitUntil(() => at("/dr-alpha").length === 1, 20_000, "customer.data_request");
    const got = at("/dr-alpha")[0]!;
    assertSigned(got, a.privacySecret!);
    const body = JSON.parse(got.body) as EventBody<"customer.data_request">;
    assert.equal(body.event, "customer.data_request");
    assert.equal(body.id, asked.data!.data.id);
    assert.equal(body.data.customerId, customerId);
    assert.deepEqual(body.data.orderIds, orderIds);
    assert.equal(body.data.requestedAt, asked.data!.data.requestedAt);
    await waitUntil(async () => {
      const listed = await merchant.client.GET(
        "/api/v1/dashboard/stores/{slug}/customers/{id}/data-requests",
        { params: { path: { slug: merchant.slug, id: customerId } } },
      );
      return listed.data!.data.requests[0]?.apps[0]?.delivery.status === "delivered";
    });
    const listed = (
      await merchant.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}/data-requests", {
        params: { path: { slug: merchant.slug, id: customerId } },
      })
    ).data!.data;
    assert.equal(listed.requests.length, 1);
    assert.equal(listed.requests[0]!.requestedAt, asked.data!.data.requestedAt);
    assert.deepEqual(listed.requests[0]!.apps[0]!.app, { clientId: a.clientId, name: "Alpha CRM" });
    assert.equal(listed.requests[0]!.apps[0]!.delivery.lastStatusCode, 200);
    assert.deepEqual(
      listed.appsWithoutEndpoint.map((x) => x.name),
      ["Delta (no endpoint)"],
    );
    assert.equal(at("/dr-gamma").length, 0);
    // Another store's customer, or an unknown one, is not found; a deleted one cannot be asked about.
    const other = await merchantWithStore(ctx.app);
    assert.equal(
      (
        await other.client.POST("/api/v1/dashboard/stores/{slug}/customers/{id}/data-requests", {
          params: { path: { slug: other.slug, id: customerId } },
        })
      ).response.status,
      404,
    );
    assert.equal(
      (
        await other.client.GET("/api/v1/dashboard/stores/{slug}/customers/{id}/data-requests", {
          params: { path: { slug: other.slug, id: customerId } },
        })
      ).response.status,
      404,
    );
    await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: merchant.slug, id: customerId } },
    });
    assert.equal(
      (
        await merchant.client.POST("/api/v1/dashboard/stores/{slug}/customers/{id}/data-requests", {
          params: { path: { slug: merchant.slug, id: customerId } },
        })
      ).response.status,
      409,
    );
  });

  it("the privacy secret rotates: the next delivery is signed with the new one, and with the old one too during the overlap; a moved endpoint keeps the secret", async () => {
    const merchant = await merchantWithStore(ctx.app);
    const app = await installWithPrivacy(ctx, merchant, {
      name: "Rotator",
      scopes: ["read_customers"],
      privacyUrl: `${rx.url}/rot-1`,
    });
    const moved = await app.dev.client.PATCH("/api/v1/dashboard/apps/{clientId}", {
      params: { path: { clientId: app.clientId } },
      body: {
        privacyWebhookUrl: `${rx.url}/rot-2`,
      },
    });
    assert.equal(moved.response.status, 200, text(moved));
    assert.equal(moved.data!.data.privacySecret, undefined, "a moved endpoint keeps its secret");
    assert.equal(moved.data!.data.privacyWebhookUrl, `${rx.url}/rot-2`);
    const rotated = await app.dev.client.POST("/api/v1/dashboard/apps/{clientId}/privacy-secret", {
      params: { path: { clientId: app.clientId } },
    });
    assert.equal(rotated.response.status, 200, text(rotated));
    const next = rotated.data!.data.privacySecret;
    assert.notEqual(next, app.privacySecret);
    const { customerId } = await customerWithOrders(merchant, 0);
    await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
      params: { path: { slug: merchant.slug, id: customerId } },
    });
    await waitUntil(() => at("/rot-2").length === 1, 20_000, "redact at the moved endpoint");
    const got = at("/rot-2")[0]!;
    assertSigned(got, next);
    assertSigned(got, app.privacySecret!);
    assert.equal(String(got.headers["webhook-signature"]).split(" ").length, 2);
    assert.equal(at("/rot-1").length, 0);
    // An app without an endpoint cannot rotate what it does not have; its page warns (null URL).
    const bare = await installWithPrivacy(ctx, merchant, { name: "Bare", scopes: ["read_orders"] });
    assert.equal(
      (
        await bare.dev.client.POST("/api/v1/dashboard/apps/{clientId}/privacy-secret", {
          params: { path: { clientId: bare.clientId } },
        })
      ).response.status,
      409,
    );
    const declared = await bare.dev.client.PATCH("/api/v1/dashboard/apps/{clientId}", {
      params: { path: { clientId: bare.clientId } },
      body: {
        privacyWebhookUrl: `${rx.url}/bare`,
      },
    });
    assert.match(
      declared.data!.data.privacySecret!,
      /^whsec_/,
      "the first endpoint declared makes the secret",
    );
  });
});

describe("privacy webhooks: shop.redact after an uninstall", () => {
  let ctx: Ctx;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let second: { stop(): Promise<void>; settled(): Promise<void> };
  before(async () => {
    ctx = await createWebhookContext({ SECRETS_KEY, SHOP_REDACT_DELAY_SECONDS: String(DELAY_SECONDS) });
    rx = await startReceiver();
    // A second worker sweeping the same database: shop.redact is still sent once.
    const worker = ctx.platform.webhooks.createWorker(pino({ level: "silent" }));
    const unlisten = await listenForEvents(ctx.platform.database, worker.poke, () => {});
    worker.start();
    second = {
      async stop() {
        await unlisten();
        await worker.stop();
      },
      settled: () => worker.settled(),
    };
  });
  after(async () => {
    await second.stop();
    await rx.close();
    await ctx.close();
  });
  const at = (path: string) => rx.received.filter((r) => r.path === path);

  it("is sent once, after the delay, to an app whose subscriptions have stopped; never after a reinstall; exactly once however many sweep", async () => {
    const merchant = await merchantWithStore(ctx.app);
    const gone = await installWithPrivacy(ctx, merchant, {
      name: "Gone",
      scopes: ["read_orders", "manage_webhooks"],
      privacyUrl: `${rx.url}/gone`,
    });
    const sub = await gone.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "app/uninstalled",
        targetUrl: `${rx.url}/gone-hooks`,
      },
    });
    assert.equal(sub.response.status, 201);
    const back = await installWithPrivacy(ctx, merchant, {
      name: "Back again",
      scopes: ["read_orders"],
      privacyUrl: `${rx.url}/back`,
    });
    await gone.uninstall();
    await back.uninstall();
    await back.install();
    await waitUntil(() => at("/gone-hooks").length === 1, 20_000, "app/uninstalled");

    // Not before the delay.
    ctx.clock.advance(DELAY_SECONDS * 1000 - HOUR_MS);
    // Both workers have swept (and sent whatever that made) at this time.
    await Promise.all([ctx.worker.settled(), second.settled()]);
    assert.equal(at("/gone").length, 0, "not before SHOP_REDACT_DELAY_SECONDS");

    ctx.clock.advance(2 * HOUR_MS);
    await waitUntil(() => at("/gone").length === 1, 30_000, "shop.redact");
    const got = at("/gone")[0]!;
    assert.equal(got.headers["x-webhook-event"], "shop.redact");
    assertSigned(got, gone.privacySecret!);
    const body = JSON.parse(got.body) as EventBody<"shop.redact">;
    assert.equal(body.event, "shop.redact");
    assert.equal(body.store.slug, merchant.slug);
    assert.equal(body.data.clientId, gone.clientId);
    assert.ok(
      Date.parse(body.data.uninstalledAt) < Date.parse(body.createdAt) - (DELAY_SECONDS - 3600) * 1000,
    );

    // However many sweep at once (two workers, and these), nothing more is sent.
    const privacy = ctx.platform.privacy;
    const sweeps = await Promise.all(Array.from({ length: 6 }, () => privacy.sweepShopRedactions()));
    assert.equal(
      sweeps.reduce((n, s) => n + s.sent, 0),
      0,
    );
    ctx.clock.advance(DELAY_SECONDS * 1000);
    await Promise.all([ctx.worker.settled(), second.settled()]);
    assert.equal(at("/gone").length, 1, "once only");
    assert.equal(at("/back").length, 0, "never after a reinstall");
    const recorded = await ctx.platform.db
      .selectFrom("events")
      .select(["topic", "installation_id"])
      .where("store_id", "=", merchant.store.id)
      .where("topic", "=", "shop.redact")
      .execute();
    assert.equal(recorded.length, 1);
  });

  it("exactly once under concurrent sweeps of many due uninstalls", async () => {
    const merchant = await merchantWithStore(ctx.app);
    const apps: Array<Awaited<ReturnType<typeof installWithPrivacy>>> = [];
    for (let i = 0; i < 6; i++)
      apps.push(
        await installWithPrivacy(ctx, merchant, {
          name: `Many ${i}`,
          scopes: ["read_orders"],
          privacyUrl: `${rx.url}/many-${i}`,
        }),
      );
    for (const app of apps) await app.uninstall();
    ctx.clock.advance(DELAY_SECONDS * 1000 + 1000);
    const sweeps = await Promise.all(
      Array.from({ length: 8 }, () => ctx.platform.privacy.sweepShopRedactions()),
    );
    await waitUntil(() => apps.every((_, i) => at(`/many-${i}`).length >= 1), 30_000, "every shop.redact");
    await Promise.all([ctx.worker.settled(), second.settled()]);
    for (let i = 0; i < apps.length; i++) assert.equal(at(`/many-${i}`).length, 1, `many-${i} once`);
    // The workers may have taken some before these sweeps: together, each exactly once.
    assert.ok(sweeps.reduce((n, s) => n + s.sent, 0) <= apps.length);
  });
});

describe("check-privacy", () => {
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  before(async () => {
    rx = await startReceiver((r, res) => {
      if (r.path === "/lax") {
        res.end("ok"); // accepts anything: what check-privacy must catch
        return;
      }
      try {
        verifyWebhook({ rawBody: r.body, headers: headersOf(r.headers), secret });
        res.statusCode = r.path === "/broken" ? 500 : 200;
        res.end("ok");
      } catch {
        res.statusCode = r.path === "/wrong-status" ? 400 : 401;
        res.end("bad signature");
      }
    });
  });
  after(() => rx.close());

  async function cli(args: string[], env: Record<string, string> = {}) {
    let out = "";
    let err = "";
    const sink = (f: (s: string) => void) =>
      new Writable({
        write(chunk, _enc, cb) {
          f(String(chunk));
          cb();
        },
      });
    const code = await run(args, {
      stdout: sink((s) => {
        out += s;
      }),
      stderr: sink((s) => {
        err += s;
      }),
      env: { HOME: "/nonexistent", ...env },
    });
    return { code, out, err };
  }

  it("passes against an endpoint that refuses bad signatures with 401 and accepts good ones", async () => {
    const ok = await cli(["check-privacy", `${rx.url}/good`, "--secret", secret]);
    assert.equal(ok.code, 0, ok.out + ok.err);
    const bodies = rx.received.filter((r) => r.path === "/good");
    assert.deepEqual(
      bodies.map((r) => r.headers["x-webhook-event"]),
      [
        "customer.redact",
        "customer.redact",
        "customer.data_request",
        "customer.data_request",
        "shop.redact",
        "shop.redact",
      ],
    );
    for (const r of bodies) assert.equal((JSON.parse(r.body) as EventBody).test, true);
    // The secret from the environment works the same.
    assert.equal((await cli(["check-privacy", `${rx.url}/good`], { MP_PRIVACY_SECRET: secret })).code, 0);
  });

  it("fails against an endpoint that accepts bad signatures, answers another status, or refuses good ones", async () => {
    const lax = await cli(["check-privacy", `${rx.url}/lax`, "--secret", secret]);
    assert.equal(lax.code, 5, lax.out);
    assert.match(lax.err, /accepted a request with a wrong signature/);
    assert.equal((await cli(["check-privacy", `${rx.url}/wrong-status`, "--secret", secret])).code, 5);
    assert.equal((await cli(["check-privacy", `${rx.url}/broken`, "--secret", secret])).code, 5);
    const other = `whsec_${randomBytes(32).toString("base64")}`;
    assert.equal((await cli(["check-privacy", `${rx.url}/good`, "--secret", other])).code, 5);
    assert.equal((await cli(["check-privacy", "https://127.0.0.1:1/closed", "--secret", secret])).code, 5);
    assert.equal((await cli(["check-privacy", `${rx.url}/good`])).code, 2, "no secret: usage");
    assert.equal((await cli(["check-privacy", "not a url", "--secret", secret])).code, 2);
  });
});
