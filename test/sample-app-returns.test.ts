import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createSampleApp, EVENTS, SCOPES } from "../examples/sample-app/src/app.ts";
import { flat } from "./catalogue.ts";
import { merchantWithStore, text } from "./harness.ts";
import { installThroughConsent, postForm, until } from "./sample-app-harness.ts";
import { createWebhookContext } from "./webhooks-harness.ts";

const TLS = join(import.meta.dirname, "fixtures", "tls");

/**
 * The sample app's returns desk, welcome discount and refund preview, for real: the platform with
 * its delivery worker, the app on HTTPS (the test CA's certificate) subscribed at its own
 * `/webhooks`, and every step through the app's own endpoints as its page posts them. What the
 * app did is read back from the platform's dashboard API.
 */
describe("sample app: returns desk, welcome discount and refund preview against the platform", () => {
  let ctx: Awaited<ReturnType<typeof createWebhookContext>>;
  let platformUrl: string;
  const servers: Server[] = [];

  before(async () => {
    ctx = await createWebhookContext();
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    platformUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await ctx.close();
  });

  /** A registered sample app on its own HTTPS port, installed in a new merchant's store with a mug for sale. */
  async function installed(options: { webhooks: boolean }) {
    const server = createServer({
      key: readFileSync(join(TLS, "server-key.pem")),
      cert: readFileSync(join(TLS, "server.pem")),
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const publicUrl = `https://localhost:${port}`;
    const developer = await merchantWithStore(ctx.app);
    const registered = await developer.client.POST("/api/v1/dashboard/apps", {
      body: { name: "Sample app", redirectUris: [`${publicUrl}/oauth/callback`], scopes: SCOPES },
    });
    assert.equal(registered.response.status, 201, text(registered));
    const sample = createSampleApp({
      platformUrl,
      clientId: registered.data!.data.clientId,
      clientSecret: registered.data!.data.clientSecret,
      publicUrl,
      // The app's own endpoint: the platform's worker delivers there (private targets allowed in tests).
      ...(options.webhooks ? { webhookUrl: `https://127.0.0.1:${port}/webhooks` } : {}),
    });
    server.on("request", sample.handler);
    const merchant = await merchantWithStore(ctx.app);
    const product = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: merchant.slug } },
      body: flat({ title: "Mug", price: "12.00", sku: "MUG-12", stock: 50 }),
    });
    assert.equal(product.response.status, 201, text(product));
    const customer = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: merchant.slug } },
      body: { email: "noor@example.com", firstName: "Noor" },
    });
    assert.equal(customer.response.status, 201, text(customer));
    const callback = await installThroughConsent({ merchant, publicUrl, platformUrl });
    assert.equal(callback.status, 200, await callback.clone().text());
    return {
      sample,
      merchant,
      publicUrl,
      productId: product.data!.data.id,
      customerId: customer.data!.data.id,
    };
  }

  /** An order placed, paid, confirmed and shipped on the platform by the merchant (not by the app). */
  async function shippedOrder(
    merchant: Awaited<ReturnType<typeof merchantWithStore>>,
    body: { customerId: string; productId: string; discountCodes?: string[] },
  ) {
    const placed = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: merchant.slug } },
      body: {
        customerId: body.customerId,
        lineItems: [{ productId: body.productId, quantity: 2 }],
        ...(body.discountCodes ? { discountCodes: body.discountCodes } : {}),
      },
    });
    assert.equal(placed.response.status, 201, text(placed));
    for (const status of ["paid", "confirmed", "shipped"] as const) {
      const moved = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
        params: { path: { slug: merchant.slug, id: placed.data!.data.id } },
        body: { status },
      });
      assert.equal(moved.response.status, 200, text(moved));
    }
    return placed.data!.data;
  }

  it("creates a welcome code, takes a return through every step with its events, and previews then records a refund once", async () => {
    const { sample, merchant, publicUrl, productId, customerId } = await installed({ webhooks: true });
    assert.equal(
      sample.data.secrets[merchant.slug]?.length,
      EVENTS.length,
      "subscribed to every event it shows",
    );

    // A welcome discount through the app's form: 10 % off, 100 uses, once per customer.
    const made = await postForm(`${publicUrl}/discounts`, {
      store: merchant.slug,
      code: "WELCOME10",
      percentage: "10",
      usageLimit: "100",
      oncePerCustomer: "on",
    });
    assert.equal(made.status, 303, await made.text());
    const crossSiteCode = await postForm(
      `${publicUrl}/discounts`,
      { store: merchant.slug, code: "EVIL99", percentage: "99" },
      { "sec-fetch-site": "cross-site" },
    );
    assert.equal(crossSiteCode.status, 403, "another site's form cannot make codes");
    const codes = (
      await merchant.client.GET("/api/v1/dashboard/stores/{slug}/discounts", {
        params: { path: { slug: merchant.slug } },
      })
    ).data!.data;
    assert.deepEqual(
      codes.map((d) => [d.code, d.kind, d.percentage, d.usageLimit, d.oncePerCustomer]),
      [["WELCOME10", "percentage", "10", 100, true]],
    );

    // The customer uses it; the merchant ships the order on the platform; order.shipped brings it
    // to the app's returns desk.
    const order = await shippedOrder(merchant, { customerId, productId, discountCodes: ["WELCOME10"] });
    assert.deepEqual([order.subtotal, order.discounts, order.total], ["24.00", "2.40", "21.60"]);
    const line = order.lineItems[0]!;
    await until("order.shipped at the app", () =>
      sample.data.shipped?.[merchant.slug]?.find((o) => o.id === order.id),
    );
    assert.equal(
      sample.data.toShip?.[merchant.slug]?.find((o) => o.id === order.id),
      undefined,
      "shipped: off the fulfilment list, whichever of order.paid and order.shipped came first",
    );
    const home = await (await fetch(`${publicUrl}/`)).text();
    assert.match(home, /Request return/);
    assert.match(home, /<b>WELCOME10<\/b><\/td><td>10 %<\/td><td>1 of 100/, "the app's code with its usage");

    // Refused requests are shown, not made: more units than the line had, a reason not in the list.
    const tooMany = await postForm(`${publicUrl}/returns`, {
      store: merchant.slug,
      order: order.id,
      line: line.id,
      quantity: "3",
      reason: "defective",
    });
    assert.equal(tooMany.status, 400);
    assert.match(await tooMany.text(), /CONFLICT/);
    const noReason = await postForm(`${publicUrl}/returns`, {
      store: merchant.slug,
      order: order.id,
      line: line.id,
      quantity: "1",
      reason: "changed_my_mind",
    });
    assert.equal(noReason.status, 400);
    assert.match(await noReason.text(), /Not a reason/);

    // One mug comes back: requested, approved, received (restocked) and closed with its refund.
    const requested = await postForm(`${publicUrl}/returns`, {
      store: merchant.slug,
      order: order.id,
      line: line.id,
      quantity: "1",
      reason: "damaged_in_transit",
      note: "Box crushed",
    });
    assert.equal(requested.status, 303, await requested.text());
    const returned = sample.data.returns![merchant.slug]!.at(-1)!;
    assert.deepEqual(
      [returned.status, returned.lineItems, returned.note],
      ["requested", [{ lineItemId: line.id, quantity: 1, reason: "damaged_in_transit" }], "Box crushed"],
    );
    const steps: Array<[string, Record<string, string>, string]> = [
      ["/returns/approve", {}, "approved"],
      ["/returns/receive", { restock: "on" }, "received"],
      ["/returns/close", { refund: "on" }, "closed"],
    ];
    for (const [path, fields, status] of steps) {
      const crossSite = await postForm(
        `${publicUrl}${path}`,
        { store: merchant.slug, return: returned.id, ...fields },
        { origin: "https://attacker.example" },
      );
      assert.equal(crossSite.status, 403, `${path}: another site's form is refused`);
      const moved = await postForm(`${publicUrl}${path}`, {
        store: merchant.slug,
        return: returned.id,
        ...fields,
      });
      assert.equal(moved.status, 303, await moved.text());
      assert.equal(sample.data.returns![merchant.slug]!.find((r) => r.id === returned.id)!.status, status);
    }
    const closed = (
      await merchant.client.GET("/api/v1/dashboard/stores/{slug}/returns/{id}", {
        params: { path: { slug: merchant.slug, id: returned.id } },
      })
    ).data!.data;
    assert.equal(closed.status, "closed");
    assert.ok(closed.locationId, "restocked");
    assert.ok(closed.refundId, "closed with its refund");
    const partly = (
      await merchant.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", {
        params: { path: { slug: merchant.slug, id: order.id } },
      })
    ).data!.data;
    assert.deepEqual(
      [partly.financialStatus, partly.refunded, partly.net, partly.lineItems[0]!.refundedQuantity],
      ["partially_refunded", "10.80", "10.80", 1],
      "one mug's 12.00 less its 1.20 share of the code",
    );

    // Each step's event reached the app's /webhooks, verified, and is shown as it arrived.
    for (const event of ["return.requested", "return.approved", "return.received", "return.closed"]) {
      const got = await until(event, () =>
        sample.received.find((r) => r.event === event && !r.test && r.summary.includes(order.name)),
      );
      assert.match(got.summary, /1 × Mug \[MUG-12\] \(Damaged in transit\)/);
    }
    assert.equal(
      sample.data.returns![merchant.slug]!.find((r) => r.id === returned.id)!.refundId,
      closed.refundId,
    );
    assert.match(await (await fetch(`${publicUrl}/events`)).text(), /return\.closed/);

    // The other mug: a second return is declined.
    const second = await postForm(`${publicUrl}/returns`, {
      store: merchant.slug,
      order: order.id,
      line: line.id,
      quantity: "1",
      reason: "unwanted",
    });
    assert.equal(second.status, 303, await second.text());
    const secondId = sample.data.returns![merchant.slug]!.at(-1)!.id;
    assert.notEqual(secondId, returned.id);
    const declined = await postForm(`${publicUrl}/returns/decline`, {
      store: merchant.slug,
      return: secondId,
    });
    assert.equal(declined.status, 303, await declined.text());
    const again = await postForm(`${publicUrl}/returns/approve`, { store: merchant.slug, return: secondId });
    assert.equal(again.status, 400, "a declined return cannot be approved");
    assert.match(await again.text(), /CONFLICT/);

    // ... and refunded anyway after a preview: the page shows the calculation and a button to record it.
    const previewUrl = `${publicUrl}/refund?${new URLSearchParams({ store: merchant.slug, order: order.id, [`units.${line.id}`]: "1" })}`;
    const preview = await (await fetch(previewUrl)).text();
    assert.match(preview, /Refund preview/);
    assert.match(preview, /Record the refund of 10\.80/);
    const seen = /name="seen" value="([^"]+)"/.exec(preview)?.[1];
    assert.ok(seen, preview);
    const record = { store: merchant.slug, order: order.id, seen, [`units.${line.id}`]: "1" };
    // A double click: two posts of the same form at once, then a third (a reload of the answer).
    const clicks = await Promise.all([
      postForm(`${publicUrl}/refunds`, record),
      postForm(`${publicUrl}/refunds`, record),
    ]);
    for (const click of clicks) assert.equal(click.status, 303, await click.text());
    assert.equal((await postForm(`${publicUrl}/refunds`, record)).status, 303);
    const refunds = (
      await merchant.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
        params: { path: { slug: merchant.slug, id: order.id } },
      })
    ).data!.data;
    assert.deepEqual(
      refunds.map((r) => r.amount),
      ["10.80", "10.80"],
      "the return's refund and one recorded from the preview, however many clicks",
    );
    const refunded = (
      await merchant.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", {
        params: { path: { slug: merchant.slug, id: order.id } },
      })
    ).data!.data;
    assert.deepEqual(
      [refunded.financialStatus, refunded.refunded, refunded.net],
      ["refunded", "21.60", "0.00"],
    );
    const after = await (await fetch(`${publicUrl}/refund?store=${merchant.slug}&order=${order.id}`)).text();
    assert.match(after, /Nothing to refund: the order is refunded\./);
    const crossSiteRefund = await postForm(`${publicUrl}/refunds`, record, { "sec-fetch-site": "same-site" });
    assert.equal(crossSiteRefund.status, 403, "a sibling site's form cannot record refunds");
  });

  it("without webhooks, reads shipped orders through the Admin API onto the returns desk", async () => {
    const { sample, merchant, publicUrl, productId, customerId } = await installed({ webhooks: false });
    assert.equal(sample.data.secrets[merchant.slug]?.length ?? 0, 0, "no public URL: no subscriptions");
    const order = await shippedOrder(merchant, { customerId, productId });
    assert.equal(sample.data.shipped?.[merchant.slug], undefined);
    const loaded = await postForm(`${publicUrl}/shipped/load`, { store: merchant.slug });
    assert.equal(loaded.status, 303, await loaded.text());
    assert.deepEqual(
      sample.data.shipped?.[merchant.slug]?.map((o) => [o.id, o.lines.map((l) => [l.label, l.quantity])]),
      [[order.id, [["Mug [MUG-12]", 2]]]],
    );
    assert.match(await (await fetch(`${publicUrl}/`)).text(), new RegExp(`${order.name}.*Request return`));
  });
});
