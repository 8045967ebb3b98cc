import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { installedApp } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import { type EventBody, errorCode, offDocument, type Scope, text } from "./harness.ts";
import { type Received, startReceiver } from "./receiver.ts";
import { createWebhookContext, waitUntil } from "./webhooks-harness.ts";

/**
 * Issue 19, part 4: recover sends a subscription's failed (and skipped) deliveries once more,
 * through the engine, under their original x-webhook-id, each once however often it is called.
 * Real HTTPS receivers; 3 attempts 50 ms apart so that a delivery fails to exhaustion quickly.
 */
const SCOPES: Scope[] = ["read_products", "write_products", "manage_webhooks"];
const CLI = join(import.meta.dirname, "..", "packages", "cli", "dist", "cli.js");

describe("webhooks: recover", () => {
  let ctx: Awaited<ReturnType<typeof createWebhookContext>>;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  /** Bodies whose product title starts with "fail" are answered 500 while `failing` holds. */
  let failing = true;
  before(async () => {
    ctx = await createWebhookContext({ WEBHOOK_MAX_ATTEMPTS: "3", WEBHOOK_RETRY_BASE_MS: "50" });
    rx = await startReceiver((r, res) => {
      // Every subscription here is to product.created.
      const title = String((JSON.parse(r.body) as EventBody<"product.created">).data?.title ?? "");
      res.writeHead(failing && title.startsWith("fail") ? 500 : 200).end();
    });
  });
  after(async () => {
    await rx.close();
    await ctx.close();
  });

  const at = (path: string) => rx.received.filter((r) => r.path === path);
  const titleOf = (r: Received) => (JSON.parse(r.body) as EventBody<"product.created">).data.title;

  async function setup(path: string) {
    const inst = await installedApp(ctx.app, SCOPES);
    const sub = await inst.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "product.created",
        targetUrl: `${rx.url}${path}`,
      },
    });
    assert.equal(sub.response.status, 201);
    const product = (title: string) =>
      inst.merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: inst.merchant.slug } },
        body: flat({ title, price: "1" }),
      });
    const deliveries = () =>
      ctx.platform.db
        .selectFrom("webhook_deliveries")
        .selectAll()
        .where("subscription_id", "=", sub.data!.data.id)
        .orderBy("created_at")
        .execute();
    return { inst, sub: sub.data!.data, product, deliveries };
  }

  it("sends exactly the deliveries that failed, each once, with their original ids; a second recover sends nothing new", async () => {
    failing = true;
    const { inst, sub, product, deliveries } = await setup("/recover");
    const since = new Date(ctx.clock.now().getTime() - 1000).toISOString();
    for (let i = 0; i < 5; i++) await product(`fail ${i}`);
    for (let i = 0; i < 3; i++) await product(`ok ${i}`);
    await waitUntil(
      async () => (await deliveries()).filter((d) => d.status !== "pending").length === 8,
      30_000,
      "5 failed to exhaustion, 3 delivered",
    );
    const originals = await deliveries();
    const failed = originals.filter((d) => d.status === "failed");
    assert.equal(failed.length, 5);
    assert.ok(failed.every((d) => d.attempts === 3 && d.last_status_code === 500));
    const sentBefore = at("/recover").length;
    assert.equal(sentBefore, 5 * 3 + 3);

    failing = false;
    const recovered = await inst.api.POST("/api/v1/apps/api/webhooks/{id}/recover", {
      params: { path: { id: sub.id } },
      body: { since },
    });
    assert.equal(recovered.response.status, 200, text(recovered));
    assert.equal(recovered.data!.data.queued, 5);
    assert.equal(recovered.data!.data.since, since);
    await waitUntil(() => at("/recover").length >= sentBefore + 5, 20_000, "the 5 recovered sent");
    await waitUntil(
      async () => (await deliveries()).filter((d) => d.status === "delivered").length === 8,
      10_000,
      "the 5 recovered deliveries delivered",
    );
    const resent = at("/recover").slice(sentBefore);
    assert.equal(resent.length, 5, "exactly the 5");
    assert.deepEqual(
      resent.map((r) => String(r.headers["x-webhook-id"])).sort(),
      failed.map((d) => d.id).sort(),
      "each under its original x-webhook-id",
    );
    assert.ok(
      resent.every((r) => r.headers["x-webhook-attempt"] === "1"),
      "attempts start again at 1",
    );
    assert.ok(
      resent.every((r) => titleOf(r).startsWith("fail")),
      "nothing that succeeded is sent again",
    );
    assert.deepEqual(
      resent.map((r) => r.body).sort(),
      failed.map((d) => d.body).sort(),
      "the same bytes (the same event ids)",
    );
    // The new deliveries name the originals and carry their webhook id; the originals keep their outcome.
    const after = await deliveries();
    for (const original of failed) {
      assert.equal(after.find((d) => d.id === original.id)!.status, "failed");
      const copy = after.filter((d) => d.recovery_of === original.id);
      assert.equal(copy.length, 1);
      assert.equal(copy[0]!.redelivery_of, original.id);
      assert.equal(copy[0]!.webhook_id, original.id);
    }
    // The log shows it both ways.
    const log = (
      await inst.api.GET("/api/v1/apps/api/webhooks/deliveries", { params: { query: { limit: 100 } } })
    ).data!.data;
    const copies = log.filter((d) => d.recoveryOf !== null);
    assert.equal(copies.length, 5);
    assert.ok(
      copies.every(
        (d) => d.webhookId === d.recoveryOf && d.redeliveryOf === d.recoveryOf && d.webhookId !== d.id,
      ),
    );
    const recoveredOnes = log.filter((d) => d.recoveredBy !== null);
    assert.deepEqual(recoveredOnes.map((d) => d.id).sort(), failed.map((d) => d.id).sort());
    for (const d of recoveredOnes) assert.equal(copies.find((c) => c.id === d.recoveredBy)!.recoveryOf, d.id);

    const again = await inst.api.POST("/api/v1/apps/api/webhooks/{id}/recover", {
      params: { path: { id: sub.id } },
      body: { since },
    });
    assert.equal(again.response.status, 200);
    assert.equal(again.data!.data.queued, 0, "a second recover queues nothing");
    // Nothing more leaves: the worker has done all it can now.
    await ctx.worker.settled();
    assert.equal(at("/recover").length, sentBefore + 5, "and sends nothing");
  });

  it("two recovers at once take each failed delivery once; a window leaves out what came before or after it", async () => {
    failing = true;
    const { inst, sub, product, deliveries } = await setup("/concurrent");
    for (let i = 0; i < 3; i++) await product(`fail early ${i}`);
    await waitUntil(
      async () => (await deliveries()).filter((d) => d.status === "failed").length === 3,
      30_000,
      "early failures",
    );
    ctx.clock.advance(60_000);
    const since = ctx.clock.now().toISOString();
    for (let i = 0; i < 12; i++) await product(`fail ${i}`);
    await waitUntil(
      async () => (await deliveries()).filter((d) => d.status === "failed").length === 15,
      30_000,
      "12 more failures",
    );
    ctx.clock.advance(60_000);
    const until = ctx.clock.now().toISOString();
    await product("fail late");
    await waitUntil(
      async () => (await deliveries()).filter((d) => d.status === "failed").length === 16,
      30_000,
      "a late failure",
    );
    const sentBefore = at("/concurrent").length;
    failing = false;
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        inst.api.POST("/api/v1/apps/api/webhooks/{id}/recover", {
          params: { path: { id: sub.id } },
          body: { since, until },
        }),
      ),
    );
    assert.ok(results.every((r) => r.response.status === 200));
    assert.equal(
      results.reduce((n, r) => n + r.data!.data.queued, 0),
      12,
      "the 12 of the window, between all four calls",
    );
    await waitUntil(() => at("/concurrent").length >= sentBefore + 12, 20_000, "the 12 recovered sent");
    await ctx.worker.settled();
    const resent = at("/concurrent").slice(sentBefore);
    assert.equal(resent.length, 12);
    assert.equal(new Set(resent.map((r) => r.headers["x-webhook-id"])).size, 12, "none sent twice");
    assert.ok(
      resent.every((r) => /^fail \d+$/.test(titleOf(r))),
      "only the window's",
    );
  });

  it("concurrent recover statements: each failed delivery is queued once", async () => {
    const inst = await installedApp(ctx.app, SCOPES);
    // Nothing listens there: every attempt fails at once (connection refused).
    const sub = await inst.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "product.created",
        targetUrl: "https://127.0.0.1:9/x",
      },
    });
    const storeId = (await ctx.platform.repos.stores.findBySlug(inst.merchant.slug))!.id;
    const since = new Date(ctx.clock.now().getTime() - 1000);
    for (let i = 0; i < 40; i++)
      await inst.merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: inst.merchant.slug } },
        body: flat({ title: `p${i}`, price: "1" }),
      });
    const rows = () =>
      ctx.platform.db
        .selectFrom("webhook_deliveries")
        .selectAll()
        .where("subscription_id", "=", sub.data!.data.id)
        .execute();
    await waitUntil(
      async () => (await rows()).filter((d) => d.status === "failed").length === 40,
      30_000,
      "40 failures",
    );
    const now = ctx.clock.now();
    const counts = await Promise.all(
      Array.from({ length: 20 }, () =>
        ctx.platform.webhooks.log.recoverChunk({
          storeId,
          subscriptionId: sub.data!.data.id,
          since,
          until: now,
          now,
          limit: 3,
        }),
      ),
    );
    let queued = counts.reduce((a, b) => a + b.queued, 0);
    // What the 20 statements of 3 left, as the service's loop would take it.
    for (let n = -1; n !== 0; queued += n)
      ({ queued: n } = await ctx.platform.webhooks.log.recoverChunk({
        storeId,
        subscriptionId: sub.data!.data.id,
        since,
        until: now,
        now,
        limit: 3,
      }));
    assert.equal(queued, 40);
    const all = await rows();
    const copies = all.filter((d) => d.recovery_of !== null);
    assert.equal(copies.length, 40, "one new delivery per failed one");
    assert.equal(new Set(copies.map((d) => d.recovery_of)).size, 40, "none taken twice");
  });

  it("a recovery that fails again is what the next recover sends, still under the original id", async () => {
    failing = true;
    const { inst, sub, product, deliveries } = await setup("/chain");
    const since = new Date(ctx.clock.now().getTime() - 1000).toISOString();
    await product("fail chain");
    await waitUntil(async () => (await deliveries())[0]?.status === "failed", 30_000, "a failure");
    const [original] = await deliveries();
    const first = await inst.api.POST("/api/v1/apps/api/webhooks/{id}/recover", {
      params: { path: { id: sub.id } },
      body: { since },
    });
    assert.equal(first.data!.data.queued, 1);
    await waitUntil(
      async () => (await deliveries()).filter((d) => d.status === "failed").length === 2,
      30_000,
      "the recovery failed too",
    );
    failing = false;
    const second = await inst.api.POST("/api/v1/apps/api/webhooks/{id}/recover", {
      params: { path: { id: sub.id } },
      body: { since },
    });
    assert.equal(second.data!.data.queued, 1, "the failed recovery, not the original again");
    await waitUntil(
      async () => (await deliveries()).some((d) => d.status === "delivered"),
      10_000,
      "delivered",
    );
    const rows = await deliveries();
    assert.equal(rows.length, 3);
    const last = rows.find((d) => d.status === "delivered")!;
    assert.equal(last.recovery_of, rows[1]!.id, "it recovers the recovery");
    assert.equal(last.webhook_id, original!.id);
    assert.ok(
      at("/chain").every((r) => r.headers["x-webhook-id"] === original!.id),
      "one webhook id throughout",
    );
    assert.equal(
      (
        await inst.api.POST("/api/v1/apps/api/webhooks/{id}/recover", {
          params: { path: { id: sub.id } },
          body: { since },
        })
      ).data!.data.queued,
      0,
    );
  });

  it("leaves out an event already delivered by a redelivery; refuses bad windows, other apps' ids and disabled subscriptions", async () => {
    failing = true;
    const { inst, sub, product, deliveries } = await setup("/edges");
    const since = new Date(ctx.clock.now().getTime() - 1000).toISOString();
    await product("fail redelivered");
    await product("fail recovered");
    await waitUntil(
      async () => (await deliveries()).filter((d) => d.status === "failed").length === 2,
      30_000,
      "two failures",
    );
    failing = false;
    const [first] = await deliveries();
    const redelivered = await inst.api.POST("/api/v1/apps/api/webhooks/deliveries/{id}/redeliver", {
      params: { path: { id: first!.id } },
    });
    assert.equal(redelivered.response.status, 201);
    await waitUntil(
      async () => (await deliveries()).some((d) => d.status === "delivered"),
      10_000,
      "the redelivery delivered",
    );
    const recovered = await inst.api.POST("/api/v1/apps/api/webhooks/{id}/recover", {
      params: { path: { id: sub.id } },
      body: { since },
    });
    assert.equal(recovered.data!.data.queued, 1, "only the event the subscription never got");

    const backwards = await inst.api.POST("/api/v1/apps/api/webhooks/{id}/recover", {
      params: { path: { id: sub.id } },
      body: { since, until: since },
    });
    assert.equal(backwards.response.status, 400);
    assert.equal(errorCode(backwards), "VALIDATION_FAILED");
    assert.equal(
      (
        await inst.api.POST("/api/v1/apps/api/webhooks/{id}/recover", {
          params: { path: { id: sub.id } },
          // No `since`, which the document requires: refused.
          body: offDocument({}),
        })
      ).response.status,
      400,
      "since is required",
    );
    assert.equal(
      (
        await inst.api.POST("/api/v1/apps/api/webhooks/{id}/recover", {
          params: { path: { id: sub.id } },
          body: { since: "yesterday" },
        })
      ).response.status,
      400,
      "a date",
    );
    const other = await installedApp(ctx.app, SCOPES);
    const foreign = await other.api.POST("/api/v1/apps/api/webhooks/{id}/recover", {
      params: { path: { id: sub.id } },
      body: { since },
    });
    assert.equal(foreign.response.status, 404, "another app's subscription");
    const narrow = await installedApp(ctx.app, ["read_products"]);
    assert.equal(
      (
        await narrow.api.POST("/api/v1/apps/api/webhooks/{id}/recover", {
          params: { path: { id: sub.id } },
          body: { since },
        })
      ).response.status,
      403,
    );

    await ctx.platform.db
      .updateTable("webhook_subscriptions")
      .set({ status: "disabled", disabled_at: ctx.clock.now(), disabled_reason: "HTTP 410 Gone" })
      .where("id", "=", sub.id)
      .execute();
    const disabled = await inst.api.POST("/api/v1/apps/api/webhooks/{id}/recover", {
      params: { path: { id: sub.id } },
      body: { since },
    });
    assert.equal(disabled.response.status, 409);
    assert.match(disabled.error!.error.message, /enable/);
  });

  it("CLI: recover <subscription> --since 2h", async () => {
    failing = true;
    const { inst, sub, product, deliveries } = await setup("/cli");
    await product("fail cli");
    await product("ok cli");
    await waitUntil(
      async () => (await deliveries()).filter((d) => d.status !== "pending").length === 2,
      30_000,
      "a failure and a success",
    );
    const sentBefore = at("/cli").length;
    failing = false;
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = ctx.app.server.address() as AddressInfo;
    const cli = (...args: string[]) =>
      new Promise<{ code: number; out: string; err: string }>((resolve) => {
        execFile(
          process.execPath,
          [CLI, ...args, "--base-url", `http://127.0.0.1:${port}`, "--token", inst.tokens.accessToken],
          { env: { ...process.env, MERCHANT_PLATFORM_CONFIG: "/nonexistent/mp-cli.json" } },
          (error, out, err) => resolve({ code: error ? Number(error.code) : 0, out, err }),
        );
      });
    const usage = await cli("recover", sub.id);
    assert.equal(usage.code, 2, "--since is required");
    assert.equal((await cli("recover", sub.id, "--since", "yesterday")).code, 2);
    const done = await cli("recover", sub.id, "--since", "2h");
    assert.equal(done.code, 0, done.err);
    assert.match(done.out, /Queued 1 failed delivery from \S+ to \S+ again/);
    await waitUntil(() => at("/cli").length >= sentBefore + 1, 20_000, "the recovered one sent");
    assert.equal(titleOf(at("/cli").at(-1)!), "fail cli");
    const again = await cli("recover", sub.id, "--since", "2h");
    assert.match(again.out, /Nothing to recover/);
    const list = await cli("webhooks");
    assert.match(list.out, new RegExp(`${sub.id}\\s+product.created\\s+active`));
  });

  it("the dashboard recovers an app's failed deliveries since a time, over all its subscriptions", async () => {
    failing = true;
    const { inst, product, deliveries } = await setup("/dashboard");
    const since = new Date(ctx.clock.now().getTime() - 1000).toISOString();
    await product("fail a");
    await product("fail b");
    await product("ok c");
    await waitUntil(
      async () => (await deliveries()).filter((d) => d.status !== "pending").length === 3,
      30_000,
      "two failures and a success",
    );
    const sentBefore = at("/dashboard").length;
    failing = false;
    const res = await inst.dev.client.POST("/api/v1/dashboard/apps/{clientId}/webhooks/recover", {
      params: { path: { clientId: inst.clientId } },
      body: { since },
    });
    assert.equal(res.response.status, 200, text(res));
    assert.equal(res.data!.data.queued, 2);
    await waitUntil(() => at("/dashboard").length >= sentBefore + 2, 20_000, "the 2 recovered sent");
    assert.deepEqual(at("/dashboard").slice(sentBefore).map(titleOf).sort(), ["fail a", "fail b"]);
    const stranger = await installedApp(ctx.app, SCOPES);
    assert.equal(
      (
        await stranger.dev.client.POST("/api/v1/dashboard/apps/{clientId}/webhooks/recover", {
          params: { path: { clientId: inst.clientId } },
          body: { since },
        })
      ).response.status,
      404,
    );
  });
});
