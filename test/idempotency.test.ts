import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { buildApp } from "../src/app.ts";
import { createPlatform } from "../src/platform.ts";
import { installedApp } from "./apps-harness.ts";
import { flat, flatPatch } from "./catalogue.ts";
import {
  type Answer,
  apiClient,
  createTestContext,
  detailsOf,
  errorCode,
  fieldErrors,
  injected,
  type Json,
  merchantWithStore,
  outbox,
  type RequestBody,
  type TestContext,
  text,
} from "./harness.ts";
import { openApiChecker } from "./openapi-assert.ts";
import { fetchDocument, operationsOf } from "./openapi-doc.ts";
import { rawRequest } from "./raw-http.ts";

/**
 * Idempotency keys on creates (issue 9, item 11): a retry with the same key and the same request
 * creates nothing and gets the first response back; another request with the key is refused; many
 * at once create one thing; keys belong to one credential; they last 24 hours.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
const key = () => `idem-${randomUUID()}`;
const idem = (k: string) => ({ "idempotency-key": k });

type Checker = Awaited<ReturnType<typeof openApiChecker>>;

async function countRows(ctx: TestContext, table: "products" | "orders" | "customers", storeId: string) {
  const row = await ctx.platform.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("store_id", "=", storeId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function countEvents(ctx: TestContext, storeId: string, topic: string) {
  return (await outbox(ctx.platform, storeId)).filter((e) => e.topic === topic).length;
}

type SubscriptionBody = RequestBody<"/api/v1/apps/api/webhooks", "post">;

/** The replay is the first response: same status, same body bytes, marked as replayed. */
function assertReplayOf(replay: Answer, first: Answer) {
  assert.equal(replay.response.status, first.response.status, text(replay));
  assert.equal(text(replay), text(first));
  assert.equal(replay.response.headers.get("idempotency-replayed"), "true");
  assert.equal(first.response.headers.get("idempotency-replayed"), null);
}

/**
 * Holds the next call of `products.create` (every family's product create goes through it) until
 * released, so a test can act while a request is between claiming its key and answering.
 */
function holdNextProductCreate(ctx: TestContext, behaviour: "wait" | "fail" = "wait") {
  const products = ctx.platform.services.products;
  const original = products.create;
  let entered!: () => void;
  let release!: () => void;
  const inside = new Promise<void>((r) => {
    entered = r;
  });
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let used = false;
  products.create = async (...args: Parameters<typeof original>) => {
    if (used) return original(...args);
    used = true;
    entered();
    if (behaviour === "fail") throw new Error("simulated fault while creating");
    await gate;
    return original(...args);
  };
  return {
    inside,
    release,
    restore() {
      products.create = original;
    },
  };
}

describe("idempotency keys on creates", () => {
  let ctx: TestContext;
  let spec: Checker;
  before(async () => {
    ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", RATE_LIMIT_PER_MINUTE: "1000" });
    spec = await openApiChecker(ctx.app);
  });
  after(() => ctx.close());

  async function merchant() {
    const m = await merchantWithStore(ctx.app);
    return { ...m, client: spec.watch(m.client) };
  }

  it("dashboard product: a retry replays status and body and creates nothing (no row, no event)", async () => {
    const m = await merchant();
    const k = key();
    const body = flat({ title: "Mug", price: "9.50", stock: 3 });
    const first = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body,
      headers: idem(k),
    });
    assert.equal(first.response.status, 201, text(first));
    const replay = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body,
      headers: idem(k),
    });
    assertReplayOf(replay, first);
    // The same body with its keys in another order is the same request.
    const reordered = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({ stock: 3, price: "9.50", title: "Mug" }),
      headers: idem(k),
    });
    assertReplayOf(reordered, first);
    assert.equal(await countRows(ctx, "products", m.store.id), 1);
    assert.equal(await countEvents(ctx, m.store.id, "product.created"), 1);
    // Without a key nothing changes: each request creates.
    await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body,
    });
    await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body,
    });
    assert.equal(await countRows(ctx, "products", m.store.id), 3);
  });

  it("dashboard order and store: replayed, one order, stock taken once, one store", async () => {
    const m = await merchant();
    const product = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({ title: "Tea", price: "4.00", stock: 10 }),
    });
    const customer = await m.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: m.slug } },
      body: { email: "c@example.com", firstName: "C" },
    });
    const order = {
      customerId: customer.data!.data.id,
      lineItems: [{ productId: product.data!.data.id, quantity: 2 }],
    };
    const k = key();
    const first = await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: m.slug } },
      body: order,
      headers: idem(k),
    });
    assert.equal(first.response.status, 201, text(first));
    assertReplayOf(
      await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: m.slug } },
        body: order,
        headers: idem(k),
      }),
      first,
    );
    assert.equal(await countRows(ctx, "orders", m.store.id), 1);
    assert.equal(await countEvents(ctx, m.store.id, "order.created"), 1);
    const stock = await m.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { slug: m.slug, id: product.data!.data.id } },
    });
    assert.equal(stock.data!.data.totalAvailable, 8);

    const slug = `idem-${randomBytes(4).toString("hex")}`;
    const sk = key();
    const store = await m.client.POST("/api/v1/dashboard/stores", {
      body: { name: "Second", slug },
      headers: idem(sk),
    });
    assert.equal(store.response.status, 201, text(store));
    // Without the key this retry would be 409 CONFLICT (the slug is taken): the key makes it a replay.
    assertReplayOf(
      await m.client.POST("/api/v1/dashboard/stores", { body: { name: "Second", slug }, headers: idem(sk) }),
      store,
    );
    const stores = await m.client.GET("/api/v1/dashboard/stores");
    assert.equal(stores.data!.data.filter((s) => s.slug === slug).length, 1);
  });

  it("Admin API webhook subscription: replays the same subscription and its secret, creates one", async () => {
    const a = await installedApp(ctx.app, ["read_products", "manage_webhooks"]);
    const api = spec.watch(a.api);
    const body: SubscriptionBody = { eventName: "product.created", targetUrl: "https://127.0.0.1:9/hooks" };
    const k = key();
    const first = await api.POST("/api/v1/apps/api/webhooks", { body, headers: idem(k) });
    assert.equal(first.response.status, 201, text(first));
    assert.match(first.data!.data.secret, /^whsec_/);
    assertReplayOf(await api.POST("/api/v1/apps/api/webhooks", { body, headers: idem(k) }), first);
    const list = await api.GET("/api/v1/apps/api/webhooks");
    assert.equal(list.data!.data.length, 1);
    // The stored response holds the shown-once secret: it is not in the database as text.
    const rows = await ctx.platform.db
      .selectFrom("idempotency_keys")
      .select(["key_hash", "response_body"])
      .execute();
    assert.ok(rows.length > 0);
    for (const row of rows) {
      assert.ok(
        !row.response_body?.includes(first.data!.data.secret),
        "a stored response holds the secret in clear",
      );
      assert.ok(!row.response_body?.includes("whsec_"));
      assert.notEqual(row.key_hash, k, "the client's key is stored in clear");
    }
  });

  it("developer API product: a retry replays and creates one", async () => {
    const m = await merchant();
    const created = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
      params: { path: { slug: m.slug } },
      body: { name: "k", scopes: ["write_products"] },
    });
    assert.equal(created.response.status, 201);
    const dev = spec.watch(
      apiClient(ctx.app, {
        headers: { "x-api-key": created.data!.data.keyId, "x-api-secret": created.data!.data.secret },
      }),
    );
    const k = key();
    const body = flat({ title: "Pen", price: "1.25" });
    const first = await dev.POST("/api/v1/developer/products", { body, headers: idem(k) });
    assert.equal(first.response.status, 201, text(first));
    assertReplayOf(await dev.POST("/api/v1/developer/products", { body, headers: idem(k) }), first);
    assert.equal(await countRows(ctx, "products", m.store.id), 1);
    assert.equal(await countEvents(ctx, m.store.id, "product.created"), 1);
  });

  it("after the secrets key changed, a retry is refused plainly (409), never run again, never a 500", async () => {
    const m = await merchant();
    const k = key();
    const body = flat({ title: "Vase", price: "12.00" });
    assert.equal(
      (
        await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: m.slug } },
          body,
          headers: idem(k),
        })
      ).response.status,
      201,
    );
    // Another instance of the service on the same database, with another SECRETS_KEY.
    const rekeyed = createPlatform({
      config: ctx.platform.config,
      database: ctx.platform.database,
      clock: ctx.clock,
      secretsKey: randomBytes(32),
    });
    const other = await buildApp(rekeyed);
    await other.ready();
    try {
      const client = apiClient(other);
      client.jar.cookie = m.client.jar.cookie;
      const retry = await client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body,
        headers: idem(k),
      });
      assert.equal(retry.response.status, 409, text(retry));
      assert.equal(errorCode(retry), "CONFLICT");
      assert.match(retry.error!.error.message, /secrets key/);
      assert.equal(await countRows(ctx, "products", m.store.id), 1, "not created twice");
    } finally {
      await other.close();
    }
  });

  it("the same key with another body, path or method answers 422 IDEMPOTENCY_KEY_REUSED and creates nothing", async () => {
    const m = await merchant();
    const k = key();
    const first = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({ title: "A", price: "1.00" }),
      headers: idem(k),
    });
    assert.equal(first.response.status, 201);
    const otherBody = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({ title: "B", price: "1.00" }),
      headers: idem(k),
    });
    assert.equal(otherBody.response.status, 422);
    assert.equal(errorCode(otherBody), "IDEMPOTENCY_KEY_REUSED");
    assert.equal(otherBody.response.headers.get("idempotency-replayed"), null);
    const otherPath = await m.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: m.slug } },
      body: { email: "x@example.com", firstName: "X" },
      headers: idem(k),
    });
    assert.equal(otherPath.response.status, 422);
    assert.equal(errorCode(otherPath), "IDEMPOTENCY_KEY_REUSED");
    assert.equal(await countRows(ctx, "products", m.store.id), 1);
    assert.equal(await countRows(ctx, "customers", m.store.id), 0);
    // The first request's answer is still what the key replays.
    assertReplayOf(
      await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body: flat({ title: "A", price: "1.00" }),
        headers: idem(k),
      }),
      first,
    );
  });

  it("refuses a malformed key with 400 before creating anything", async () => {
    const m = await merchant();
    for (const bad of ["", "k".repeat(256), "clé-ünïcode"]) {
      const res = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body: flat({ title: "A", price: "1.00" }),
        headers: idem(bad),
      });
      assert.equal(res.response.status, 400, `key ${JSON.stringify(bad.slice(0, 20))}: ${text(res)}`);
      assert.equal(errorCode(res), "VALIDATION_FAILED");
      assert.equal(fieldErrors(res)[0]!.field, "idempotency-key");
    }
    const longest = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({ title: "A", price: "1.00" }),
      headers: idem(`${"~ ".repeat(127)}k`),
    });
    assert.equal(longest.response.status, 201, text(longest));
    assert.equal(await countRows(ctx, "products", m.store.id), 1);
  });

  it("refuses a key with a space at the start or end; over HTTP such spaces never arrive, so it is one key", async () => {
    const m = await merchant();
    // What reaches the server intact (here through app.inject) is refused, never trimmed: before,
    // "k" and "k   " were two keys and created two products.
    const k = key();
    for (const bad of [`${k}   `, ` ${k}`, " ", `${k} \t`]) {
      // Injected as written: the Fetch API's Headers (and so the typed client) trim a value's
      // surrounding whitespace, which is what this sends; the answer is read as the document's.
      const res = injected(
        await ctx.app.inject({
          method: "POST",
          url: `${m.base}/products`,
          headers: { "content-type": "application/json", cookie: m.client.jar.cookie!, ...idem(bad) },
          payload: JSON.stringify(flat({ title: "A", price: "1.00" })),
        }),
      );
      assert.equal(res.response.status, 400, `key ${JSON.stringify(bad)}: ${text(res)}`);
      assert.equal(errorCode(res), "VALIDATION_FAILED");
      assert.equal(fieldErrors(res)[0]!.field, "idempotency-key");
      assert.doesNotMatch(fieldErrors(res)[0]!.message, /\^|\[/, "explained in words");
    }
    assert.equal(await countRows(ctx, "products", m.store.id), 0);
    assert.equal(
      (
        await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: m.slug } },
          body: flat({ title: "A", price: "1.00" }),
          headers: idem("a b"),
        })
      ).response.status,
      201,
      "inner spaces are part of a key",
    );

    // On a real connection, HTTP removes the whitespace around a header value (RFC 9110 5.5)
    // before any handler runs: "k" and "k   " are the same key, and the second is a replay.
    // Listening until the suite closes the app.
    const base = await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    const port = Number(new URL(base).port);
    const body = JSON.stringify(flat({ title: "Raw", price: "2.00" }));
    const send = (value: string) =>
      rawRequest(
        port,
        `POST ${m.base}/products HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${m.client.jar.cookie}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
          `Idempotency-Key: ${value}\r\nConnection: close\r\n\r\n${body}`,
      );
    const raw = key();
    const first = await send(raw);
    assert.equal(first.status, 201, first.raw);
    const spaced = await send(`${raw}   \t `);
    assert.equal(spaced.status, 201, spaced.raw);
    assert.equal(spaced.headers["idempotency-replayed"], "true");
    assert.equal(spaced.body, first.body);
    assert.equal(await countRows(ctx, "products", m.store.id), 2, "the one above and one raw product");
  });

  it("twenty concurrent requests with one key create exactly one; the others replay or answer 409", async () => {
    const a = await installedApp(ctx.app, ["write_products", "read_products"]);
    const api = spec.watch(a.api);
    const k = key();
    const body = flat({ title: "Race", price: "3.00" });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => api.POST("/api/v1/apps/api/products", { body, headers: idem(k) })),
    );
    const created = responses.filter(
      (r) => r.response.status === 201 && r.response.headers.get("idempotency-replayed") === null,
    );
    assert.equal(created.length, 1, responses.map((r) => r.response.status).join(","));
    for (const r of responses) {
      if (r.response.status === 201) {
        assert.equal(text(r), text(created[0]!));
      } else {
        assert.equal(r.response.status, 409, text(r));
        assert.equal(errorCode(r), "IDEMPOTENCY_KEY_IN_USE");
        assert.equal(r.response.headers.get("retry-after"), "1");
      }
    }
    assert.equal(await countRows(ctx, "products", a.merchant.store.id), 1);
    assert.equal(await countEvents(ctx, a.merchant.store.id, "product.created"), 1);
    assertReplayOf(await api.POST("/api/v1/apps/api/products", { body, headers: idem(k) }), created[0]!);
  });

  it("while the first request runs, the same key answers 409 with Retry-After; then its response", async () => {
    const m = await merchant();
    const k = key();
    const body = flat({ title: "Slow", price: "2.00" });
    const held = holdNextProductCreate(ctx);
    try {
      const firstPending = m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body,
        headers: idem(k),
      });
      await held.inside;
      const during = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body,
        headers: idem(k),
      });
      assert.equal(during.response.status, 409, text(during));
      assert.equal(errorCode(during), "IDEMPOTENCY_KEY_IN_USE");
      assert.equal(during.response.headers.get("retry-after"), "1");
      const different = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body: { ...body, title: "Other" },
        headers: idem(k),
      });
      assert.equal(errorCode(different), "IDEMPOTENCY_KEY_REUSED");
      held.release();
      const first = await firstPending;
      assert.equal(first.response.status, 201);
      assertReplayOf(
        await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: m.slug } },
          body,
          headers: idem(k),
        }),
        first,
      );
      assert.equal(await countRows(ctx, "products", m.store.id), 1);
    } finally {
      held.release();
      held.restore();
    }
  });

  it("does not keep a 5xx: the retry with the same key runs again", async () => {
    const m = await merchant();
    const k = key();
    const body = flat({ title: "Flaky", price: "2.00" });
    const held = holdNextProductCreate(ctx, "fail");
    try {
      const failed = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body,
        headers: idem(k),
      });
      assert.equal(failed.response.status, 500);
      assert.equal(errorCode(failed), "INTERNAL");
    } finally {
      held.restore();
    }
    const retry = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body,
      headers: idem(k),
    });
    assert.equal(retry.response.status, 201, text(retry));
    assert.equal(retry.response.headers.get("idempotency-replayed"), null);
    assertReplayOf(
      await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body,
        headers: idem(k),
      }),
      retry,
    );
    assert.equal(await countRows(ctx, "products", m.store.id), 1);
  });

  it("keeps a 4xx answer: the retry replays it even after the cause is gone", async () => {
    const m = await merchant();
    const product = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({ title: "Rare", price: "5.00", stock: 1 }),
    });
    const customer = await m.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: m.slug } },
      body: { email: "r@example.com", firstName: "R" },
    });
    const order = {
      customerId: customer.data!.data.id,
      lineItems: [{ productId: product.data!.data.id, quantity: 2 }],
    };
    const k = key();
    const short = await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
      params: { path: { slug: m.slug } },
      body: order,
      headers: idem(k),
    });
    assert.equal(short.response.status, 409, text(short));
    assert.equal(errorCode(short), "CONFLICT");
    await m.client.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { slug: m.slug, id: product.data!.data.id } },
      body: flatPatch({ stock: 5 }),
    });
    assertReplayOf(
      await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: m.slug } },
        body: order,
        headers: idem(k),
      }),
      short,
    );
    assert.equal(await countRows(ctx, "orders", m.store.id), 0);
    // A new key runs the request again.
    assert.equal(
      (
        await m.client.POST("/api/v1/dashboard/stores/{slug}/orders", {
          params: { path: { slug: m.slug } },
          body: order,
          headers: idem(key()),
        })
      ).response.status,
      201,
    );
  });

  it("keys belong to one credential: two apps, two stores, two merchants each create with the same key", async () => {
    const k = key();
    const body = flat({ title: "Shared key", price: "7.00" });
    const a = await installedApp(ctx.app, ["write_products"]);
    const b = await installedApp(ctx.app, ["write_products"]);
    const ra = await a.api.POST("/api/v1/apps/api/products", { body, headers: idem(k) });
    const rb = await b.api.POST("/api/v1/apps/api/products", { body, headers: idem(k) });
    assert.equal(ra.response.status, 201);
    assert.equal(rb.response.status, 201, text(rb));
    assert.equal(rb.response.headers.get("idempotency-replayed"), null);
    assert.notEqual(ra.data!.data.id, rb.data!.data.id);
    // Each credential's retry replays its own first response.
    assertReplayOf(await a.api.POST("/api/v1/apps/api/products", { body, headers: idem(k) }), ra);
    assertReplayOf(await b.api.POST("/api/v1/apps/api/products", { body, headers: idem(k) }), rb);

    // One merchant, two stores: the key is scoped to the store as well.
    const m = await merchant();
    const slug2 = `idem-${randomBytes(4).toString("hex")}`;
    assert.equal(
      (await m.client.POST("/api/v1/dashboard/stores", { body: { name: "Two", slug: slug2 } })).response
        .status,
      201,
    );
    const r1 = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body,
      headers: idem(k),
    });
    const r2 = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: slug2 } },
      body,
      headers: idem(k),
    });
    assert.equal(r1.response.status, 201);
    assert.equal(r2.response.status, 201, text(r2));
    assert.notEqual(r1.data!.data.id, r2.data!.data.id);
    assertReplayOf(
      await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: slug2 } },
        body,
        headers: idem(k),
      }),
      r2,
    );

    // Two merchants creating stores with one key.
    const other = await merchant();
    const s1 = await m.client.POST("/api/v1/dashboard/stores", {
      body: { name: "S", slug: `a-${slug2}` },
      headers: idem(k),
    });
    const s2 = await other.client.POST("/api/v1/dashboard/stores", {
      body: { name: "S", slug: `b-${slug2}` },
      headers: idem(k),
    });
    assert.equal(s1.response.status, 201);
    assert.equal(s2.response.status, 201, text(s2));
    assert.equal(s2.response.headers.get("idempotency-replayed"), null);
  });

  it("documents the header, the replay header and both codes on every create, from the route table", async () => {
    const doc = await fetchDocument(ctx.app);
    const problems: string[] = [];
    const creates: string[] = [];
    // The document itself, walked as plain JSON: its own structure is not among its paths.
    for (const { name, method, op } of operationsOf(doc)) {
      const params = ((op.parameters ?? []) as Json[]).filter(
        (p) => p.in === "header" && String(p.name).toLowerCase() === "idempotency-key",
      );
      const isCreate = method === "post" && op.responses["201"] && (op.security ?? []).length > 0;
      if (!isCreate) {
        if (op.responses["201"]?.headers?.["Idempotency-Replayed"])
          problems.push(`${name}: documents Idempotency-Replayed but is not a create`);
        continue;
      }
      creates.push(op.operationId);
      const [param] = params;
      if (!param) problems.push(`${name}: no Idempotency-Key header parameter`);
      else {
        if (param.required) problems.push(`${name}: Idempotency-Key must be optional`);
        if (param.schema?.maxLength !== 255) problems.push(`${name}: Idempotency-Key maxLength is not 255`);
        if (!/24 hours/.test(param.description ?? "")) problems.push(`${name}: header description`);
      }
      if (!op.responses["201"].headers?.["Idempotency-Replayed"])
        problems.push(`${name}: 201 does not document Idempotency-Replayed`);
      if (!/`IDEMPOTENCY_KEY_IN_USE`/.test(op.responses["409"]?.description ?? ""))
        problems.push(`${name}: 409 does not name IDEMPOTENCY_KEY_IN_USE`);
      if (!/`IDEMPOTENCY_KEY_REUSED`/.test(op.responses["422"]?.description ?? ""))
        problems.push(`${name}: 422 does not name IDEMPOTENCY_KEY_REUSED`);
    }
    assert.deepEqual(problems, [], problems.join("\n"));
    for (const id of [
      "adminCreateWebhook",
      "adminRotateWebhookSecret",
      "adminCreateProduct",
      "developerCreateProduct",
      "dashboardCreateProduct",
      "dashboardCreateOrder",
      "dashboardCreateStore",
    ])
      assert.ok(creates.includes(id), `${id} is not recognised as a create`);
    // The token refresh keeps its own Idempotency-Key (a different rule), and signup takes no credentials.
    const refresh = doc.paths["/api/v1/apps/token/refresh"].post;
    const refreshKey = (refresh.parameters as Json[]).find((p) => p.name === "idempotency-key");
    assert.match(refreshKey?.description ?? "", /refresh/);
    assert.ok(!refresh.responses["422"], "refresh documents IDEMPOTENCY_KEY_REUSED");
    const signup = doc.paths["/api/v1/dashboard/auth/signup"].post;
    assert.ok(!(signup.parameters ?? []).some((p: Json) => p.name === "idempotency-key"));
  });
});

describe("idempotency keys: 24-hour lifetime and abandoned claims", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  it("replays for 24 hours, then the key is free again and pruned", async () => {
    const m = await merchantWithStore(ctx.app);
    const k = key();
    const body = flat({ title: "Daily", price: "1.00" });
    const first = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body,
      headers: idem(k),
    });
    assert.equal(first.response.status, 201);
    ctx.clock.advance(DAY_MS - 1000);
    assertReplayOf(
      await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body,
        headers: idem(k),
      }),
      first,
    );
    ctx.clock.advance(2000);
    const later = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body,
      headers: idem(k),
    });
    assert.equal(later.response.status, 201);
    assert.equal(later.response.headers.get("idempotency-replayed"), null);
    assert.notEqual(later.data!.data.id, first.data!.data.id);
    assert.equal(await countRows(ctx, "products", m.store.id), 2);

    // Pruning deletes what is older than 24 hours and keeps the rest.
    const other = key();
    assert.equal(
      (
        await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: m.slug } },
          body: { ...body, title: "Old" },
          headers: idem(other),
        })
      ).response.status,
      201,
    );
    ctx.clock.advance(DAY_MS + 1000);
    const fresh = key();
    assert.equal(
      (
        await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: m.slug } },
          body: { ...body, title: "New" },
          headers: idem(fresh),
        })
      ).response.status,
      201,
    );
    const before = await ctx.platform.db.selectFrom("idempotency_keys").select("key_hash").execute();
    assert.equal(before.length, 3);
    assert.equal(await ctx.platform.idempotency.pruneExpired(), 2);
    const left = await ctx.platform.db.selectFrom("idempotency_keys").select("key_hash").execute();
    assert.equal(left.length, 1);
  });

  it("a claim whose request never answered is taken over after a minute", async () => {
    const m = await merchantWithStore(ctx.app);
    const k = key();
    const body = flat({ title: "Orphan", price: "1.00" });
    const held = holdNextProductCreate(ctx);
    try {
      const stuck = m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body,
        headers: idem(k),
      });
      await held.inside;
      assert.equal(
        (
          await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
            params: { path: { slug: m.slug } },
            body,
            headers: idem(k),
          })
        ).response.status,
        409,
      );
      ctx.clock.advance(61_000);
      const takeover = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body,
        headers: idem(k),
      });
      assert.equal(takeover.response.status, 201, text(takeover));
      held.release();
      assert.equal((await stuck).response.status, 201);
      // The answer kept is the one of the request that held the claim last.
      assertReplayOf(
        await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: m.slug } },
          body,
          headers: idem(k),
        }),
        takeover,
      );
    } finally {
      held.release();
      held.restore();
    }
  });
});

/**
 * Security review, issue 18 item 6: a replay answers only a request that passes the route's whole
 * authorisation (its guard, its scope, and what the route checks of the validated body and path).
 * Before, a token narrowed to `manage_webhooks` got the stored 201 of a `customer.created`
 * subscription back, secret included.
 */
describe("idempotency keys: a replay comes after the route's whole authorisation", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" });
  });
  after(() => ctx.close());

  it("a subscription's stored 201 (and its secret) is refused to a token that lost the event's scope", async () => {
    const a = await installedApp(ctx.app, ["read_customers", "manage_webhooks"]);
    const body: SubscriptionBody = { eventName: "customer.created", targetUrl: "https://127.0.0.1:9/hooks" };
    const k = key();
    const first = await a.api.POST("/api/v1/apps/api/webhooks", { body, headers: idem(k) });
    assert.equal(first.response.status, 201, text(first));
    assert.match(first.data!.data.secret, /^whsec_/);

    // The same installation (so the same key space), a token narrowed to manage_webhooks.
    const narrowed = await apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
      body: {
        slug: a.merchant.slug,
        refreshToken: a.tokens.refreshToken,
        clientId: a.clientId,
        clientSecret: a.clientSecret,
        scope: "manage_webhooks",
      },
    });
    assert.equal(narrowed.response.status, 200, text(narrowed));
    const api = a.bearer(narrowed.data!.data.accessToken);
    const replay = await api.POST("/api/v1/apps/api/webhooks", { body, headers: idem(k) });
    assert.equal(replay.response.status, 403, text(replay));
    assert.equal(errorCode(replay), "INSUFFICIENT_SCOPE");
    assert.equal(detailsOf(replay).requiredScope, "read_customers");
    assert.equal(replay.response.headers.get("idempotency-replayed"), null);
    assert.ok(!text(replay).includes(first.data!.data.secret), "the secret leaked to the narrowed token");
    // The refusal kept nothing: the token that holds the scope still gets its stored answer.
    assert.equal((await api.GET("/api/v1/apps/api/webhooks")).data!.data.length, 1, "created once");
    const wide = await apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
      body: {
        slug: a.merchant.slug,
        refreshToken: narrowed.data!.data.refreshToken,
        clientId: a.clientId,
        clientSecret: a.clientSecret,
      },
    });
    assert.equal(wide.response.status, 200, text(wide));
    assertReplayOf(
      await a
        .bearer(wide.data!.data.accessToken)
        .POST("/api/v1/apps/api/webhooks", { body, headers: idem(k) }),
      first,
    );
  });

  it("a secret rotation replays the same new secret and rotates once; refused to a narrowed token and after deletion", async () => {
    const a = await installedApp(ctx.app, ["read_customers", "manage_webhooks"]);
    const sub = await a.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "customer.created",
        targetUrl: "https://127.0.0.1:9/hooks",
      },
    });
    assert.equal(sub.response.status, 201, text(sub));
    const currentCiphertext = async () =>
      (
        await ctx.platform.db
          .selectFrom("webhook_subscriptions")
          .select("secret_ciphertext")
          .where("id", "=", sub.data!.data.id)
          .executeTakeFirstOrThrow()
      ).secret_ciphertext;
    const k = key();
    const first = await a.api.POST("/api/v1/apps/api/webhooks/{id}/secret", {
      params: { path: { id: sub.data!.data.id } },
      headers: idem(k),
    });
    assert.equal(first.response.status, 201, text(first));
    assert.match(first.data!.data.secret, /^whsec_/);
    const stored = await currentCiphertext();
    assertReplayOf(
      await a.api.POST("/api/v1/apps/api/webhooks/{id}/secret", {
        params: { path: { id: sub.data!.data.id } },
        headers: idem(k),
      }),
      first,
    );
    assert.equal(await currentCiphertext(), stored, "the replay did not rotate again");
    // Another key is another rotation.
    const second = await a.api.POST("/api/v1/apps/api/webhooks/{id}/secret", {
      params: { path: { id: sub.data!.data.id } },
      headers: idem(key()),
    });
    assert.equal(second.response.status, 201);
    assert.notEqual(second.data!.data.secret, first.data!.data.secret);
    assert.notEqual(await currentCiphertext(), stored);

    // A token narrowed to manage_webhooks is refused before the stored answer (and its secret).
    const narrowed = await apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
      body: {
        slug: a.merchant.slug,
        refreshToken: a.tokens.refreshToken,
        clientId: a.clientId,
        clientSecret: a.clientSecret,
        scope: "manage_webhooks",
      },
    });
    assert.equal(narrowed.response.status, 200, text(narrowed));
    const narrow = a.bearer(narrowed.data!.data.accessToken);
    const refused = await narrow.POST("/api/v1/apps/api/webhooks/{id}/secret", {
      params: { path: { id: sub.data!.data.id } },
      headers: idem(k),
    });
    assert.equal(refused.response.status, 403, text(refused));
    assert.equal(refused.response.headers.get("idempotency-replayed"), null);
    assert.ok(!text(refused).includes(first.data!.data.secret), "the secret leaked to the narrowed token");

    // Once the subscription is deleted, the stored secret is not handed out again either.
    assert.equal(
      (await narrow.DELETE("/api/v1/apps/api/webhooks/{id}", { params: { path: { id: sub.data!.data.id } } }))
        .response.status,
      200,
    );
    const wide = await apiClient(ctx.app).POST("/api/v1/apps/token/refresh", {
      body: {
        slug: a.merchant.slug,
        refreshToken: narrowed.data!.data.refreshToken,
        clientId: a.clientId,
        clientSecret: a.clientSecret,
      },
    });
    assert.equal(wide.response.status, 200, text(wide));
    const gone = await a.bearer(wide.data!.data.accessToken).POST("/api/v1/apps/api/webhooks/{id}/secret", {
      params: { path: { id: sub.data!.data.id } },
      headers: idem(k),
    });
    assert.equal(gone.response.status, 404, text(gone));
    assert.equal(gone.response.headers.get("idempotency-replayed"), null);
  });

  it("a dashboard redelivery's stored 201 is refused once the merchant no longer owns the app", async () => {
    const a = await installedApp(ctx.app, ["read_customers", "manage_webhooks"]);
    const sub = await a.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "customer.created",
        targetUrl: "https://127.0.0.1:9/hooks",
      },
    });
    assert.equal(sub.response.status, 201, text(sub));
    assert.equal(
      (await a.api.POST("/api/v1/apps/api/webhooks/test", { body: { event: "customer.created" } })).response
        .status,
      202,
    );
    await ctx.platform.webhooks.deliveries.dispatchEvents(ctx.clock.now(), 100);
    const [delivery] = (await a.api.GET("/api/v1/apps/api/webhooks/deliveries")).data!.data;
    assert.ok(delivery);
    const k = key();
    const first = await a.dev.client.POST("/api/v1/dashboard/apps/{clientId}/deliveries/{id}/redeliver", {
      params: { path: { clientId: a.clientId, id: delivery.id } },
      headers: idem(k),
    });
    assert.equal(first.response.status, 201, text(first));
    assertReplayOf(
      await a.dev.client.POST("/api/v1/dashboard/apps/{clientId}/deliveries/{id}/redeliver", {
        params: { path: { clientId: a.clientId, id: delivery.id } },
        headers: idem(k),
      }),
      first,
    );

    assert.equal(
      (
        await a.dev.client.DELETE("/api/v1/dashboard/apps/{clientId}", {
          params: { path: { clientId: a.clientId } },
        })
      ).response.status,
      200,
    );
    const after = await a.dev.client.POST("/api/v1/dashboard/apps/{clientId}/deliveries/{id}/redeliver", {
      params: { path: { clientId: a.clientId, id: delivery.id } },
      headers: idem(k),
    });
    assert.equal(after.response.status, 404, text(after));
    assert.equal(errorCode(after), "NOT_FOUND");
    assert.equal(after.response.headers.get("idempotency-replayed"), null);
  });
});
