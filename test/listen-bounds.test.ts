import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { Agent, fetch } from "undici";
import { EVENTS } from "../src/contracts/events.ts";
import { EVENTS_CHANNEL } from "../src/modules/events/events-repo.ts";
import { installedApp } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import {
  apiClient,
  asForm,
  createTestContext,
  type ErrorBody,
  type EventBody,
  type Json,
  type Scope,
  type TestContext,
  text,
} from "./harness.ts";
import { waitUntil } from "./webhooks-harness.ts";

interface SseMessage {
  event: string;
  id: string | undefined;
  /** The document describes the stream only as `text/event-stream`, not its messages' JSON. */
  data: Json;
}

/**
 * Issue 18: what one installation can open through listen streams is bounded (streams, sessions,
 * how far a resume goes back), a stream never outlives the token that opened it, and a resume
 * never carries more than the presenting token's scopes allow.
 */
describe("listen: bounds, credentials and scopes", () => {
  let ctx: TestContext;
  let baseUrl: string;
  before(async () => {
    ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" });
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    // The burst made the client open sockets it never sent a request on; a server's close waits
    // for those until its headers time-out, so the client's pool goes first.
    // A test that failed half-way leaves its streams open: end them, or the close waits on them.
    for (const close of [...opened]) close();
    await client.close();
    await ctx.close();
  });
  const client = new Agent();
  const opened = new Set<() => void>();

  /** One stream over real HTTP, read message by message. */
  async function open(token: string, headers: Record<string, string> = {}, query = "") {
    const controller = new AbortController();
    const response = await fetch(`${baseUrl}/api/v1/apps/api/webhooks/stream${query}`, {
      headers: { authorization: `Bearer ${token}`, accept: "text/event-stream", ...headers },
      signal: controller.signal,
      dispatcher: client,
    });
    // A refusal's body is read by the test (JSON); only a stream is read here.
    const reader =
      response.status === 200
        ? response.body!.pipeThrough(new TextDecoderStream()).getReader()
        : new ReadableStream<string>({ start: (c) => c.close() }).getReader();
    let buffer = "";
    const next = async (what: string, ms = 10_000): Promise<SseMessage> => {
      const deadline = Date.now() + ms;
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(":")) continue; // heartbeat
          const field = (name: string) => new RegExp(`^${name}: ?(.*)$`, "m").exec(block)?.[1];
          const data = field("data");
          if (data === undefined) continue; // retry:
          return { event: field("event") ?? "message", id: field("id"), data: JSON.parse(data) as Json };
        }
        let timer: NodeJS.Timeout | undefined;
        const chunk = await Promise.race([
          reader.read(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`no message within ${ms} ms: ${what}`)),
              deadline - Date.now(),
            );
          }),
        ]).finally(() => clearTimeout(timer));
        if (chunk.done) throw new Error(`stream closed while waiting for ${what}`);
        buffer += chunk.value;
      }
    };
    const webhook = async (what: string) => {
      for (;;) {
        const m = await next(what);
        if (m.event === "webhook") return m;
        if (m.event === "end") throw new Error(`ended (${JSON.stringify(m.data)}) while waiting for ${what}`);
      }
    };
    const close = () => {
      opened.delete(close);
      controller.abort();
      reader.cancel().catch(() => {});
    };
    opened.add(close);
    return { response, next, webhook, close };
  }

  async function shop(scopes: Scope[] = ["read_orders", "read_customers", "manage_webhooks"]) {
    const installed = await installedApp(ctx.app, scopes);
    const m = installed.merchant;
    const product = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({
        title: "Mug",
        price: "12.00",
        stock: 10_000,
      }),
    });
    const customer = await m.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: m.slug } },
      body: {
        email: `c${Date.now()}${Math.random()}@example.com`,
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
    return { installed, m, order, storeId: m.store.id };
  }

  const sessions = (storeId: string) =>
    sql<{ id: string; connection: string | null; stopped_at: Date | null }>`
      SELECT id, connection, stopped_at FROM webhook_listen_sessions WHERE store_id = ${storeId} ORDER BY created_at, id`
      .execute(ctx.platform.db)
      .then((r) => r.rows);

  it("a burst of 20 opens gets 5 streams and 15 answers 429 with Retry-After; a closed stream gives its place back", async () => {
    const { installed, storeId } = await shop();
    const token = installed.tokens.accessToken;
    const burst = await Promise.all(Array.from({ length: 20 }, () => open(token)));
    const opened = burst.filter((s) => s.response.status === 200);
    const refused = burst.filter((s) => s.response.status === 429);
    assert.equal(opened.length, 5, "LISTEN_MAX_STREAMS (5) streams per installation");
    assert.equal(refused.length, 15);
    for (const r of refused) {
      assert.ok(Number(r.response.headers.get("retry-after")) > 0);
      const body = (await r.response.json()) as ErrorBody;
      assert.equal(body.success, false);
      assert.equal(body.error.code, "RATE_LIMITED");
    }
    for (const s of opened) assert.equal((await s.next("session")).event, "session");
    assert.equal((await sessions(storeId)).length, 5, "a refused open leaves no session behind");
    opened[0]!.close();
    // Once the closed stream is gone, one more fits (it replaces the closed, now disconnected, session).
    await waitUntil(
      async () =>
        (await sessions(storeId)).filter((s) => s.connection === null && !s.stopped_at).length === 1,
      10_000,
      "the closed stream's session freed",
    );
    const again = await open(token);
    assert.equal(again.response.status, 200);
    assert.equal((await again.next("session")).event, "session");
    for (const s of [...opened, again]) s.close();
  });

  it("disconnected sessions make room and can be resumed until they expire; sessions connected elsewhere do not make room", async () => {
    const { installed, storeId } = await shop();
    const token = installed.tokens.accessToken;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const s = await open(token);
      ids.push((await s.next("session")).data.sessionId as string);
      s.close();
      await waitUntil(
        async () => (await sessions(storeId)).every((row) => row.connection === null),
        10_000,
        "disconnected",
      );
      ctx.clock.advance(1000); // distinct seen_at, so "disconnected longest" is well defined
    }
    // A disconnected session resumes.
    const resumed = await open(token, { "last-event-id": `${ids[4]}.0` });
    assert.equal(resumed.response.status, 200);
    assert.equal((await resumed.next("resumed")).data.resumed, true);
    resumed.close();
    await waitUntil(
      async () => (await sessions(storeId)).every((row) => row.connection === null),
      10_000,
      "closed",
    );

    // All five held by live connections of other processes: no room.
    // (Seen just now, in the order they were seen.)
    await sql`UPDATE webhook_listen_sessions SET connection = 'elsewhere',
                     seen_at = seen_at + (${ctx.clock.now()}::timestamptz - (SELECT max(seen_at) FROM webhook_listen_sessions WHERE store_id = ${storeId}))
               WHERE store_id = ${storeId}`.execute(ctx.platform.db);
    const full = await open(token);
    assert.equal(full.response.status, 429);
    assert.ok(Number(full.response.headers.get("retry-after")) >= 30);
    // Thirty seconds without a heartbeat: those connections are gone, and the oldest session makes room.
    ctx.clock.advance(31_000);
    const sixth = await open(token);
    assert.equal(sixth.response.status, 200);
    await sixth.next("session");
    sixth.close();
    const rows = await sessions(storeId);
    assert.equal(rows.length, 6);
    assert.deepEqual(
      rows.filter((r) => r.stopped_at).map((r) => r.id),
      [ids[0]],
      "the session seen longest ago was stopped",
    );
    assert.equal((await open(token, { "last-event-id": `${ids[0]}.0` })).response.status, 404);

    // Past LISTEN_SESSION_IDLE_SECONDS (600) without a connection, a session can no longer be resumed.
    ctx.clock.advance(601_000);
    const expired = await open(token, { "last-event-id": `${ids[1]}.0` });
    assert.equal(expired.response.status, 404);
    assert.equal(((await expired.response.json()) as ErrorBody).error.code, "NOT_FOUND");
  });

  it("ends when its token is revoked, and when it expires, sending nothing after either", async () => {
    const { installed, order } = await shop();
    const s = await open(installed.tokens.accessToken);
    await s.next("session");
    const first = await order();
    const w = await s.webhook("order.created");
    assert.equal(JSON.parse(w.data.body as string).data.id, first.id);
    // The whole family revoked (RFC 7009, by its refresh token).
    const revoked = await apiClient(ctx.app).POST("/api/v1/oauth/revoke", {
      body: {
        token: installed.tokens.refreshToken,
        client_id: installed.clientId,
        client_secret: installed.clientSecret,
      },
      ...asForm,
    });
    assert.equal(revoked.response.status, 200);
    await order(); // would be streamed to a stream that outlived its token
    const end = await s.next("end after revocation");
    assert.deepEqual(
      { event: end.event, reason: end.data.reason },
      { event: "end", reason: "token_revoked" },
    );
    s.close();

    const later = await shop();
    const e = await open(later.installed.tokens.accessToken);
    await e.next("session");
    ctx.clock.advance(3601_000); // past the access token's hour
    await later.order();
    const expired = await e.next("end after expiry");
    assert.deepEqual(
      { event: expired.event, reason: expired.data.reason },
      { event: "end", reason: "token_expired" },
    );
    e.close();
  });

  it("a resume carries only what the presenting token's scopes allow", async () => {
    const { installed, m, order } = await shop();
    const wide = await open(installed.tokens.accessToken);
    const session = await wide.next("session");
    assert.ok((session.data.events as string[]).includes("customer.created"));
    await order();
    const seen = await wide.webhook("order.created");
    wide.close();
    // The same grant, narrowed to manage_webhooks (RFC 6749 section 6).
    const narrowed = await apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
      body: {
        slug: m.slug,
        refreshToken: installed.tokens.refreshToken,
        clientId: installed.clientId,
        clientSecret: installed.clientSecret,
        scope: "manage_webhooks",
      },
    });
    assert.equal(narrowed.response.status, 200, text(narrowed));
    const narrow = installed.bearer(narrowed.data!.data.accessToken);
    assert.equal((await narrow.GET("/api/v1/apps/api/customers")).response.status, 403);
    // Meanwhile a customer signs up and an order is placed.
    await m.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: m.slug } },
      body: { email: `late${Date.now()}@example.com`, firstName: "Omar" },
    });
    await order();
    const resumed = await open(narrowed.data!.data.accessToken, { "last-event-id": seen.id! });
    const again = await resumed.next("resumed session");
    assert.deepEqual(
      again.data.events,
      Object.values(EVENTS)
        .filter((e) => e.scope === null)
        .map((e) => e.name),
      "only what manage_webhooks may see: the events that need no scope",
    );
    const marker = await narrow.POST("/api/v1/apps/api/webhooks/test", {
      body: { event: "app/uninstalled" },
    });
    assert.equal(marker.response.status, 202);
    const first = await resumed.webhook("the marker");
    assert.equal(first.data.event, "app/uninstalled", "no customer or order event reached the narrow token");
    resumed.close();
  });

  it("a resume goes back at most 1,000 store events, and never before the session began", async () => {
    const { installed, storeId } = await shop(["read_orders", "manage_webhooks"]);
    const api = installed.api;
    const s = await open(installed.tokens.accessToken, {}, "?events=order.created");
    const session = await s.next("session");
    const COUNT = 1200;
    await sql`INSERT INTO events (id, store_id, topic, resource_id, payload, dispatched_at)
      SELECT 'evt_rw' || lpad(g::text, 16, '0'), ${storeId}, 'order.created', 'ord_rw' || g,
             jsonb_build_object('id', 'ord_rw' || g), now()
      FROM generate_series(1, ${COUNT}) g`.execute(ctx.platform.db);
    await sql`SELECT pg_notify(${EVENTS_CHANNEL}, ${storeId})`.execute(ctx.platform.db);
    let last: SseMessage | null = null;
    for (let i = 0; i < COUNT; i++) last = await s.webhook(`event ${i + 1}`);
    s.close();
    assert.equal(JSON.parse(last!.data.body as string).data.id, `ord_rw${COUNT}`);

    // `<session>.0` asks for everything again: it gets the last 1,000, then what is new.
    const replay = await open(installed.tokens.accessToken, {
      "last-event-id": `${session.data.sessionId}.0`,
    });
    await replay.next("resumed");
    assert.equal(
      (await api.POST("/api/v1/apps/api/webhooks/test", { body: { event: "order.created" } })).response
        .status,
      202,
    );
    const ids: string[] = [];
    for (;;) {
      const w = await replay.webhook("replayed events, then the marker");
      const body = JSON.parse(w.data.body as string) as EventBody<"order.created">;
      if (body.test) break;
      ids.push(body.data.id);
    }
    replay.close();
    assert.equal(ids.length, 1000);
    assert.equal(ids[0], `ord_rw${COUNT - 999}`);
    assert.equal(ids.at(-1), `ord_rw${COUNT}`);
  });
});
