import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { listenForEvents } from "../src/modules/webhooks/delivery/notifications.ts";
import { REDIRECT } from "./apps-harness.ts";
import { createTestContext, type TestContext } from "./harness.ts";
import { Client, consent, type Json } from "./legacy-client.ts";
import { fetchDocument, operationsOf } from "./openapi-doc.ts";
import { startReceiver } from "./receiver.ts";
import { waitUntil } from "./webhooks-harness.ts";

/**
 * Every answer of every operation the dashboard, the Admin API and the developer API serve, on a
 * seeded store, compared byte for byte with the answers recorded in test/fixtures/answers.json
 * (after the normalisation below: ids, secrets and ports are random). A refactoring of the routes
 * must leave them identical; a change to what a client sees updates the file on purpose
 * (`UPDATE_ANSWERS=1 npm test -- test/answers.test.ts`) and shows in review.
 *
 * One deterministic story: a frozen clock moved one second before every write, one subscription
 * per event, and the worker's deliveries waited out after each write, so every list is in one
 * order and every timestamp is the same on every run, on both databases.
 */

const FIXTURE = join(import.meta.dirname, "fixtures", "answers.json");
const UPDATE = process.env.UPDATE_ANSWERS === "1";
/** Operations not recorded here, with why (each has its own tests). */
const NOT_RECORDED: Record<string, string> = {
  adminStreamWebhooks: "a server-sent event stream (test/listen.test.ts)",
  adminListListenSessionEvents: "needs a listen stream (test/listen.test.ts)",
  dashboardListListenSessionEvents: "needs a listen stream (test/listen.test.ts)",
  appsAuthorize: "a redirect to the consent page (test/app-integration.test.ts)",
  oauthToken: "RFC 6749 shapes (test/oauth-standard-client.test.ts)",
  oauthRevoke: "RFC 7009 (test/oauth-standard-client.test.ts)",
  healthz: "probes (test/operations.test.ts)",
  readyz: "probes (test/operations.test.ts)",
  dashboardLogoutEverywhere: "ends the session the story uses (test/dashboard-accounts.test.ts)",
  dashboardChangePassword: "argon2 on purpose slow (test/dashboard-accounts.test.ts)",
};

interface Recorded {
  operationId: string;
  request: string;
  status: number;
  contentType: string;
  body: string;
}

/** Replaces what is random in an answer by stable names given in order of first appearance. */
function createNormalizer() {
  const names = new Map<string, string>();
  const counters = new Map<string, number>();
  const name = (value: string, kind: string) => {
    let n = names.get(value);
    if (!n) {
      const next = (counters.get(kind) ?? 0) + 1;
      counters.set(kind, next);
      n = `<${kind}#${next}>`;
      names.set(value, n);
    }
    return n;
  };
  return (text: string) =>
    text
      // Prefixed random values: ids (`prod_…`), secrets and tokens (`whsec_…`, `mpk_…`).
      .replace(/\bwhsec_[0-9A-Za-z+/]{16,}={0,2}/g, (all) => name(all, "whsec"))
      .replace(/\b([a-z]{2,8})_([0-9A-Za-z]{16,64})\b/g, (all, prefix: string) => name(all, prefix))
      // OAuth codes and cursors: long base64url or base62 runs without a prefix.
      .replace(/\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[0-9A-Za-z_-]{32,}\b/g, (all) => name(all, "opaque"))
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, (all) =>
        name(all, "uuid"),
      )
      .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>")
      // How long a receiver took to answer.
      .replace(/"durationMs":\d+/g, '"durationMs":0');
}

/** A test event's data is made up at random (a persona, a sample record): left out of the comparison. */
function withoutTestData(body: string): string {
  if (!body.includes('"test":true')) return body;
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (node === null || typeof node !== "object") return node;
    const record = node as Json;
    const out: Json = {};
    for (const [k, v] of Object.entries(record))
      out[k] = record.test === true && k === "data" ? "<test data>" : strip(v);
    return out;
  };
  return JSON.stringify(strip(JSON.parse(body)));
}

describe("answers: every operation's answer on a seeded store, byte for byte", () => {
  let ctx: TestContext;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let startWorker: () => Promise<void>;
  let stopWorker: () => Promise<void> = async () => {};
  let pokeWorker: () => void = () => {};
  const recorded: Recorded[] = [];
  let match: (method: string, url: string) => string;

  before(async () => {
    ctx = await createTestContext(
      {
        WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
        WEBHOOK_MAX_ATTEMPTS: "1",
        WEBHOOK_TIMEOUT_MS: "10000",
        WEBHOOK_LEASE_MS: "15000",
        RATE_LIMIT_PER_MINUTE: "100000",
      },
      // A fixed instant, so every date in the answers is the same on every run.
      { frozenClock: true, startAt: Date.parse("2026-11-20T10:00:00.000Z") },
    );
    receiver = await startReceiver((req, res) => {
      res.statusCode = req.path === "/gone" ? 410 : req.path === "/fail" ? 503 : 200;
      res.end("ok");
    });
    startWorker = async () => {
      const worker = ctx.platform.webhooks.createWorker(pino({ level: "silent" }));
      const unlisten = await listenForEvents(ctx.platform.database, worker.poke, () => {});
      worker.start();
      pokeWorker = worker.poke;
      stopWorker = async () => {
        await unlisten();
        await worker.stop();
        stopWorker = async () => {};
      };
    };
    const doc = await fetchDocument(ctx.app);
    const routes = operationsOf(doc).map((o) => ({
      method: o.method.toUpperCase(),
      pattern: new RegExp(`^${o.path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
      operationId: String(o.op.operationId),
    }));
    match = (method, url) => {
      const path = url.split("?")[0]!;
      const found = routes.find((r) => r.method === method && r.pattern.test(path));
      if (!found) throw new Error(`no operation for ${method} ${path}`);
      return found.operationId;
    };
  });
  after(async () => {
    await stopWorker();
    await receiver.close();
    await ctx.close();
  });

  /** A client whose every request is recorded, in order. */
  function recording(client: Client): Client {
    const original = client.request.bind(client);
    client.request = async (method, url, body, headers) => {
      const res = await original(method, url, body, headers);
      recorded.push({
        operationId: match(method, url),
        request: `${method} ${url}`,
        status: res.status,
        contentType: String(res.headers["content-type"] ?? ""),
        body: res.raw.body,
      });
      return res;
    };
    return client;
  }

  /**
   * Runs the worker until every event is fanned out and every delivery attempted, then stops it
   * and moves the clock. The worker runs only here, never while a request is answered: an answer
   * that shows a new delivery (a redelivery, a data request) shows it before any attempt.
   */
  async function settle() {
    await startWorker();
    const db = ctx.platform.db;
    await waitUntil(
      async () => {
        // The clock is frozen, so the worker's own poll never comes: a dispatch that skipped an
        // event locked for a moment (the feed's numbering) is retried when poked, as a
        // notification would.
        pokeWorker();
        const events = await db
          .selectFrom("events")
          .select((e) => e.fn.countAll<number>().as("n"))
          .where("dispatched_at", "is", null)
          .executeTakeFirstOrThrow();
        const pending = await db
          .selectFrom("webhook_deliveries")
          .select((e) => e.fn.countAll<number>().as("n"))
          .where("status", "=", "pending")
          .executeTakeFirstOrThrow();
        return Number(events.n) === 0 && Number(pending.n) === 0;
      },
      20_000,
      "the worker to be idle",
    ).catch(async (error) => {
      const rows = await db
        .selectFrom("webhook_deliveries")
        .select(["id", "status", "attempts", "next_attempt_at", "lease_until", "created_at", "target_url"])
        .where("status", "=", "pending")
        .execute();
      const events = await db
        .selectFrom("events")
        .select(["seq", "id", "topic", "created_at", "test"])
        .where("dispatched_at", "is", null)
        .execute();
      throw new Error(
        `${(error as Error).message}; pending: ${JSON.stringify(rows)}; undispatched: ${JSON.stringify(events)}; now ${ctx.clock.now().toISOString()}`,
      );
    });
    await stopWorker();
    ctx.clock.advance(1000);
  }

  it("records the story and compares it with the fixture", { timeout: 300_000 }, async () => {
    const ok = (res: { status: number; body: Json }, status = 200) =>
      assert.equal(res.status, status, JSON.stringify(res.body));

    // The merchant and the store (the dashboard's account family).
    const merchant = recording(new Client(ctx.app));
    ok(
      await merchant.post("/api/v1/dashboard/auth/signup", {
        email: "golden-merchant@example.com",
        password: "correct horse battery",
        name: "Golden Merchant",
      }),
      201,
    );
    ok(await merchant.get("/api/v1/dashboard/me"));
    await settle();
    ok(await merchant.post("/api/v1/dashboard/stores", { name: "Golden Store", slug: "golden" }), 201);
    ok(await merchant.get("/api/v1/dashboard/stores"));
    await settle();
    ok(await merchant.patch("/api/v1/dashboard/account", { name: "Golden M." }));
    const S = "/api/v1/dashboard/stores/golden";

    // The dashboard's store family.
    ok(await merchant.get(S));
    await settle();
    ok(await merchant.patch(S, { name: "Golden Store Co.", orderNumberPrefix: "G-" }));
    await settle();
    const mug = (
      await merchant.post(`${S}/products`, { title: "Mug", price: "9.50", stock: 10, sku: "MUG-1" })
    ).data as Json;
    await settle();
    const cap = (await merchant.post(`${S}/products`, { title: "Cap", price: "15.00", stock: 3 }))
      .data as Json;
    await settle();
    ok(await merchant.get(`${S}/products`));
    ok(await merchant.get(`${S}/products?q=mug&sort=price&limit=1`));
    ok(await merchant.get(`${S}/products/${mug.id}`));
    ok(await merchant.patch(`${S}/products/${mug.id}`, { stock: 12, description: "Stoneware" }));
    await settle();
    ok(await merchant.get(`${S}/products/${mug.id}/app-data`));
    const ana = (
      await merchant.post(`${S}/customers`, {
        email: "ana@example.com",
        firstName: "Ana",
        lastName: "Lima",
        phone: "+15551234567",
        addresses: [
          {
            name: "Ana Lima",
            line1: "1 Main St",
            city: "Boston",
            region: "MA",
            postalCode: "02108",
            country: "US",
          },
        ],
        tags: ["vip"],
      })
    ).data as Json;
    await settle();
    const bo = (await merchant.post(`${S}/customers`, { email: "bo@example.com", firstName: "Bo" }))
      .data as Json;
    await settle();
    ok(await merchant.get(`${S}/customers`));
    ok(await merchant.get(`${S}/customers?q=ana`));
    ok(await merchant.get(`${S}/customers/${ana.id}`));
    ok(await merchant.patch(`${S}/customers/${ana.id}`, { note: "Prefers mornings" }));
    await settle();
    const order = (
      await merchant.post(`${S}/orders`, {
        customerId: ana.id,
        // One line: the stock of several products is taken in the order of their (random) ids.
        lineItems: [{ productId: mug.id, quantity: 2 }],
        note: "Gift wrap",
      })
    ).data as Json;
    await settle();
    ok(await merchant.get(`${S}/orders`));
    ok(await merchant.get(`${S}/orders?status=pending`));
    ok(await merchant.get(`${S}/orders/${order.id}`));
    ok(await merchant.patch(`${S}/orders/${order.id}`, { tags: ["gift"] }));
    await settle();
    ok(await merchant.post(`${S}/orders/${order.id}/status`, { status: "paid" }));
    await settle();
    ok(await merchant.get(`${S}/orders/${order.id}/history`));
    ok(await merchant.get(`${S}/orders/${order.id}/webhooks`));
    ok(await merchant.get(`${S}/orders/${order.id}/app-data`));
    ok(await merchant.get(`${S}/customers/${ana.id}/stats`));
    ok(await merchant.get(`${S}/customers/${ana.id}/app-data`));
    ok(await merchant.get(`${S}/overview`));
    const key = (
      await merchant.post(`${S}/api-keys`, {
        name: "Golden key",
        scopes: ["read_products", "write_products", "read_orders", "read_customers"],
      })
    ).data as Json;
    await settle();
    ok(await merchant.get(`${S}/api-keys`));
    ok(await merchant.patch(`${S}/api-keys/${key.keyId}`, { apiVersion: key.apiVersion }));
    // Errors: another store's slug, a malformed body, a missing record.
    assert.equal((await merchant.get("/api/v1/dashboard/stores/not-mine/products")).status, 404);
    assert.equal((await merchant.post(`${S}/products`, { title: "" })).status, 400);
    assert.equal((await merchant.get(`${S}/orders/ord_aaaaaaaaaaaaaaaaaaaaaa`)).status, 404);

    // An app: registered by its developer, installed by the merchant.
    const developer = recording(new Client(ctx.app));
    ok(
      await developer.post("/api/v1/dashboard/auth/signup", {
        email: "golden-developer@example.com",
        password: "correct horse battery",
        name: "Golden Developer",
      }),
      201,
    );
    await settle();
    const scopes = [
      "read_products",
      "write_products",
      "read_orders",
      "write_orders",
      "read_customers",
      "write_customers",
      "manage_webhooks",
    ];
    const registered = (
      await developer.post("/api/v1/dashboard/apps", { name: "Golden App", redirectUris: [REDIRECT], scopes })
    ).data as Json;
    await settle();
    ok(await developer.get("/api/v1/dashboard/apps"));
    ok(await developer.get(`/api/v1/dashboard/apps/${registered.clientId}`));
    ok(
      await developer.patch(`/api/v1/dashboard/apps/${registered.clientId}`, {
        name: "Golden App 2",
        privacyWebhookUrl: `${receiver.url}/privacy`,
      }),
    );
    await settle();
    ok(
      await merchant.get(
        `/api/v1/dashboard/oauth/consent?client_id=${registered.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=${scopes.join("+")}&state=st&response_type=code`,
      ),
    );
    const { code } = await consent({ client: merchant, slug: "golden" }, registered.clientId, scopes);
    await settle();
    const exchanged = await recording(new Client(ctx.app)).post("/api/v1/apps/token", {
      slug: "golden",
      code,
      redirectUri: REDIRECT,
      clientId: registered.clientId,
      clientSecret: registered.clientSecret,
    });
    ok(exchanged);
    await settle();
    ok(await merchant.get(`${S}/installations`));

    // The Admin API.
    const api = recording(new Client(ctx.app, { authorization: `Bearer ${exchanged.data.accessToken}` }));
    const A = "/api/v1/apps/api";
    ok(await api.get(`${A}/store`));
    const hooks: Json[] = [];
    for (const [eventName, path] of [
      ["product.created", "/ok"],
      ["order.created", "/fail"],
      ["customer.created", "/gone"],
      ["order.paid", "/ok"],
    ] as const) {
      const created = await api.post(`${A}/webhooks`, { eventName, targetUrl: `${receiver.url}${path}` });
      ok(created, 201);
      hooks.push(created.data as Json);
      await settle();
    }
    ok(await api.get(`${A}/webhooks`));
    ok(await api.patch(`${A}/webhooks/${hooks[0]!.id}`, { apiVersion: hooks[0]!.apiVersion }));
    const tee = (
      await api.post(`${A}/products`, { title: "Tee", price: "20.00", stock: 5, metadata: { erpId: "E-1" } })
    ).data as Json;
    await settle();
    ok(await api.get(`${A}/products`));
    ok(await api.get(`${A}/products/${tee.id}`));
    ok(await api.patch(`${A}/products/${tee.id}`, { price: "21.00", metadata: { erpId: null, bin: "B2" } }));
    await settle();
    const cy = (
      await api.post(`${A}/customers`, { email: "cy@example.com", firstName: "Cy", metadata: { crm: "C-9" } })
    ).data as Json;
    await settle();
    ok(await api.get(`${A}/customers`));
    ok(await api.get(`${A}/customers/${cy.id}`));
    ok(await api.patch(`${A}/customers/${cy.id}`, { lastName: "Young" }));
    await settle();
    const appOrder = await api.post(
      `${A}/orders`,
      { customerId: cy.id, lineItems: [{ productId: tee.id, quantity: 1 }], metadata: { shipment: "S-1" } },
      { "idempotency-key": "golden-order-1" },
    );
    ok(appOrder, 201);
    await settle();
    // The same key again: the stored answer.
    ok(
      await api.post(
        `${A}/orders`,
        { customerId: cy.id, lineItems: [{ productId: tee.id, quantity: 1 }], metadata: { shipment: "S-1" } },
        { "idempotency-key": "golden-order-1" },
      ),
      201,
    );
    ok(await api.get(`${A}/orders`));
    ok(await api.get(`${A}/orders/${appOrder.data.id}`));
    ok(await api.patch(`${A}/orders/${appOrder.data.id}`, { note: "Leave at door" }));
    await settle();
    ok(await api.post(`${A}/orders/${appOrder.data.id}/status`, { status: "paid" }));
    await settle();
    ok(await api.post(`${A}/webhooks/test`, { event: "product.created" }), 202);
    await settle();
    ok(await api.get(`${A}/events`));
    ok(await api.get(`${A}/events?types=order.created,order.paid&limit=2`));
    ok(await api.get(`${A}/webhooks/deliveries`));
    ok(await api.get(`${A}/webhooks/deliveries?status=failed`));
    ok(await api.get(`${A}/webhooks/listen-sessions`));
    const delivered = (await api.get(`${A}/webhooks/deliveries?status=delivered`)).data as Json[];
    ok(await api.post(`${A}/webhooks/deliveries/${delivered[0]!.id}/redeliver`), 201);
    await settle();
    ok(await api.post(`${A}/webhooks/${hooks[1]!.id}/recover`, { since: new Date(0).toISOString() }));
    await settle();
    ok(await api.post(`${A}/webhooks/${hooks[0]!.id}/secret`), 201);
    await settle();
    // customer.created went to /gone (410): that subscription is disabled.
    ok(await api.post(`${A}/webhooks/${hooks[2]!.id}/enable`, {}));
    await settle();
    for (const resource of ["products", "orders", "customers"]) ok(await api.get(`${A}/export/${resource}`));
    ok(await api.get(`${A}/export/products?updatedSince=${encodeURIComponent(new Date(0).toISOString())}`));
    ok(await api.delete(`${A}/products/${tee.id}`));
    await settle();
    ok(await api.delete(`${A}/webhooks/${hooks[3]!.id}`));
    await settle();
    assert.equal((await api.get(`${A}/products/prod_aaaaaaaaaaaaaaaaaaaaaa`)).status, 404);
    assert.equal((await api.post(`${A}/orders`, { lineItems: [] })).status, 400);
    assert.equal((await api.get(`${A}/events?after=999999999`)).status, 400);

    // The developer's view of its app's deliveries (the dashboard's account family).
    const D = `/api/v1/dashboard/apps/${registered.clientId}`;
    ok(await developer.get(`${D}/deliveries`));
    ok(await developer.get(`${D}/webhooks`));
    ok(await developer.get(`${D}/listen-sessions`));
    ok(await developer.get(`${D}/deprecated-calls`));
    const failed = (await developer.get(`${D}/deliveries?status=failed`)).data as Json[];
    ok(await developer.post(`${D}/deliveries/${failed[0]!.id}/redeliver`), 201);
    await settle();
    ok(
      await developer.post(`${D}/webhooks/recover`, {
        subscriptionId: hooks[1]!.id,
        since: new Date(0).toISOString(),
      }),
    );
    await settle();
    const disabledAgain = (await developer.get(`${D}/webhooks`)).data as Json[];
    const toEnable = disabledAgain.find((s) => s.status === "disabled") ?? disabledAgain[0]!;
    ok(await developer.post(`${D}/webhooks/${toEnable.id}/enable`, {}));
    await settle();
    const rotated = await developer.post(`${D}/secret`);
    ok(rotated, 200);
    await settle();

    // The developer API.
    const dev = recording(new Client(ctx.app, { "x-api-key": key.keyId, "x-api-secret": key.secret }));
    const V = "/api/v1/developer";
    ok(await dev.get(`${V}/store`));
    ok(await dev.get(`${V}/products`));
    ok(await dev.get(`${V}/products?page=2&perPage=1`));
    const hat = (await dev.post(`${V}/products`, { title: "Hat", price: "12.00", stock: 4 })).data as Json;
    await settle();
    ok(await dev.get(`${V}/products/${hat.id}`));
    ok(await dev.patch(`${V}/products/${hat.id}`, { title: "Sun hat" }));
    await settle();
    ok(await dev.get(`${V}/customers`));
    ok(await dev.get(`${V}/customers/${ana.id}`));
    ok(await dev.get(`${V}/orders`));
    ok(await dev.get(`${V}/orders/${order.id}`));
    for (const resource of ["products", "orders", "customers"]) ok(await dev.get(`${V}/export/${resource}`));
    ok(await dev.delete(`${V}/products/${hat.id}`));
    await settle();
    assert.equal((await dev.get(`${V}/products?page=0`)).status, 400);
    assert.equal((await dev.get(`${V}/orders/ord_aaaaaaaaaaaaaaaaaaaaaa`)).status, 404);

    // Refresh, then the end of the installation, the key and the app.
    const refreshed = await recording(new Client(ctx.app)).post("/api/v1/apps/token/refresh", {
      slug: "golden",
      refreshToken: exchanged.data.refreshToken,
      clientId: registered.clientId,
      clientSecret: rotated.data.clientSecret,
    });
    ok(refreshed);
    await settle();
    ok(await recording(new Client(ctx.app)).get("/.well-known/oauth-authorization-server"));
    ok(await recording(new Client(ctx.app)).get("/api/versions"));
    ok(await merchant.post(`${S}/customers/${ana.id}/data-requests`, {}), 201);
    await settle();
    ok(await merchant.get(`${S}/customers/${ana.id}/data-requests`));
    ok(await merchant.delete(`${S}/products/${cap.id}`));
    await settle();
    ok(await merchant.delete(`${S}/customers/${bo.id}`));
    await settle();
    ok(await merchant.delete(`${S}/customers/${ana.id}`));
    await settle();
    ok(await merchant.delete(`${S}/api-keys/${key.keyId}`));
    await settle();
    ok(await merchant.delete(`${S}/installations/${registered.clientId}`));
    await settle();
    ok(await developer.post(`${D}/privacy-secret`), 200);
    await settle();
    ok(await developer.delete(D));
    await settle();
    ok(await merchant.post("/api/v1/dashboard/auth/logout"));
    ok(
      await merchant.post("/api/v1/dashboard/auth/login", {
        email: "golden-merchant@example.com",
        password: "correct horse battery",
      }),
    );

    // Every operation of the document is in the story, or said why not.
    const doc = await fetchDocument(ctx.app);
    const seen = new Set(recorded.map((r) => r.operationId));
    const missing = operationsOf(doc)
      .map((o) => String(o.op.operationId))
      .filter((id) => !seen.has(id) && !(id in NOT_RECORDED));
    assert.deepEqual(missing, [], "operations the story does not call");

    const normalize = createNormalizer();
    const answers = recorded.map((r) => ({
      operationId: r.operationId,
      request: normalize(r.request),
      status: r.status,
      contentType: r.contentType,
      // An export's lines come in id order, and ids are random: compared as a set of lines.
      body: r.contentType.startsWith("application/x-ndjson")
        ? normalize(r.body).split("\n").sort().join("\n")
        : normalize(withoutTestData(r.body)),
    }));
    if (UPDATE || !existsSync(FIXTURE)) {
      writeFileSync(FIXTURE, `${JSON.stringify(answers, null, 2)}\n`);
      if (!UPDATE) assert.fail(`${FIXTURE} was missing and has been written: check it in`);
      return;
    }
    const expected = JSON.parse(readFileSync(FIXTURE, "utf8")) as typeof answers;
    assert.equal(answers.length, expected.length, "as many answers as recorded");
    for (let i = 0; i < answers.length; i++)
      assert.deepEqual(answers[i], expected[i], `answer ${i}: ${answers[i]!.request}`);
  });
});
