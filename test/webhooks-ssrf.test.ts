import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { installedApp } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import { startReceiver } from "./receiver.ts";
import { createWebhookContext, waitUntil } from "./webhooks-harness.ts";

/**
 * Issue 9.12: a target that passed the SSRF check when it was subscribed but now resolves to an
 * internal address is refused at send time, and the delivery fails at once with that reason in
 * the delivery log instead of being retried eight times.
 */
describe("webhooks: a target refused by the SSRF guard at send time", () => {
  let ctx: Awaited<ReturnType<typeof createWebhookContext>>;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    // Private targets NOT allowed: the production setting.
    ctx = await createWebhookContext({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "false", WEBHOOK_RETRY_BASE_MS: "1" });
    rx = await startReceiver();
  });
  after(async () => {
    await rx.close();
    await ctx.close();
  });

  it("fails after one attempt, records why, and never reaches the internal address", async () => {
    const a = await installedApp(ctx.app, ["read_products", "write_products", "manage_webhooks"]);
    // A public IP literal passes the subscription-time check without DNS.
    const created = await a.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "product.created",
        targetUrl: "https://93.184.215.14/hooks",
      },
    });
    assert.equal(created.response.status, 201);
    // Later the target's name resolves to loopback (what DNS rebinding or a changed record does).
    await ctx.platform.db
      .updateTable("webhook_subscriptions")
      .set({ target_url: `${rx.localhostUrl}/hooks` })
      .where("id", "=", created.data!.data.id)
      .execute();

    const made = await a.merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: a.merchant.slug } },
      body: flat({
        title: "Lamp",
        price: "10.00",
      }),
    });
    assert.equal(made.response.status, 201);

    const delivery = async () =>
      ctx.platform.db
        .selectFrom("webhook_deliveries")
        .selectAll()
        .where("subscription_id", "=", created.data!.data.id)
        .executeTakeFirst();
    await waitUntil(async () => (await delivery())?.status === "failed", 20_000, "delivery failed");
    const d = (await delivery())!;
    assert.equal(d.attempts, 1, "not retried");
    assert.match(d.last_error ?? "", /^blocked_address: /);
    const attempts = await ctx.platform.db
      .selectFrom("webhook_attempts")
      .selectAll()
      .where("delivery_id", "=", d.id)
      .execute();
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0]!.status_code, null);
    assert.match(attempts[0]!.error ?? "", /^blocked_address: .*(127\.0\.0\.1|::1)/);
    assert.equal(rx.received.length, 0, "not one request reached the internal address");

    // The merchant sees the reason in the delivery log.
    const log = await a.dev.client.GET("/api/v1/dashboard/apps/{clientId}/deliveries", {
      params: { path: { clientId: a.clientId } },
    });
    assert.equal(log.response.status, 200);
    const entry = log.data!.data.find((x: { id: string }) => x.id === d.id);
    assert.ok(entry, "listed in the delivery log");
    assert.equal(entry.status, "failed");
    assert.match(JSON.stringify(entry), /blocked_address/);
  });
});
