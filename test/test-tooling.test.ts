import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ListenMessage, listen } from "@merchant-platform/sdk";
import { sql } from "kysely";
import type { TSchema } from "typebox";
import { Value } from "typebox/value";
import { run } from "../packages/cli/src/commands.ts";
import { EVENT_BY_NAME, EVENT_NAMES, EVENT_PAYLOADS, type EventName } from "../src/contracts/index.ts";
import { consent, exchange, installedApp, REDIRECT, registerApp } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import {
  apiClient,
  createTestContext,
  type EventBody,
  type EventData,
  type Json,
  merchantWithStore,
  type ResponseData,
  type Scope,
  type TestContext,
  text,
  uniqueEmail,
} from "./harness.ts";
import { waitUntil } from "./webhooks-harness.ts";

type Webhook = Extract<ListenMessage, { type: "webhook" }>;

/**
 * The schema with no additional properties anywhere: a value checks only with exactly its fields.
 * A JSON Schema, walked as plain JSON.
 */
function exact(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(exact);
  if (!schema || typeof schema !== "object") return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) out[k] = typeof v === "object" ? exact(v) : v;
  if (out.type === "object" && out.properties) out.additionalProperties = false;
  return out;
}

function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === "object") return Object.values(value).flatMap(strings);
  return [];
}

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

/** A CLI command line run in this process (packages/cli's `run`), its output collected. */
async function cli(argv: string[], env: Record<string, string>) {
  const out = { stdout: "", stderr: "" };
  const sink = (name: "stdout" | "stderr") =>
    ({
      write(chunk: string) {
        out[name] += chunk;
        return true;
      },
    }) as unknown as NodeJS.WritableStream;
  const code = await run(argv, { stdout: sink("stdout"), stderr: sink("stderr"), env });
  return { code, ...out };
}

/**
 * Issue 21, part 4: test tooling that tells the truth. Test events look like the store's own
 * records; what `listen` streamed is in the delivery log and on the order's page; the CLI says
 * what went wrong with a token command and checks `login` before saving.
 */
describe("test tooling that tells the truth", () => {
  let ctx: TestContext;
  let baseUrl: string;
  let configDir: string;
  before(async () => {
    ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" });
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    configDir = mkdtempSync(join(tmpdir(), "mp-testtools-"));
  });
  after(async () => {
    await ctx.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  describe("test events are built from the store's real data shape", () => {
    it("an order in the store's currency with its products, a number no order has, nothing real read or written; every event's data fits its schema exactly", async () => {
      // Every scope an event needs (a new event's scope joins by itself), and the webhooks'.
      const scopes: Scope[] = [
        ...new Set(
          EVENT_NAMES.flatMap((e) => (EVENT_BY_NAME[e].scope ? [EVENT_BY_NAME[e].scope as Scope] : [])),
        ),
        "manage_webhooks",
      ];
      const registered = await registerApp(ctx.app, scopes, "Fulfilment Bridge");
      // A store selling in riyals, with products, a customer and two orders.
      const merchant = apiClient(ctx.app);
      await merchant.POST("/api/v1/dashboard/auth/signup", {
        body: {
          email: uniqueEmail(),
          password: "correct horse battery",
          name: "Riyadh Merchant",
        },
      });
      const slug = `sar-${Date.now().toString(36)}`;
      const created = await merchant.POST("/api/v1/dashboard/stores", {
        body: {
          name: "Oud House",
          slug,
          currency: "SAR",
        },
      });
      assert.equal(created.response.status, 201, text(created));
      const products: Array<ResponseData<"/api/v1/dashboard/stores/{slug}/products", "post">> = [];
      for (const [title, price, sku] of [
        ["Oud Perfume 50 ml", "249.00", "OUD-50"],
        ["Dates Gift Box", "89.50", "DATES-1KG"],
        ["Prayer Rug", "150.00", "RUG-01"],
      ] as const) {
        const p = await merchant.POST("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug } },
          body: flat({ title, price, sku, stock: 100 }),
        });
        assert.equal(p.response.status, 201, text(p));
        products.push(p.data!.data);
      }
      const customer = await merchant.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug } },
        body: {
          email: "real.customer@example.org",
          firstName: "Noura",
          lastName: "Alharbi",
        },
      });
      const orders: Array<ResponseData<"/api/v1/dashboard/stores/{slug}/orders", "post">> = [];
      for (let i = 0; i < 2; i++) {
        const o = await merchant.POST("/api/v1/dashboard/stores/{slug}/orders", {
          params: { path: { slug } },
          body: {
            customerId: customer.data!.data.id,
            lineItems: [{ productId: products[i]!.id, quantity: 1 }],
          },
        });
        assert.equal(o.response.status, 201, text(o));
        orders.push(o.data!.data);
      }
      const { code } = await consent({ client: merchant, slug }, registered.clientId, scopes);
      const tokens = await exchange(ctx.app, {
        slug,
        code,
        redirectUri: REDIRECT,
        clientId: registered.clientId,
        clientSecret: registered.clientSecret,
      });
      const api = apiClient(ctx.app, {
        headers: { authorization: `Bearer ${tokens.data!.data.accessToken}` },
      });
      const storeId = created.data!.data.id;
      const counts = async () =>
        Object.fromEntries(
          await Promise.all(
            (["orders", "order_line_items", "customers", "products"] as const).map(
              async (table) =>
                [
                  table,
                  Number(
                    (
                      await ctx.platform.db
                        .selectFrom(table)
                        .select((eb) => eb.fn.countAll().as("n"))
                        .where("store_id", "=", storeId)
                        .executeTakeFirstOrThrow()
                    ).n,
                  ),
                ] as const,
            ),
          ),
        );
      const before = await counts();

      const sent = new Map<string, EventName>();
      for (const event of EVENT_NAMES) {
        const res = await api.POST("/api/v1/apps/api/webhooks/test", { body: { event } });
        assert.equal(res.response.status, 202, text(res));
        sent.set(res.data!.data.eventId, event);
      }
      // The events as recorded and as the events API (and every delivery) carries them.
      const feed = await api.GET("/api/v1/apps/api/events", { params: { query: { limit: 100 } } });
      assert.equal(feed.response.status, 200, text(feed));
      const tests = feed.data!.data.filter((e) => sent.has(e.id));
      assert.equal(tests.length, EVENT_NAMES.length);
      for (const e of tests) {
        const event = sent.get(e.id)!;
        assert.equal(e.test, true);
        const schema = EVENT_PAYLOADS[EVENT_BY_NAME[event].data];
        const errors = [...Value.Errors(exact(schema) as TSchema, e.data)].map(
          (x) => `${x.instancePath} ${x.message}`,
        );
        assert.deepEqual(errors, [], `${event}: exactly its payload schema`);
        for (const text of strings(e.data))
          assert.doesNotMatch(
            text,
            /^string/,
            `${event}: a "string" placeholder in ${JSON.stringify(e.data)}`,
          );
        // Each branch reads the data its event carries by the contract (EVENT_BY_NAME), as the
        // document's webhooks section types that event's data.
        if (EVENT_BY_NAME[event].data === "order") {
          const order = e.data as EventData<"order.created">;
          assert.equal(order.currency, "SAR", "the store's currency");
          assert.ok(order.number > Math.max(...orders.map((o) => o.number)), "above the store's numbers");
          assert.ok(
            !orders.some((o) => o.id === order.id || o.number === order.number),
            "not an existing order",
          );
          assert.notEqual(order.customerId, customer.data!.data.id, "not a real customer");
          assert.ok(order.lineItems.length >= 1);
          for (const item of order.lineItems) {
            const product = products.find((p) => p.title === item.title);
            assert.ok(product, `a line item of the store's products: ${item.title}`);
            assert.equal(item.sku, product.variants[0]!.sku);
            assert.equal(item.unitPrice, product.variants[0]!.price);
            assert.notEqual(item.productId, product.id, "a fresh id");
          }
          const sum = order.lineItems.reduce((s, i) => s + Math.round(Number(i.total) * 100), 0);
          assert.equal(Math.round(Number(order.subtotal) * 100), sum, "totals add up");
        }
        if (event === "customer.created") {
          const data = e.data as EventData<"customer.created">;
          assert.match(data.email, /@example\.com$/);
          assert.notEqual(data.email, customer.data!.data.email);
        }
        if (event === "product.created")
          assert.equal((e.data as EventData<"product.created">).currency, "SAR");
        if (event === "app/uninstalled") {
          const data = e.data as EventData<"app/uninstalled">;
          assert.equal(data.clientId, registered.clientId);
          assert.equal(data.appName, "Fulfilment Bridge");
        }
      }
      assert.deepEqual(await counts(), before, "no real record was written");
    });
  });

  describe("what listen streamed is visible", () => {
    it("the Admin API, the dashboard's app page and the order's Webhooks panel list listen sessions and what each streamed; a resume does not unsay it; idle sessions still cost an event nothing", async () => {
      const installed = await installedApp(ctx.app, ["read_orders", "manage_webhooks"]);
      const m = installed.merchant;
      const storeId = m.store.id;
      const product = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body: flat({ title: "Mug", price: "12.00", stock: 100 }),
      });
      const customer = await m.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: m.slug } },
        body: {
          email: uniqueEmail("c"),
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
      const panel = async (orderId: string) => {
        const res = await m.client.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/webhooks", {
          params: { path: { slug: m.slug, id: orderId } },
        });
        assert.equal(res.response.status, 200, text(res));
        return res.data!.data;
      };
      const sessions = async () => {
        const res = await installed.api.GET("/api/v1/apps/api/webhooks/listen-sessions");
        assert.equal(res.response.status, 200, text(res));
        return res.data!.data;
      };

      const controller = new AbortController();
      const first = listen({ baseUrl, tokens: token, signal: controller.signal });
      const r1 = reader(first);
      const session = await r1.next("session");
      assert.ok(session.type === "session");
      const a = await order();
      const wA = await r1.webhook("order A");
      const trigger = await installed.api.POST("/api/v1/apps/api/webhooks/test", {
        body: { event: "order.created" },
      });
      assert.equal(trigger.response.status, 202);
      const wT = await r1.webhook("the test event");

      // The Admin API (what the CLI's `deliveries` reads).
      const listed = (await sessions())[0]!;
      assert.equal(listed.id, session.sessionId);
      assert.equal(listed.storeSlug, m.slug);
      assert.equal(listed.state, "streaming");
      assert.deepEqual(listed.events, session.events);
      assert.deepEqual(
        listed.streamed.map((e) => [e.id, e.eventName, e.test]),
        [
          [wT.id, "order.created", true],
          [wA.id, "order.created", false],
        ],
        "what it streamed, newest first, with the ids listen printed",
      );
      assert.equal(listed.streamed[1]!.eventId, (JSON.parse(wA.body) as EventBody).id);
      assert.equal(listed.moreStreamed, false);

      // The order's page: the app received its event through listen.
      const onA = await panel(a.id);
      assert.deepEqual(
        onA.map((w) => ({
          via: w.via,
          id: w.id,
          eventName: w.eventName,
          app: w.app.clientId,
          session: "listenSessionId" in w ? w.listenSessionId : undefined,
        })),
        [
          {
            via: "listen",
            id: wA.id,
            eventName: "order.created",
            app: installed.clientId,
            session: session.sessionId,
          },
        ],
      );

      // Disconnected: an order meanwhile is not streamed, and not listed as if it were. (Once the
      // platform has seen the connection go: before that, what it writes counts as streamed.)
      controller.abort();
      await first.return(undefined);
      await waitUntil(
        async () =>
          (
            await sql`SELECT 1 FROM webhook_listen_sessions WHERE store_id = ${storeId} AND connection IS NULL`.execute(
              ctx.platform.db,
            )
          ).rows.length === 1,
        10_000,
        "the session released",
      );
      const b = await order();
      assert.deepEqual(await panel(b.id), []);
      const idle = (await sessions())[0]!;
      assert.equal(idle.state, "disconnected");
      assert.equal(idle.streamed.length, 2);

      // A resume streams from where the client says, but does not unsay what was streamed.
      const row = async () =>
        (
          await sql<{ position: string; start_position: string; installation_id: string }>`
            SELECT position, start_position, installation_id FROM webhook_listen_sessions
             WHERE store_id = ${storeId} AND id = ${session.sessionId}`.execute(ctx.platform.db)
        ).rows[0]!;
      const streamedTo = Number((await row()).position);
      const taken = await ctx.platform.webhooks.listen.resume({
        storeId,
        installationId: (await row()).installation_id,
        sessionId: session.sessionId,
        position: (s) => Number(s.start_position),
        connection: "test-connection",
        now: ctx.clock.now(),
        liveAfter: new Date(ctx.clock.now().getTime() - 600_000),
      });
      assert.ok(taken);
      assert.equal(
        Number(taken.position),
        Number((await row()).start_position),
        "the stream starts where asked",
      );
      assert.equal(Number((await row()).position), streamedTo, "the record keeps what was streamed");
      await ctx.platform.webhooks.listen.release(
        storeId,
        session.sessionId,
        "test-connection",
        ctx.clock.now(),
      );

      const controller2 = new AbortController();
      const second = listen({
        baseUrl,
        tokens: token,
        lastEventId: wA.lastEventId,
        signal: controller2.signal,
      });
      const r2 = reader(second);
      await r2.next("resumed");
      assert.equal((await r2.webhook("the test event again")).id, wT.id);
      const wB = await r2.webhook("order B");
      assert.equal((JSON.parse(wB.body) as EventBody<"order.created">).data.id, b.id);
      const resumed = await sessions();
      assert.equal(resumed.length, 1, "one session");
      assert.deepEqual(
        resumed[0]!.streamed.map((e) => e.id),
        [wB.id, wT.id, wA.id],
        "each event once, however often it was streamed",
      );
      assert.equal((await panel(b.id))[0]!.id, wB.id);

      // Every event of a session, a page at a time.
      const page1 = await installed.api.GET("/api/v1/apps/api/webhooks/listen-sessions/{id}/events", {
        params: { path: { id: session.sessionId }, query: { limit: 2 } },
      });
      assert.equal(page1.response.status, 200, text(page1));
      assert.deepEqual(
        page1.data!.data.map((e) => e.id),
        [wB.id, wT.id],
      );
      const page2 = await installed.api.GET("/api/v1/apps/api/webhooks/listen-sessions/{id}/events", {
        params: {
          path: { id: session.sessionId },
          query: { limit: 2, cursor: page1.data!.meta.nextCursor! },
        },
      });
      assert.deepEqual(
        page2.data!.data.map((e) => e.id),
        [wA.id],
      );
      assert.equal(page2.data!.meta.nextCursor, null);
      const onlyTests = await installed.api.GET("/api/v1/apps/api/webhooks/listen-sessions", {
        params: { query: { event: "order.created" } },
      });
      assert.equal(onlyTests.data!.data[0]!.streamed.length, 3);
      controller2.abort();
      await second.return(undefined);

      // The developer's delivery page in the dashboard; nobody else's.
      const dash = await installed.dev.client.GET("/api/v1/dashboard/apps/{clientId}/listen-sessions", {
        params: { path: { clientId: installed.clientId } },
      });
      assert.equal(dash.response.status, 200, text(dash));
      assert.equal(dash.data!.data[0]!.id, session.sessionId);
      assert.deepEqual(
        dash.data!.data[0]!.streamed.map((e) => e.id),
        [wB.id, wT.id, wA.id],
      );
      const dashEvents = await installed.dev.client.GET(
        "/api/v1/dashboard/apps/{clientId}/listen-sessions/{id}/events",
        { params: { path: { clientId: installed.clientId, id: session.sessionId } } },
      );
      assert.deepEqual(
        dashEvents.data!.data.map((e) => e.id),
        [wB.id, wT.id, wA.id],
      );
      const stranger = await merchantWithStore(ctx.app);
      const refused = await stranger.client.GET("/api/v1/dashboard/apps/{clientId}/listen-sessions", {
        params: { path: { clientId: installed.clientId } },
      });
      assert.equal(refused.response.status, 404);
      const other = await installedApp(ctx.app, ["read_orders", "manage_webhooks"]);
      const foreign = await other.api.GET("/api/v1/apps/api/webhooks/listen-sessions/{id}/events", {
        params: { path: { id: session.sessionId } },
      });
      assert.equal(foreign.response.status, 404);
      assert.deepEqual((await other.api.GET("/api/v1/apps/api/webhooks/listen-sessions")).data!.data, []);

      // The CLI's `deliveries` lists them too, marked as streamed to listen.
      const out = await cli(["deliveries", "--base-url", baseUrl, "--token", installed.tokens.accessToken], {
        MERCHANT_PLATFORM_CONFIG: join(configDir, "none.json"),
      });
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, new RegExp(`Listen sessions[^\\n]*\\n${session.sessionId}\\s+disconnected`));
      for (const w of [wA, wT, wB])
        assert.match(out.stdout, new RegExp(`${w.id}\\s+order\\.created\\s+streamed to listen`));
      const all = await cli(
        [
          "deliveries",
          "--base-url",
          baseUrl,
          "--token",
          installed.tokens.accessToken,
          "--session",
          session.sessionId,
        ],
        { MERCHANT_PLATFORM_CONFIG: join(configDir, "none.json") },
      );
      assert.equal(all.code, 0, all.stderr);
      assert.equal(all.stdout.trim().split("\n").length, 3);

      // Idle sessions: an order writes nothing to them (issue 18), and is not listed as streamed.
      const snapshot = async () =>
        (
          await sql`SELECT id, position, seen_at, connection FROM webhook_listen_sessions WHERE store_id = ${storeId} ORDER BY id`.execute(
            ctx.platform.db,
          )
        ).rows;
      const beforeOrder = await snapshot();
      const c = await order();
      assert.deepEqual(await snapshot(), beforeOrder);
      assert.deepEqual(await panel(c.id), []);

      // Uninstalled while streaming: app/uninstalled is the last thing streamed, and listed.
      const controller3 = new AbortController();
      const third = listen({ baseUrl, tokens: token, signal: controller3.signal });
      const r3 = reader(third);
      const s3 = await r3.next("third session");
      assert.ok(s3.type === "session");
      const uninstall = await m.client.DELETE("/api/v1/dashboard/stores/{slug}/installations/{clientId}", {
        params: { path: { slug: m.slug, clientId: installed.clientId } },
      });
      assert.equal(uninstall.response.status, 200);
      const last = await r3.webhook("app/uninstalled");
      assert.equal(last.event, "app/uninstalled");
      const end = await r3.next("end");
      assert.ok(end.type === "end" && end.reason === "uninstalled");
      const afterUninstall = await installed.dev.client.GET(
        "/api/v1/dashboard/apps/{clientId}/listen-sessions",
        { params: { path: { clientId: installed.clientId }, query: { store: m.slug } } },
      );
      const ended = afterUninstall.data!.data.find((s) => s.id === s3.sessionId)!;
      assert.equal(ended.state, "ended");
      assert.ok(ended.endedAt);
      assert.deepEqual(
        ended.streamed.map((e) => [e.id, e.eventName]),
        [[last.id, "app/uninstalled"]],
      );
    });
  });

  describe("the CLI says what went wrong", () => {
    let notPlatform: Server;
    let notPlatformUrl: string;
    let token: string;
    const env = () => ({ MERCHANT_PLATFORM_CONFIG: join(configDir, "config.json") });
    before(async () => {
      notPlatform = createServer((_req, res) =>
        res.writeHead(404, { "content-type": "text/plain" }).end("not found"),
      );
      await new Promise<void>((resolve) => notPlatform.listen(0, "127.0.0.1", resolve));
      notPlatformUrl = `http://127.0.0.1:${(notPlatform.address() as AddressInfo).port}`;
      token = (await installedApp(ctx.app, ["read_orders", "manage_webhooks"])).tokens.accessToken;
    });
    after(() => notPlatform.close());

    it("a --token-command that fails or prints no token is reported as that, with its output, exit 4, never as INVALID_TOKEN", async () => {
      const withCommand = (command: string) =>
        cli(["deliveries", "--base-url", baseUrl, "--token-command", command], env());

      const failing = await withCommand(
        "echo 'curl: (7) Failed to connect to localhost port 8080' >&2; exit 7",
      );
      assert.equal(failing.code, 4, failing.stderr);
      assert.match(failing.stderr, /The token command failed \(exit status 7\): echo/);
      assert.match(failing.stderr, /On stderr: curl: \(7\) Failed to connect to localhost port 8080/);

      const silent = await withCommand("true");
      assert.equal(silent.code, 4, silent.stderr);
      assert.match(
        silent.stderr,
        /The token command printed no access token: true\n {2}It printed nothing\./,
      );

      // What `curl -s localhost:8080/dev/token` prints (exit 0) when the app is not installed.
      const notAToken = await withCommand("echo 'not installed'");
      assert.equal(notAToken.code, 4, notAToken.stderr);
      assert.match(
        notAToken.stderr,
        /printed something that is not an access token: echo 'not installed'\n {2}It printed: not installed/,
      );

      const slow = await withCommand("sleep 30");
      assert.equal(slow.code, 4);
      assert.match(slow.stderr, /did not finish within 10 s/);

      for (const r of [failing, silent, notAToken, slow]) assert.doesNotMatch(r.stderr, /INVALID_TOKEN/);

      // A token the platform refuses is the platform's answer, and says where the token came from.
      const refused = await withCommand("echo mpat_0000000000000000000000000000000000000000000");
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /INVALID_TOKEN \(401\)/);
      assert.match(refused.stderr, /The token came from --token-command \(echo mpat_0+\)/);

      const works = await withCommand(`echo ${token}`);
      assert.equal(works.code, 0, works.stderr);
    });

    it("login checks the URL and the command before saving them", async () => {
      const path = join(configDir, "config.json");
      rmSync(path, { force: true });
      const saved = () => {
        try {
          // The CLI's own config file: not something the document describes.
          return JSON.parse(readFileSync(path, "utf8")) as Json;
        } catch {
          return null;
        }
      };
      const login = (url: string, command = `echo ${token}`) =>
        cli(["login", "--base-url", url, "--token-command", command], env());

      for (const url of ["localhost:3000", "ftp://127.0.0.1/", "not a url", `${baseUrl}/api/v1`]) {
        const bad = await login(url);
        assert.equal(bad.code, 2, `${url}: ${bad.stderr}`);
        assert.match(bad.stderr, /--base-url/);
      }
      const wrongServer = await login(notPlatformUrl);
      assert.equal(wrongServer.code, 1, wrongServer.stderr);
      assert.match(wrongServer.stderr, /is not the platform: GET \/healthz answered HTTP 404/);
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
      const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const unreachable = await login(closedUrl);
      assert.equal(unreachable.code, 1, unreachable.stderr);
      assert.match(
        unreachable.stderr,
        /Cannot reach the platform at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/,
      );
      const failingCommand = await login(baseUrl, "exit 3");
      assert.equal(failingCommand.code, 4, failingCommand.stderr);
      assert.match(failingCommand.stderr, /The token command failed \(exit status 3\): exit 3/);
      assert.equal(saved(), null, "nothing saved while anything failed");

      const ok = await login(`${baseUrl}/`);
      assert.equal(ok.code, 0, ok.stderr);
      assert.deepEqual(saved(), { baseUrl, tokenCommand: `echo ${token}` });
    });
  });
});
