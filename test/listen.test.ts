import assert from "node:assert/strict";
import { type AddressInfo, connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { type ListenMessage, listen, verifyWebhook } from "@merchant-platform/sdk";
import { sql } from "kysely";
import { EVENTS_CHANNEL } from "../src/modules/events/events-repo.ts";
import { installedApp } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import {
  createTestContext,
  type ErrorBody,
  type EventBody,
  type Json,
  type TestContext,
  text,
} from "./harness.ts";
import { waitUntil } from "./webhooks-harness.ts";

type Webhook = Extract<ListenMessage, { type: "webhook" }>;

/**
 * The listen stream (GET /api/v1/apps/api/webhooks/stream) over real HTTP, read with the SDK's
 * `listen`: signed like deliveries, scoped, resumable across reconnects without losing events,
 * test events marked, and the end after app/uninstalled.
 */
describe("listen: webhooks streamed to a developer's machine", () => {
  let ctx: TestContext;
  let baseUrl: string;
  before(async () => {
    ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" });
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  });
  after(() => ctx.close());

  /** Reads messages from a listen generator one at a time, with a deadline per message. */
  function reader(stream: AsyncGenerator<ListenMessage>) {
    return {
      async next(what: string, ms = 10_000): Promise<ListenMessage> {
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no message within ${ms} ms: ${what}`)), ms);
        });
        try {
          const { value, done } = await Promise.race([stream.next(), deadline]);
          if (done) throw new Error(`stream ended while waiting for ${what}`);
          return value;
        } finally {
          clearTimeout(timer);
        }
      },
      async webhook(what: string): Promise<Webhook> {
        for (;;) {
          const m = await this.next(what);
          if (m.type === "webhook") return m;
          if (m.type === "end") throw new Error(`ended while waiting for ${what}`);
        }
      },
    };
  }

  async function shop() {
    const installed = await installedApp(ctx.app, ["read_orders", "read_customers", "manage_webhooks"]);
    const m = installed.merchant;
    const product = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({ title: "Mug", price: "12.00", stock: 100 }),
    });
    const customer = await m.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: m.slug } },
      body: {
        email: `c${Date.now()}@example.com`,
        firstName: "Layla",
      },
    });
    const order = async () => {
      const res = await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: m.slug } },
        body: {
          customerId: customer.data!.data.id,
          lineItems: [{ productId: product.data!.data.id, quantity: 1 }],
        },
      });
      assert.equal(res.response.status, 201, text(res));
      return res.data!.data;
    };
    const token = { accessToken: async () => installed.tokens.accessToken };
    return { installed, m, order, token };
  }

  it("streams each event signed like a delivery, only what the scopes allow, resumes without losing events, and ends after app/uninstalled", async () => {
    const { installed, m, order, token } = await shop();
    const controller = new AbortController();
    const first = listen({ baseUrl, tokens: token, signal: controller.signal });
    const r1 = reader(first);
    const session = await r1.next("session");
    assert.equal(session.type, "session");
    if (session.type !== "session") return;
    assert.match(session.secret ?? "", /^whsec_/);
    assert.equal(session.resumed, false);
    assert.ok(session.events.includes("order.created") && session.events.includes("app/uninstalled"));
    assert.ok(!session.events.includes("product.created"), "no read_products: no product events");

    const created = await order();
    const w1 = await r1.webhook("order.created");
    assert.equal(w1.event, "order.created");
    assert.equal(w1.headers["x-webhook-event"], "order.created");
    const verified = verifyWebhook({
      rawBody: w1.body,
      headers: w1.headers,
      secret: session.secret!,
      now: ctx.clock.now().getTime(),
    });
    assert.equal(verified.event.event, "order.created");
    if (verified.event.event === "order.created") assert.equal(verified.event.data.id, created.id);
    assert.equal(verified.deliveryId, w1.id);
    assert.equal(verified.test, false);

    // Disconnect; two orders happen meanwhile; resume from the last id seen.
    controller.abort();
    await first.return(undefined);
    const missed = [await order(), await order()];
    const lastId = w1.lastEventId;
    assert.match(lastId, new RegExp(`^${session.sessionId}\\.\\d+$`));
    const controller2 = new AbortController();
    const second = listen({ baseUrl, tokens: token, lastEventId: lastId, signal: controller2.signal });
    const r2 = reader(second);
    const resumed = await r2.next("resumed session");
    assert.equal(resumed.type === "session" && resumed.resumed, true);
    assert.equal(resumed.type === "session" && resumed.secret, undefined, "the secret is handed out once");
    const again = [await r2.webhook("missed 1"), await r2.webhook("missed 2")];
    assert.deepEqual(
      again.map((w) => (JSON.parse(w.body) as EventBody<"order.created">).data.id),
      missed.map((o) => o.id),
    );

    // A test event for this installation: marked in the header and the body.
    const test = await installed.api.POST("/api/v1/apps/api/webhooks/test", {
      body: { event: "order.paid" },
    });
    assert.equal(test.response.status, 202, text(test));
    const tw = await r2.webhook("test event");
    assert.equal(tw.headers["x-webhook-test"], "true");
    assert.equal((JSON.parse(tw.body) as EventBody<"order.paid">).test, true);
    assert.equal(tw.event, "order.paid");

    // Uninstall: app/uninstalled is the last message, then the stream ends.
    const uninstall = await m.client.DELETE("/api/v1/dashboard/stores/{slug}/installations/{clientId}", {
      params: { path: { slug: m.slug, clientId: installed.clientId } },
    });
    assert.equal(uninstall.response.status, 200, text(uninstall));
    const last = await r2.webhook("app/uninstalled");
    assert.equal(last.event, "app/uninstalled");
    const end = await r2.next("end");
    assert.deepEqual(end, {
      type: "end",
      reason: "uninstalled",
      message: "The app was uninstalled from the store.",
    });
    assert.equal((await second.next()).done, true);
    controller2.abort();
  });

  it("refuses events outside the token's scopes, unknown names and foreign sessions", async () => {
    const { installed, token } = await shop();
    const other = await shop();
    const ask = (query: string, headers: Record<string, string> = {}) =>
      fetch(`${baseUrl}/api/v1/apps/api/webhooks/stream${query}`, {
        headers: { authorization: `Bearer ${installed.tokens.accessToken}`, ...headers },
      });
    const noScope = await ask("?events=product.created");
    assert.equal(noScope.status, 403);
    assert.equal(((await noScope.json()) as ErrorBody).error.code, "INSUFFICIENT_SCOPE");
    assert.equal((await ask("?events=order.exploded")).status, 400);
    assert.equal((await ask("", { "last-event-id": "nonsense" })).status, 400);
    // Another installation's session is not found.
    const foreign = reader(listen({ baseUrl, tokens: other.token }));
    const s = await foreign.next("foreign session");
    assert.equal(s.type, "session");
    const stolen = await ask("", { "last-event-id": `${s.type === "session" ? s.sessionId : ""}.0` });
    assert.equal(stolen.status, 404);
    assert.ok(token);
    const needs = await installed.api.POST("/api/v1/apps/api/webhooks/test", {
      body: { event: "product.created" },
    });
    assert.equal(needs.response.status, 403, "a test event needs the event's scope too");
  });

  it("a client that stops reading holds the rest in the feed, not in the server's memory, and gets all of it once it reads again", async () => {
    const { installed, m } = await shop();
    const COUNT = 1500;
    const PAD = 16_000; // 24 MB of events: more than loopback's socket buffers hold (about 10 MB)
    const socket = connect((ctx.app.server.address() as AddressInfo).port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      `GET /api/v1/apps/api/webhooks/stream?events=order.created HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${installed.tokens.accessToken}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    socket.pause(); // reads nothing: the kernel's buffers fill, then the server's writes wait
    const storeId = m.store.id;
    // How far the session has streamed: its feed position past where it began.
    const sentCount = async () =>
      Number(
        (
          await sql<{
            n: string;
          }>`SELECT position - start_position AS n FROM webhook_listen_sessions WHERE store_id = ${storeId}`.execute(
            ctx.platform.db,
          )
        ).rows[0]!.n,
      );
    await waitUntil(
      async () =>
        (
          await sql`SELECT 1 FROM webhook_listen_sessions WHERE store_id = ${storeId}`.execute(
            ctx.platform.db,
          )
        ).rows.length === 1,
      60_000,
      "the session",
    );
    await sql`INSERT INTO events (id, store_id, topic, resource_id, payload)
      SELECT 'evt_bp' || lpad(g::text, 16, '0'), ${storeId}, 'order.created', 'ord_bp' || g,
             jsonb_build_object('id', 'ord_bp' || g, 'pad', repeat('x', ${PAD}))
      FROM generate_series(1, ${COUNT}) g`.execute(ctx.platform.db);
    // No subscription wants them from the outbox; the stream reads them from the feed, woken as
    // a committed event would wake it.
    await sql`UPDATE events SET dispatched_at = now() WHERE store_id = ${storeId} AND id LIKE 'evt_bp%'`.execute(
      ctx.platform.db,
    );
    await sql`SELECT pg_notify(${EVENTS_CHANNEL}, ${storeId})`.execute(ctx.platform.db);
    // The stream writes until the buffers are full, then waits: what it marks sent stops short.
    let last = -1;
    await waitUntil(
      async () => {
        const now = await sentCount();
        const stopped = now > 0 && now === last;
        last = now;
        if (!stopped) await new Promise((r) => setTimeout(r, 500));
        return stopped;
      },
      120_000,
      "the stream to stop writing",
    );
    assert.ok(last < COUNT, `${last} of ${COUNT} written to a client that reads nothing`);

    // Reading again: every event arrives, once.
    const ids = new Set<string>();
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
      for (let end = text.indexOf("\n\n"); end !== -1; end = text.indexOf("\n\n")) {
        const message = text.slice(0, end);
        text = text.slice(end + 2);
        const data = /^data: (.*)$/m.exec(message)?.[1];
        // A listen message's JSON: the document describes the stream only as text/event-stream.
        if (/^event: webhook$/m.test(message) && data) ids.add((JSON.parse(data) as Json).id as string);
      }
    });
    socket.resume();
    await waitUntil(() => ids.size === COUNT, 120_000, `all ${COUNT} events`);
    socket.destroy();
  });

  it("marks a test event's deliveries to real subscriptions, visible in the installation's delivery log", async () => {
    const { installed } = await shop();
    const sub = await installed.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "customer.created",
        targetUrl: "https://127.0.0.1:9/hooks",
      },
    });
    assert.equal(sub.response.status, 201, text(sub));
    const test = await installed.api.POST("/api/v1/apps/api/webhooks/test", {
      body: { event: "customer.created" },
    });
    assert.equal(test.response.status, 202);
    await ctx.platform.webhooks.deliveries.dispatchEvents(ctx.clock.now(), 100);
    const log = await installed.api.GET("/api/v1/apps/api/webhooks/deliveries", {
      params: { query: { event: "customer.created" } },
    });
    assert.equal(log.response.status, 200, text(log));
    assert.equal(log.data!.data.length, 1);
    assert.equal(log.data!.data[0]!.test, true);
    assert.equal(log.data!.data[0]!.eventId, test.data!.data.eventId);
  });
});
