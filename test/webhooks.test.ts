import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { installedApp } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import {
  detailsOf,
  type EventBody,
  errorCode,
  fieldErrors,
  type Json,
  offDocument,
  type Scope,
} from "./harness.ts";
import { startReceiver } from "./receiver.ts";
import { createWebhookContext, waitUntil } from "./webhooks-harness.ts";

/** An independent verifier, as a receiver would write it: WebCrypto HMAC and a constant-time compare. */
async function verify(
  secret: string,
  timestamp: string,
  rawBody: string,
  signature: string,
): Promise<boolean> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["verify"],
  );
  return crypto.subtle.verify(
    "HMAC",
    key,
    Buffer.from(signature, "hex"),
    new TextEncoder().encode(`${timestamp}.${rawBody}`),
  );
}

const ALL: Scope[] = ["read_products", "write_products", "read_orders", "read_customers", "manage_webhooks"];

describe("webhooks: subscriptions and signed, retried deliveries to real HTTPS receivers", () => {
  let ctx: Awaited<ReturnType<typeof createWebhookContext>>;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    ctx = await createWebhookContext();
    rx = await startReceiver();
  });
  after(async () => {
    await rx.close();
    await ctx.close();
  });

  it("manages subscriptions under scope rules: https only, secret once, own subscriptions only", async () => {
    const a = await installedApp(ctx.app, ["read_products", "manage_webhooks"]);
    const b = await installedApp(ctx.app, ALL);
    const created = await a.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "product.created",
        targetUrl: `${rx.url}/a`,
      },
    });
    assert.equal(created.response.status, 201);
    assert.match(created.data!.data.id, /^whsub_/);
    assert.match(
      created.data!.data.secret,
      /^whsec_[A-Za-z0-9+/]{43}=$/,
      "Standard Webhooks form: base64 of 32 bytes",
    );
    const list = await a.api.GET("/api/v1/apps/api/webhooks");
    assert.equal(list.data!.data.length, 1);
    // Not in the document's listed subscription, read on purpose: the secret must not be listed.
    assert.equal((list.data!.data[0]! as Json).secret, undefined);
    const noScope = await a.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "order.paid",
        targetUrl: `${rx.url}/a`,
      },
    });
    assert.equal(noScope.response.status, 403);
    assert.equal(detailsOf(noScope).requiredScope, "read_orders");
    const uninstalledEvent = await a.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "app/uninstalled",
        targetUrl: `${rx.url}/a`,
      },
    });
    assert.equal(uninstalledEvent.response.status, 201, "app/uninstalled needs no scope");
    const http = await a.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "product.created",
        targetUrl: "http://example.com/hook",
      },
    });
    assert.equal(http.response.status, 400);
    assert.equal(errorCode(http), "VALIDATION_FAILED");
    const badName = await a.api.POST("/api/v1/apps/api/webhooks", {
      // No such event in the document.
      body: offDocument({
        eventName: "order.exploded",
        targetUrl: `${rx.url}/a`,
      }),
    });
    assert.equal(badName.response.status, 400);
    const dup = await a.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "product.created",
        targetUrl: `${rx.url}/a`,
      },
    });
    assert.equal(dup.response.status, 409);
    assert.equal(
      (
        await b.api.DELETE("/api/v1/apps/api/webhooks/{id}", {
          params: { path: { id: created.data!.data.id } },
        })
      ).response.status,
      404,
      "another app's id",
    );
    assert.equal(
      (
        await a.api.DELETE("/api/v1/apps/api/webhooks/{id}", {
          params: { path: { id: created.data!.data.id } },
        })
      ).response.status,
      200,
    );
    assert.equal(
      (
        await a.api.DELETE("/api/v1/apps/api/webhooks/{id}", {
          params: { path: { id: created.data!.data.id } },
        })
      ).response.status,
      404,
    );
    const noManage = await installedApp(ctx.app, ["read_products"]);
    assert.equal((await noManage.api.GET("/api/v1/apps/api/webhooks")).response.status, 403);
  });

  it("delivers a signed body with the spec's headers, verifiable by an independent implementation", async () => {
    rx.setResponder((_r, res) => res.end("thanks"));
    const inst = await installedApp(ctx.app, ALL);
    const sub = (
      await inst.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "product.created",
          targetUrl: `${rx.url}/signed`,
        },
      })
    ).data!.data;
    const before = rx.received.length;
    const startSeconds = Math.floor(Date.now() / 1000);
    const product = (
      await inst.merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: inst.merchant.slug } },
        body: flat({ title: "Hooked", price: "3.50" }),
      })
    ).data!.data;
    await rx.waitFor(before + 1);
    const got = rx.received[before]!;
    assert.equal(got.path, "/signed");
    assert.equal(got.headers["x-webhook-event"], "product.created");
    assert.equal(got.headers["x-webhook-attempt"], "1");
    assert.match(String(got.headers["x-webhook-id"]), /^whd_/);
    assert.match(String(got.headers["x-webhook-signature"]), /^[0-9a-f]{64}$/);
    const ts = String(got.headers["x-webhook-timestamp"]);
    // Unix seconds of the attempt itself: between the commit and its arrival, however slow the machine.
    assert.match(ts, /^\d+$/);
    assert.ok(Number(ts) >= startSeconds && Number(ts) <= Math.ceil(got.at / 1000), ts);
    assert.equal(await verify(sub.secret, ts, got.body, String(got.headers["x-webhook-signature"])), true);
    assert.equal(
      await verify(sub.secret, ts, `${got.body} `, String(got.headers["x-webhook-signature"])),
      false,
    );
    const body = JSON.parse(got.body) as EventBody<"product.created">;
    assert.equal(body.event, "product.created");
    assert.match(body.id, /^evt_/);
    assert.deepEqual(body.store, { slug: inst.merchant.slug });
    // The resource as the API returns it, with the receiving app's own metadata (none yet).
    assert.deepEqual(body.data, { ...product, metadata: {} }, "data is the resource as the API returns it");
    // Events before the subscription existed are not delivered; other events are not either.
    const customer = await inst.merchant.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: inst.merchant.slug } },
      body: {
        email: "c@example.com",
        firstName: "C",
      },
    });
    // Wait until the worker has fanned the customer event out (to nobody), rather than sleeping.
    const customerEvent = () =>
      ctx.platform.db
        .selectFrom("events")
        .select(["id", "dispatched_at"])
        .where("resource_id", "=", customer.data!.data.id)
        .executeTakeFirstOrThrow();
    await waitUntil(async () => (await customerEvent()).dispatched_at !== null, 20_000, "fan-out");
    const fanned = await ctx.platform.db
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("event_id", "=", (await customerEvent()).id)
      .execute();
    assert.equal(fanned.length, 0, "no subscription to customer.created: no delivery");
    assert.equal(rx.received.length, before + 1);
  });

  it("retries 5xx on the doubling schedule, stops at 8 attempts, keeps the body and id, and shows the attempts", async () => {
    const inst = await installedApp(ctx.app, ALL);
    const sub = (
      await inst.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "customer.created",
          targetUrl: `${rx.url}/flaky`,
        },
      })
    ).data!.data;
    const mine = () => rx.received.filter((r) => r.path === "/flaky");
    const attemptsLogged = async (subscriptionId: string) =>
      Number(
        (
          await ctx.platform.db
            .selectFrom("webhook_attempts as a")
            .innerJoin("webhook_deliveries as d", (j) =>
              j.onRef("d.store_id", "=", "a.store_id").onRef("d.id", "=", "a.delivery_id"),
            )
            .where("d.subscription_id", "=", subscriptionId)
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    rx.setResponder((r, res) => res.writeHead(r.path === "/flaky" ? 503 : 200).end("down"));
    await inst.merchant.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: inst.merchant.slug } },
      body: {
        email: "retry@example.com",
        firstName: "R",
      },
    });
    // The schedule runs on the injected clock: after each attempt the test moves it past the
    // next back-off and wakes the worker, so eight attempts take no real 25 s.
    for (let n = 1; n <= 8; n++) {
      await waitUntil(() => mine().length >= n, 20_000, `attempt ${n}`);
      await waitUntil(
        async () => (await attemptsLogged(sub.id as string)) >= n,
        20_000,
        `attempt ${n} recorded`,
      );
      ctx.clock.advance(200 * 2 ** (n - 1));
      ctx.worker.poke();
    }
    await ctx.worker.settled();
    const attempts = mine();
    assert.equal(attempts.length, 8, "never more than 8 attempts");
    assert.deepEqual(
      attempts.map((a) => a.headers["x-webhook-attempt"]),
      ["1", "2", "3", "4", "5", "6", "7", "8"],
    );
    assert.equal(new Set(attempts.map((a) => a.headers["x-webhook-id"])).size, 1);
    assert.equal(new Set(attempts.map((a) => a.body)).size, 1, "identical bytes on every attempt");
    const deliveries = await inst.dev.client.GET("/api/v1/dashboard/apps/{clientId}/deliveries", {
      params: { path: { clientId: inst.clientId }, query: { status: "failed" } },
    });
    assert.equal(deliveries.response.status, 200);
    const d = deliveries.data!.data.find((x) => x.subscriptionId === sub.id)!;
    assert.equal(d.attempts, 8);
    assert.equal(d.attemptLog.length, 8);
    // The doubling schedule from the attempt log: attempt n+1 never starts before attempt n ended
    // plus 200 ms x 2^(n-1). Only the lower bound is asserted: how late a busy machine runs an
    // attempt says nothing about the policy (whose exact delays retry-policy.test.ts pins).
    const log = d.attemptLog;
    for (let n = 1; n < log.length; n++) {
      const ended = Date.parse(log[n - 1]!.startedAt) + log[n - 1]!.durationMs;
      const gap = Date.parse(log[n]!.startedAt) - ended;
      // 1 ms for durationMs being rounded to whole milliseconds.
      assert.ok(gap >= 200 * 2 ** (n - 1) - 1, `attempt ${n + 1} started ${gap} ms after attempt ${n}`);
    }
    assert.equal(d.attemptLog[0]!.statusCode, 503);
    assert.equal(d.attemptLog[0]!.responseBody, "down");
    // Redeliver: a new delivery, attempted at once.
    rx.setResponder((_r, res) => res.end("ok"));
    const count = mine().length;
    const again = await inst.dev.client.POST("/api/v1/dashboard/apps/{clientId}/deliveries/{id}/redeliver", {
      params: { path: { clientId: inst.clientId, id: d.id } },
    });
    assert.equal(again.response.status, 201);
    assert.equal(again.data!.data.redeliveryOf, d.id);
    // Attempted at once: it may have arrived before the POST answered, so count from before it.
    await waitUntil(() => mine().length === count + 1, 5000, "redelivery");
    assert.equal(mine().at(-1)!.body, attempts[0]!.body);
  });

  it("does not retry 410, 400 or redirects; honours a longer Retry-After on 429", async () => {
    const inst = await installedApp(ctx.app, ALL);
    const paths = { "/gone": 410, "/bad": 400, "/moved": 301 } as Record<string, number>;
    for (const path of Object.keys(paths)) {
      await inst.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "product.created",
          targetUrl: `${rx.url}${path}`,
        },
      });
    }
    await inst.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "product.created",
        targetUrl: `${rx.url}/busy`,
      },
    });
    let busyCalls = 0;
    rx.setResponder((r, res) => {
      if (paths[r.path])
        return res
          .writeHead(paths[r.path]!, r.path === "/moved" ? { location: `${rx.url}/elsewhere` } : {})
          .end();
      if (r.path === "/busy")
        return busyCalls++ === 0 ? res.writeHead(429, { "retry-after": "2" }).end() : res.end("ok");
      res.end("ok");
    });
    await inst.merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: inst.merchant.slug } },
      body: flat({ title: "Edge cases", price: "1" }),
    });
    const of = (p: string) => rx.received.filter((r) => r.path === p);
    await waitUntil(() => of("/busy").length >= 2, 60_000, "the retry of /busy");
    // Every attempt that is due now has been made and recorded: the final answers made no retry.
    await ctx.worker.settled();
    for (const p of ["/gone", "/bad", "/moved"]) assert.equal(of(p).length, 1, `${p} attempted once`);
    assert.equal(of("/elsewhere").length, 0, "redirect not followed");
    const busy = of("/busy");
    assert.ok(busy[1]!.at - busy[0]!.at >= 1900, `Retry-After honoured: ${busy[1]!.at - busy[0]!.at} ms`);
    const list = await inst.dev.client.GET("/api/v1/dashboard/apps/{clientId}/deliveries", {
      params: { path: { clientId: inst.clientId }, query: { limit: 100 } },
    });
    const byUrl = Object.fromEntries(list.data!.data.map((d) => [new URL(d.targetUrl).pathname, d]));
    assert.equal(byUrl["/gone"]!.status, "failed");
    assert.equal(byUrl["/moved"]!.status, "failed");
    assert.equal(byUrl["/busy"]!.status, "delivered");
  });

  it("counts a time-out as a failure, and retries it", async () => {
    // Its own worker with a short time-out (the suite's is 10 s, for loaded machines): a receiver
    // that never answers times out whatever the load; the retry answers at once.
    const short = await createWebhookContext({ WEBHOOK_TIMEOUT_MS: "1500", WEBHOOK_LEASE_MS: "4000" });
    const slow = await startReceiver();
    try {
      const inst = await installedApp(short.app, ALL);
      await inst.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "product.created",
          targetUrl: `${slow.url}/slow`,
        },
      });
      let calls = 0;
      slow.setResponder((_r, res) => {
        if (calls++ === 0) return; // never answers: the time-out (WEBHOOK_TIMEOUT_MS) fires
        res.end("ok");
      });
      await inst.merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: inst.merchant.slug } },
        body: flat({ title: "Slow", price: "1" }),
      });
      await slow.waitFor(2, 30_000);
      await short.worker.settled();
      const list = await inst.dev.client.GET("/api/v1/dashboard/apps/{clientId}/deliveries", {
        params: { path: { clientId: inst.clientId } },
      });
      const delivery = list.data!.data[0]!;
      assert.equal(delivery.status, "delivered");
      assert.equal(slow.received[1]!.headers["x-webhook-attempt"], "2");
      assert.match(delivery.attemptLog[0]!.error!, /^timeout/);
    } finally {
      await slow.close();
      await short.close();
    }
  });

  it("on uninstall delivers app/uninstalled, then nothing more for that installation", async () => {
    const inst = await installedApp(ctx.app, ALL);
    for (const eventName of [
      "app/uninstalled",
      "product.created",
      "product.updated",
      "order.created",
    ] as const) {
      await inst.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName,
          targetUrl: `${rx.url}/u-${eventName.replace("/", "-")}`,
        },
      });
    }
    rx.setResponder((_r, res) => res.end("ok"));
    const mine = () =>
      rx.received.filter(
        (r) =>
          r.path.startsWith("/u-") && (JSON.parse(r.body) as EventBody).store.slug === inst.merchant.slug,
      );
    const p = (
      await inst.merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: inst.merchant.slug } },
        body: flat({ title: "Before", price: "1" }),
      })
    ).data!.data;
    await waitUntil(() => mine().length === 1, 5000, "product.created before uninstall");
    await inst.merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/installations/{clientId}", {
      params: { path: { slug: inst.merchant.slug, clientId: inst.clientId } },
    });
    await inst.merchant.client.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { slug: inst.merchant.slug, id: p.id } },
      body: { title: "After" },
    });
    await inst.merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: inst.merchant.slug } },
      body: flat({ title: "After 2", price: "1" }),
    });
    await waitUntil(
      () => mine().some((r) => r.headers["x-webhook-event"] === "app/uninstalled"),
      8000,
      "app/uninstalled",
    );
    await ctx.worker.settled();
    const events = mine().map((r) => r.headers["x-webhook-event"]);
    assert.deepEqual(events, ["product.created", "app/uninstalled"]);
    const body = JSON.parse(mine().at(-1)!.body) as EventBody<"app/uninstalled">;
    assert.equal(body.data.clientId, inst.clientId);
    assert.equal((await inst.api.GET("/api/v1/apps/api/webhooks")).response.status, 401);
  });

  it("exposes Prometheus metrics in the platform's registry, not on the API", async () => {
    assert.equal((await ctx.app.inject({ method: "GET", url: "/metrics" })).statusCode, 404);
    const res = { body: await ctx.platform.metrics.registry.metrics() };
    for (const name of [
      "webhook_delivery_attempts_total",
      "webhook_delivery_attempt_duration_seconds",
      "webhook_deliveries_pending",
      "webhook_oldest_pending_delivery_age_seconds",
    ]) {
      assert.match(res.body, new RegExp(name));
    }
    assert.match(res.body, /webhook_delivery_attempts_total\{outcome="delivered"\} [1-9]/);
  });
});

describe("webhooks: SSRF protection by default", () => {
  let ctx: Awaited<ReturnType<typeof createWebhookContext>>;
  before(async () => {
    ctx = await createWebhookContext({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "false" });
  });
  after(() => ctx.close());

  it("refuses loopback, private, link-local and metadata targets, and names resolving to loopback", async () => {
    const inst = await installedApp(ctx.app, ALL);
    for (const targetUrl of [
      "https://127.0.0.1/hook",
      "https://[::1]/hook",
      "https://10.0.0.1/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://localhost/hook",
      "https://[::ffff:127.0.0.1]/hook",
    ]) {
      const res = await inst.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "product.created",
          targetUrl,
        },
      });
      assert.equal(res.response.status, 400, targetUrl);
      assert.equal(errorCode(res), "VALIDATION_FAILED");
      assert.equal(fieldErrors(res)[0]!.field, "targetUrl");
    }
  });
});
