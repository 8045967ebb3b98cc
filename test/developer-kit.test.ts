import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createSampleApp, EVENTS, SCOPES } from "../examples/sample-app/src/app.ts";
import { flat } from "./catalogue.ts";
import { createTestContext, merchantWithStore, type TestContext, text } from "./harness.ts";
import { installThroughConsent, until } from "./sample-app-harness.ts";

const CLI = join(import.meta.dirname, "..", "packages", "cli", "dist", "cli.js");

/** A CLI process with its output collected line by line. */
function runCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const waiters: Array<() => void> = [];
  child.stdout!.on("data", (d) => {
    out += String(d);
    for (const w of waiters.splice(0)) w();
  });
  child.stderr!.on("data", (d) => {
    err += String(d);
  });
  const exited = new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? -1)));
  return {
    child,
    exited,
    output: () => out,
    errors: () => err,
    /** Resolves with the first match of `pattern` in stdout (waits for it, up to `ms`). */
    async waitFor(pattern: RegExp, ms = 15_000): Promise<RegExpExecArray> {
      const deadline = Date.now() + ms;
      for (;;) {
        const match = pattern.exec(out);
        if (match) return match;
        if (Date.now() > deadline) throw new Error(`CLI printed no ${pattern} in ${ms} ms:\n${out}\n${err}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
  };
}

/**
 * The developer's kit end to end: the platform, the sample app (built only on the SDK) and the
 * CLI's `listen` forwarding to plain http://localhost. Install through consent; an order's
 * verified event reaches the app; a triggered test event arrives marked as a test; uninstalling
 * sends app/uninstalled last, the app cleans up, and nothing follows.
 */
describe("developer kit: platform + sample app + CLI listen", () => {
  let ctx: TestContext;
  let platformUrl: string;
  let server: Server;
  let publicUrl: string;
  let configDir: string;
  const children: ChildProcess[] = [];

  before(async () => {
    ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" });
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    platformUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    publicUrl = `http://localhost:${(server.address() as AddressInfo).port}`;
    configDir = mkdtempSync(join(tmpdir(), "mp-cli-"));
  });
  after(async () => {
    for (const c of children) c.kill();
    server.close();
    await ctx.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it("installs, receives a verified order.created and a test event through listen, and ends with app/uninstalled", async () => {
    // The developer registers the app with the sample's callback.
    const developer = await merchantWithStore(ctx.app);
    const registered = await developer.client.POST("/api/v1/dashboard/apps", {
      body: {
        name: "Sample app",
        redirectUris: [`${publicUrl}/oauth/callback`],
        scopes: SCOPES,
      },
    });
    assert.equal(registered.response.status, 201, text(registered));
    const sample = createSampleApp({
      platformUrl,
      clientId: registered.data!.data.clientId,
      clientSecret: registered.data!.data.clientSecret,
      publicUrl,
      // A real subscription target (never reached here: no delivery worker runs in this test).
      webhookUrl: "https://127.0.0.1:9/webhooks",
      devTokens: true,
    });
    server.on("request", sample.handler);

    // A merchant installs it from the app's install link, through the consent page's API.
    const merchant = await merchantWithStore(ctx.app);
    const product = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: merchant.slug } },
      body: flat({
        title: "Mug",
        price: "12.00",
        sku: "MUG-12",
        stock: 50,
      }),
    });
    const customer = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: merchant.slug } },
      body: {
        email: "layla@example.com",
        firstName: "Layla",
      },
    });
    const callback = await installThroughConsent({ merchant, publicUrl, platformUrl });
    assert.equal(callback.status, 200, await callback.clone().text());
    assert.ok(sample.data.tokens[merchant.slug], "tokens stored");
    assert.equal(
      sample.data.secrets[merchant.slug]?.length,
      EVENTS.length,
      `subscribed to ${EVENTS.join(", ")}`,
    );

    // The developer runs listen against the app's local endpoint, tokens from the app itself.
    const cliEnv = {
      MERCHANT_PLATFORM_CONFIG: join(configDir, "config.json"),
      MP_BASE_URL: platformUrl,
      MP_TOKEN_COMMAND: `"${process.execPath}" -e "fetch('${publicUrl}/dev/token').then((r) => r.text()).then((t) => process.stdout.write(t))"`,
    };
    const listener = runCli(["listen", "--forward-to", `${publicUrl}/webhooks`], cliEnv);
    children.push(listener.child);
    const secret = (await listener.waitFor(/signing secret for this session: (whsec_\S+)/))[1]!;
    const saved = await fetch(`${publicUrl}/dev/listen-secret`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      // As a browser posts the form: a Standard Webhooks secret has `+`, `/` and `=` in it.
      body: new URLSearchParams({ secret }).toString(),
      redirect: "manual",
    });
    assert.equal(saved.status, 303);
    // Those endpoints hand out tokens and take secrets: never for another site's page (a form
    // posted across sites, or a DNS-rebinding name in Host).
    const crossSite = await fetch(`${publicUrl}/dev/listen-secret`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: "https://attacker.example",
      },
      body: `secret=whsec_${"A".repeat(32)}`,
      redirect: "manual",
    });
    assert.equal(crossSite.status, 403);
    const rebound = await new Promise<number>((resolve, reject) => {
      const { port } = new URL(publicUrl);
      request(
        { host: "127.0.0.1", port, path: "/dev/token", headers: { host: `attacker.example:${port}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      )
        .on("error", reject)
        .end();
    });
    assert.equal(rebound, 403);

    // A real order: its verified event reaches the app through listen.
    const placed = Date.now();
    const order = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: merchant.slug } },
      body: {
        customerId: customer.data!.data.id,
        lineItems: [{ productId: product.data!.data.id, quantity: 2 }],
      },
    });
    assert.equal(order.response.status, 201);
    const got = await until("order.created at the app", () =>
      sample.received.find((r) => r.event === "order.created" && !r.test),
    );
    assert.match(got.summary, new RegExp(`#${order.data!.data.number}`));
    // With its lines as a packer reads them: quantity, product, variant and SKU.
    assert.ok(got.summary.includes("2 × Mug [MUG-12]"), got.summary);
    console.log(
      `listen latency, order committed -> verified at the app: ${Date.parse(got.at) - placed} ms (upper bound)`,
    );
    await listener.waitFor(/order\.created\s+whd_\S+\s+→ 200/);

    // A test event from the CLI arrives marked as a test.
    const trigger = runCli(["trigger", "order.created"], cliEnv);
    children.push(trigger.child);
    assert.equal(await trigger.exited, 0, trigger.errors());
    await until("the test event at the app", () =>
      sample.received.find((r) => r.test && r.event === "order.created"),
    );
    await listener.waitFor(/order\.created \[test\]/);

    // Fulfilment (issue 20): the paid order reaches the app, which ships it with a carrier and a
    // tracking number from its page and keeps its own shipment id on the order.
    const paid = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
      params: { path: { slug: merchant.slug, id: order.data!.data.id } },
      body: {
        status: "paid",
      },
    });
    assert.equal(paid.response.status, 200);
    await until("order.paid at the app", () =>
      sample.data.toShip?.[merchant.slug]?.find((o) => o.id === order.data!.data.id),
    );
    assert.match(await (await fetch(`${publicUrl}/`)).text(), /Mark shipped/);
    const shipped = await fetch(`${publicUrl}/ship`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        store: merchant.slug,
        order: order.data!.data.id,
        carrier: "DHL Express",
        trackingNumber: "JD014600006281230512",
      }).toString(),
      redirect: "manual",
    });
    assert.equal(shipped.status, 303, await shipped.clone().text());
    const after = (
      await merchant.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", {
        params: { path: { slug: merchant.slug, id: order.data!.data.id } },
      })
    ).data!.data;
    assert.deepEqual(
      [after.status, after.fulfillment!.carrier, after.fulfillment!.trackingNumber],
      ["shipped", "DHL Express", "JD014600006281230512"],
    );
    const appData = (
      await merchant.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/app-data", {
        params: { path: { slug: merchant.slug, id: order.data!.data.id } },
      })
    ).data!.data;
    assert.equal(appData[0]!.app.name, "Sample app");
    assert.match(appData[0]!.metadata.shipmentId!, /^shp_/);
    const history = (
      await merchant.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/history", {
        params: { path: { slug: merchant.slug, id: order.data!.data.id } },
      })
    ).data!.data;
    assert.deepEqual(history.at(-1)!.actor, { kind: "app", name: "Sample app" });
    const crossShip = await fetch(`${publicUrl}/ship`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "cross-site" },
      body: "store=x&order=y",
      redirect: "manual",
    });
    assert.equal(crossShip.status, 403, "another site's form cannot ship the merchant's orders");

    // Uninstall: app/uninstalled is the last thing the app receives; the app cleans up; listen ends.
    const uninstall = await merchant.client.DELETE(
      "/api/v1/dashboard/stores/{slug}/installations/{clientId}",
      { params: { path: { slug: merchant.slug, clientId: registered.data!.data.clientId } } },
    );
    assert.equal(uninstall.response.status, 200);
    await until("app/uninstalled at the app", () =>
      sample.received.find((r) => r.event === "app/uninstalled"),
    );
    assert.equal(await listener.exited, 0, listener.errors());
    assert.match(listener.output(), /The stream ended: The app was uninstalled from the store\./);
    assert.equal(sample.data.tokens[merchant.slug], undefined, "tokens dropped");
    assert.equal(sample.data.secrets[merchant.slug], undefined, "subscription secrets dropped");

    // Nothing after it: a later order creates no delivery for the app, and nothing reaches it.
    await merchant.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: merchant.slug } },
      body: {
        customerId: customer.data!.data.id,
        lineItems: [{ productId: product.data!.data.id, quantity: 1 }],
      },
    });
    await ctx.platform.webhooks.deliveries.dispatchEvents(ctx.clock.now(), 100);
    const deliveries = await ctx.platform.db
      .selectFrom("webhook_deliveries")
      .select(["event_name", "status"])
      .where("store_id", "=", merchant.store.id)
      .orderBy("created_at")
      .execute();
    assert.deepEqual(
      deliveries.filter((d) => d.status === "pending").map((d) => d.event_name),
      ["app/uninstalled"],
      "only app/uninstalled remains to be sent",
    );
    assert.equal(sample.received[0]!.event, "app/uninstalled", "newest first: nothing after app/uninstalled");
  });

  it("CLI: usage errors exit 2, refusals exit 1 with the platform's code", async () => {
    const env = { MERCHANT_PLATFORM_CONFIG: join(configDir, "none.json"), MP_BASE_URL: platformUrl };
    const usage = runCli(["listen"], env);
    assert.equal(await usage.exited, 2);
    const unknown = runCli(["frobnicate"], env);
    assert.equal(await unknown.exited, 2);
    const refused = runCli(["deliveries", "--token", "mpat_not_a_real_token_000000000000000000000"], env);
    assert.equal(await refused.exited, 1);
    assert.match(refused.errors(), /INVALID_TOKEN \(401\)/);
  });
});
