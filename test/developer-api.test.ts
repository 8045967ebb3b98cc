import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client, createTestContext, errorCode, merchantWithStore, type TestContext } from "./harness.ts";
import { openApiChecker } from "./openapi-assert.ts";

type Checker = Awaited<ReturnType<typeof openApiChecker>>;

describe("developer key API", () => {
  let ctx: TestContext;
  let spec: Checker;
  before(async () => {
    ctx = await createTestContext({ RATE_LIMIT_PER_MINUTE: "25", CREDENTIAL_MAX_FAILURES: "6" });
    spec = await openApiChecker(ctx.app);
  });
  after(() => ctx.close());

  async function merchantWithKey(scopes: string[], extra: Record<string, unknown> = {}) {
    const m = await merchantWithStore(ctx.app);
    const created = await m.client.post(`${m.base}/api-keys`, { name: "Export", scopes, ...extra });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    spec.check("POST", "/api/v1/dashboard/stores/{slug}/api-keys", created);
    const api = new Client(ctx.app, { "x-api-key": created.data.keyId, "x-api-secret": created.data.secret });
    /** A GET that is also checked against the document. */
    const get = async (path: string, template = path.split("?")[0]!) => {
      const res = await api.get(`/api/v1/developer${path}`);
      spec.check("GET", `/api/v1/developer${template}`, res);
      return res;
    };
    return { m, key: created.data, api, get };
  }

  it("creates key pairs shown once, lists them without secrets, and reads the store", async () => {
    const { m, key, get } = await merchantWithKey(["read_products"]);
    assert.match(key.keyId, /^mpk_[0-9A-Za-z]{24}$/);
    assert.match(key.secret, /^mpsk_[0-9A-Za-z]{43}$/);
    const list = await m.client.get(`${m.base}/api-keys`);
    spec.check("GET", "/api/v1/dashboard/stores/{slug}/api-keys", list);
    assert.equal(list.data.length, 1);
    assert.ok(!JSON.stringify(list.body).includes(key.secret));
    const store = await get("/store");
    assert.equal(store.status, 200);
    assert.equal(store.body.success, true);
    assert.deepEqual(Object.keys(store.data).sort(), ["createdAt", "currency", "id", "name", "slug"]);
    assert.equal(store.data.slug, m.slug);
    const after = await m.client.get(`${m.base}/api-keys`);
    assert.ok(after.data[0].lastUsedAt, "last use recorded");
  });

  it("requires both headers, and answers every wrong credential with the same 401 envelope", async () => {
    const { key } = await merchantWithKey(["read_products"]);
    const other = await merchantWithKey(["read_products"]);
    const call = (headers: Record<string, string>) =>
      new Client(ctx.app, headers).get("/api/v1/developer/store");
    const partial: Array<Record<string, string>> = [
      {},
      { "x-api-key": key.keyId },
      { "x-api-secret": key.secret },
    ];
    for (const headers of partial) {
      const res = await call(headers);
      assert.equal(res.status, 401);
      assert.equal(errorCode(res), "UNAUTHENTICATED");
      spec.check("GET", "/api/v1/developer/store", res);
    }
    const wrongSecret = await call({ "x-api-key": key.keyId, "x-api-secret": `${key.secret.slice(0, -1)}x` });
    const unknownKey = await call({ "x-api-key": `mpk_${"z".repeat(24)}`, "x-api-secret": key.secret });
    const crossed = await call({ "x-api-key": key.keyId, "x-api-secret": other.key.secret });
    const junk = await call({ "x-api-key": "'; DROP TABLE api_keys; --", "x-api-secret": "x" });
    for (const res of [wrongSecret, unknownKey, crossed, junk]) {
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, wrongSecret.body);
      spec.check("GET", "/api/v1/developer/store", res);
    }
    assert.equal(errorCode(wrongSecret), "INVALID_CREDENTIALS");
  });

  it("rejects calls outside the key's scopes with 403 naming the scope", async () => {
    const { api } = await merchantWithKey(["read_products"]);
    const res = await api.post("/api/v1/developer/products", { title: "Nope", price: "1" });
    assert.equal(res.status, 403);
    assert.equal(errorCode(res), "INSUFFICIENT_SCOPE");
    assert.equal(res.body.error.details.requiredScope, "write_products");
    spec.check("POST", "/api/v1/developer/products", res);
    const readless = await merchantWithKey(["read_orders"]);
    const store = await readless.get("/store");
    assert.equal(store.status, 403);
  });

  it("pages products with correct meta at the edges", async () => {
    const { m, get } = await merchantWithKey(["read_products"]);
    const empty = await get("/products");
    assert.deepEqual(empty.body.meta, { page: 1, perPage: 20, total: 0, totalPages: 0 });
    assert.deepEqual(empty.data, []);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push((await m.client.post(`${m.base}/products`, { title: `P${i}`, price: "2.50" })).data.id);
    const newestFirst = [...ids].reverse();
    const p1 = await get("/products?page=1&perPage=3", "/products");
    assert.deepEqual(p1.body.meta, { page: 1, perPage: 3, total: 7, totalPages: 3 });
    assert.deepEqual(
      p1.data.map((p: { id: string }) => p.id),
      newestFirst.slice(0, 3),
    );
    const last = await get("/products?page=3&perPage=3", "/products");
    assert.deepEqual(
      last.data.map((p: { id: string }) => p.id),
      newestFirst.slice(6),
    );
    const exact = await get("/products?page=1&perPage=7", "/products");
    assert.deepEqual(exact.body.meta, { page: 1, perPage: 7, total: 7, totalPages: 1 });
    assert.equal(exact.data.length, 7);
    const past = await get("/products?page=9&perPage=3", "/products");
    assert.equal(past.status, 200);
    assert.deepEqual(past.data, []);
    assert.deepEqual(past.body.meta, { page: 9, perPage: 3, total: 7, totalPages: 3 });
    for (const [query, field] of [
      ["page=0", "page"],
      ["page=-1", "page"],
      ["page=1.5", "page"],
      ["page=abc", "page"],
      ["perPage=0", "perPage"],
      ["perPage=101", "perPage"],
      ["perPage=ten", "perPage"],
    ]) {
      const res = await get(`/products?${query}`, "/products");
      assert.equal(res.status, 400, query);
      assert.equal(errorCode(res), "VALIDATION_FAILED");
      assert.equal(res.body.error.details[0].field, field, query);
    }
  });

  it("writes products with write_products through the outbox, and never crosses stores", async () => {
    const { m, api } = await merchantWithKey(["read_products", "write_products"]);
    const other = await merchantWithStore(ctx.app);
    const foreign = (await other.client.post(`${other.base}/products`, { title: "Theirs", price: "1" })).data;
    const created = await api.post("/api/v1/developer/products", {
      title: "Via key",
      price: "4.00",
      stock: 3,
    });
    assert.equal(created.status, 201);
    spec.check("POST", "/api/v1/developer/products", created);
    const id = created.data.id;
    const patched = await api.patch(`/api/v1/developer/products/${id}`, { stock: 5 });
    spec.check("PATCH", "/api/v1/developer/products/{id}", patched);
    assert.equal(patched.data.stock, 5);
    const got = await api.get(`/api/v1/developer/products/${id}`);
    spec.check("GET", "/api/v1/developer/products/{id}", got);
    assert.equal((await api.get(`/api/v1/developer/products/${foreign.id}`)).status, 404);
    assert.equal((await api.patch(`/api/v1/developer/products/${foreign.id}`, { stock: 1 })).status, 404);
    assert.equal((await api.delete(`/api/v1/developer/products/${foreign.id}`)).status, 404);
    const deleted = await api.delete(`/api/v1/developer/products/${id}`);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    spec.check("DELETE", "/api/v1/developer/products/{id}", deleted);
    const topics = (
      await ctx.platform.db
        .selectFrom("events")
        .select("topic")
        .where("resource_id", "=", id)
        .orderBy("seq")
        .execute()
    ).map((e) => e.topic);
    assert.deepEqual(topics, ["product.created", "product.updated", "product.deleted"]);
    assert.equal((await m.client.get(`${m.base}/products/${foreign.id}`)).status, 404);
  });

  it("revokes at once and honours expiry", async () => {
    const { m, key, get } = await merchantWithKey(["read_products"]);
    assert.equal((await get("/store")).status, 200);
    const revoked = await m.client.delete(`${m.base}/api-keys/${key.keyId}`);
    spec.check("DELETE", "/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", revoked);
    assert.ok(revoked.data.revokedAt);
    const after = await get("/store");
    assert.equal(after.status, 401);
    assert.equal(errorCode(after), "INVALID_CREDENTIALS");
    const soon = await merchantWithKey(["read_products"], {
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    assert.equal((await soon.get("/store")).status, 200);
    ctx.clock.advance(61_000);
    assert.equal((await soon.get("/store")).status, 401);
    const past = await soon.m.client.post(`${soon.m.base}/api-keys`, {
      name: "x",
      scopes: ["read_products"],
      expiresAt: "2000-01-01T00:00:00Z",
    });
    assert.equal(past.status, 400);
  });

  it("rate-limits per key with the X-RateLimit headers, and throttles secret guessing", async () => {
    const a = await merchantWithKey(["read_products"]);
    const b = await merchantWithKey(["read_products"]);
    let last = await a.get("/store");
    assert.equal(last.headers["x-ratelimit-limit"], "25");
    assert.equal(last.headers["x-ratelimit-remaining"], "24");
    for (let i = 1; i < 26; i++) last = await a.get("/store");
    assert.equal(last.status, 429);
    assert.equal(errorCode(last), "RATE_LIMITED");
    assert.equal(last.headers["x-ratelimit-remaining"], "0");
    assert.ok(Number(last.headers["retry-after"]) >= 1);
    assert.equal((await b.get("/store")).status, 200, "another key is unaffected");

    const c = await merchantWithKey(["read_products"]);
    const guess = new Client(ctx.app, { "x-api-key": c.key.keyId, "x-api-secret": "mpsk_guess" });
    for (let i = 0; i < 6; i++) assert.equal((await guess.get("/api/v1/developer/store")).status, 401);
    const blocked = await c.get("/store");
    assert.equal(blocked.status, 429, "even the right secret waits out the throttle");
  });
});
