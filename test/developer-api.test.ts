import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { flat, flatPatch } from "./catalogue.ts";
import {
  type Answer,
  answer,
  apiClient,
  createTestContext,
  detailsOf,
  errorCode,
  fieldErrors,
  formQuery,
  type KeyScope,
  merchantWithStore,
  type QueryOf,
  type RequestBody,
  rawBody,
  type TestContext,
  text,
} from "./harness.ts";
import { openApiChecker } from "./openapi-assert.ts";

type Checker = Awaited<ReturnType<typeof openApiChecker>>;

const RATE_LIMIT = 25;
const MAX_FAILURES = 6;
/** createCredentialGuard's default: the per-IP budget is five times the per-identifier one. */
const MAX_FAILURES_PER_IP = MAX_FAILURES * 5;
const DEV = "/api/v1/developer";

describe("developer key API", () => {
  let ctx: TestContext;
  let spec: Checker;
  before(async () => {
    ctx = await createTestContext({
      RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
      CREDENTIAL_MAX_FAILURES: String(MAX_FAILURES),
      CREDENTIAL_FAILURE_WINDOW_SECONDS: "900",
    });
    spec = await openApiChecker(ctx.app);
  });
  after(() => ctx.close());

  /** A client whose every response is checked against the OpenAPI document. */
  const client = (headers: Record<string, string> = {}) =>
    spec.watch(apiClient(ctx.app, { headers: headers }));

  /** The store, read from a given client IP (the throttle's second axis), checked against the document. */
  const fromIp = (ip: string, headers: Record<string, string>) =>
    spec.watch(apiClient(ctx.app, { headers, remoteAddress: ip })).GET("/api/v1/developer/store");

  async function merchant() {
    const m = await merchantWithStore(ctx.app);
    return { ...m, client: spec.watch(m.client) };
  }

  async function keyFor(
    m: Awaited<ReturnType<typeof merchant>>,
    scopes: KeyScope[],
    extra: Partial<RequestBody<"/api/v1/dashboard/stores/{slug}/api-keys", "post">> = {},
  ) {
    const created = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
      params: { path: { slug: m.slug } },
      body: { name: "Export", scopes, ...extra },
    });
    assert.equal(created.response.status, 201, text(created));
    const headers = { "x-api-key": created.data!.data.keyId, "x-api-secret": created.data!.data.secret };
    return { key: created.data!.data, headers, api: client(headers) };
  }

  async function merchantWithKey(
    scopes: KeyScope[],
    extra: Partial<RequestBody<"/api/v1/dashboard/stores/{slug}/api-keys", "post">> = {},
  ) {
    const m = await merchant();
    return { m, ...(await keyFor(m, scopes, extra)) };
  }

  /** Creates products one clock tick apart (so "newest first" is unambiguous); returns ids, oldest first. */
  async function seedProducts(m: Awaited<ReturnType<typeof merchant>>, n: number, prefix = "P") {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      ctx.clock.advance(1);
      const res = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: m.slug } },
        body: flat({ title: `${prefix}${i}`, price: "2.50" }),
      });
      assert.equal(res.response.status, 201);
      ids.push(res.data!.data.id);
    }
    return ids;
  }

  it("has a response checker that rejects what the document does not say", async () => {
    const res = await apiClient(ctx.app).GET("/api/v1/developer/store");
    const observed: { status: number; body: unknown } = {
      status: res.response.status,
      body: res.data ?? res.error,
    };
    spec.check("GET", `${DEV}/store`, observed);
    const as = (changes: Partial<typeof observed>) => ({ ...observed, ...changes });
    assert.throws(() => spec.check("GET", `${DEV}/store`, as({ status: 200 })), /does not match/);
    assert.throws(() => spec.check("GET", `${DEV}/store`, as({ status: 418 })), /not documented/);
    assert.throws(
      () =>
        spec.check(
          "GET",
          `${DEV}/store`,
          as({ body: { ...(res.data ?? res.error), error: { code: "OOPS" } } }),
        ),
      /does not match/,
    );
    assert.equal(spec.operationPath("PATCH", `${DEV}/products/prod_x?y=1`), `${DEV}/products/{id}`);
  });

  it("documents the developer API and the key routes with examples that match their own schemas", () => {
    const dev = spec.checkExamples(DEV);
    const keys = spec.checkExamples("/api/v1/dashboard/stores/{slug}/api-keys");
    assert.deepEqual([...dev.problems, ...keys.problems], []);
    assert.ok(dev.checked >= 3 && keys.checked >= 1, `${dev.checked} + ${keys.checked} examples`);
    // The key carries the scopes: the operation's scope is its x-required-scope (API key schemes
    // list no scopes in OpenAPI); both headers are required together.
    for (const [op, scope] of [
      ["get", "read_products"],
      ["post", "write_products"],
    ] as const) {
      assert.deepEqual(spec.doc.paths[`${DEV}/products`][op].security, [
        { developerKey: [], developerSecret: [] },
      ]);
      assert.equal(spec.doc.paths[`${DEV}/products`][op]["x-required-scope"], scope);
    }
    assert.equal(spec.doc.paths[`${DEV}/store`].get["x-required-scope"], null);
    const { developerKey, developerSecret } = spec.doc.components.securitySchemes;
    assert.deepEqual(
      [developerKey, developerSecret].map((s) => [s.type, s.in, s.name]),
      [
        ["apiKey", "header", "x-api-key"],
        ["apiKey", "header", "x-api-secret"],
      ],
    );
  });

  it("reads the key's store with any valid key pair, whatever its scopes", async () => {
    const { m, key, api } = await merchantWithKey(["read_products"]);
    assert.match(key.keyId, /^mpk_[0-9A-Za-z]{24}$/);
    assert.match(key.secret, /^mpsk_[0-9A-Za-z]{43}$/);
    const store = await api.GET("/api/v1/developer/store");
    assert.equal(store.response.status, 200);
    assert.equal((store.data ?? store.error)!.success, true);
    assert.deepEqual(store.data!.data, {
      id: m.store.id,
      slug: m.slug,
      name: "Test Store",
      currency: "USD",
      contactEmail: null,
      address: null,
      timeZone: "UTC",
      orderNumberPrefix: "#",
      taxesIncluded: false,
      taxShipping: false,
      createdAt: m.store.createdAt,
      updatedAt: m.store.createdAt,
    });
    const ordersOnly = await keyFor(m, ["read_orders"]);
    assert.equal((await ordersOnly.api.GET("/api/v1/developer/store")).response.status, 200);
    assert.equal((await ordersOnly.api.GET("/api/v1/developer/products")).response.status, 403);
  });

  it("requires both headers, before anything else about the request is looked at", async () => {
    const { key } = await merchantWithKey(["read_products", "write_products"]);
    const partial: Array<Record<string, string>> = [
      {},
      { "x-api-key": key.keyId },
      { "x-api-secret": key.secret },
      { "x-api-key": "", "x-api-secret": key.secret },
      { "x-api-key": key.keyId, "x-api-secret": "" },
    ];
    for (const headers of partial) {
      const res = await client(headers).GET("/api/v1/developer/store");
      assert.equal(res.response.status, 401, JSON.stringify(headers));
      assert.equal(errorCode(res), "UNAUTHENTICATED");
      assert.equal(res.response.headers.get("x-ratelimit-limit"), null, "no quota without a key");
    }
    // A malformed request without credentials is still a 401, not a 400/415 (and it was a 400/415
    // when authentication ran after validation).
    const anonymous = client();
    for (const res of [
      await anonymous.GET("/api/v1/developer/products", { params: { query: { page: 0 } } }),
      await anonymous.POST("/api/v1/developer/products", { ...rawBody("{not json") }),
      await anonymous.POST("/api/v1/developer/products", {
        ...rawBody("x"),
        headers: { "content-type": "text/plain" },
      }),
      await anonymous.PATCH("/api/v1/developer/products/{id}", {
        params: { path: { id: "not-an-id" } },
        body: flatPatch({ stock: 1 }),
      }),
    ]) {
      assert.equal(res.response.status, 401);
      assert.equal(errorCode(res), "UNAUTHENTICATED");
    }
  });

  it("answers every wrong credential with the same 401 envelope", async () => {
    const { m, key, headers } = await merchantWithKey(["read_products"]);
    const other = await merchantWithKey(["read_products"]);
    const revoked = await keyFor(m, ["read_products"]);
    assert.equal(
      (
        await m.client.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
          params: { path: { slug: m.slug, keyId: revoked.key.keyId } },
        })
      ).response.status,
      200,
    );
    const expiring = await keyFor(m, ["read_products"], {
      expiresAt: new Date(ctx.clock.now().getTime() + 1000).toISOString(),
    });
    assert.equal((await expiring.api.GET("/api/v1/developer/store")).response.status, 200);
    ctx.clock.advance(1000);

    const call = (h: Record<string, string>) => client(h).GET("/api/v1/developer/store");
    const failures = {
      wrongSecret: await call({
        ...headers,
        "x-api-secret": `${key.secret.slice(0, -1)}${key.secret.endsWith("x") ? "y" : "x"}`,
      }),
      shortSecret: await call({ ...headers, "x-api-secret": "mpsk_x" }),
      unknownKey: await call({ "x-api-key": `mpk_${"z".repeat(24)}`, "x-api-secret": key.secret }),
      otherStoresSecret: await call({ ...headers, "x-api-secret": other.key.secret }),
      malformedKey: await call({ "x-api-key": "'; DROP TABLE api_keys; --", "x-api-secret": key.secret }),
      revoked: await call(revoked.headers),
      expired: await call(expiring.headers),
    };
    const reference = failures.wrongSecret;
    assert.equal(reference.response.status, 401);
    assert.equal(errorCode(reference), "INVALID_CREDENTIALS");
    const shape = (res: Answer) =>
      [...res.response.headers.keys()]
        .filter((h) => !["date", "x-request-id"].includes(h))
        .sort()
        .map((h) => `${h}: ${h === "content-length" ? "" : res.response.headers.get(h)}`);
    for (const [name, res] of Object.entries(failures)) {
      assert.equal(res.response.status, 401, name);
      assert.deepEqual(answer(res), answer(reference), name);
      assert.deepEqual(shape(res), shape(reference), name);
    }
    assert.ok(
      !text(reference).match(/revoked key|expired key|unknown/i),
      "the answer does not say which part was wrong",
    );
    // And the right pair still works (7 failures here are far below the per-IP budget).
    assert.equal((await call(headers)).response.status, 200);
  });

  it("rejects calls outside the key's scopes with 403 naming the scope", async () => {
    const readOnly = await merchantWithKey(["read_products"]);
    const write = await readOnly.api.POST("/api/v1/developer/products", {
      body: flat({ title: "Nope", price: "1" }),
    });
    assert.equal(write.response.status, 403);
    assert.equal(errorCode(write), "INSUFFICIENT_SCOPE");
    assert.equal(detailsOf(write).requiredScope, "write_products");
    assert.equal(write.response.headers.get("x-ratelimit-limit"), String(RATE_LIMIT), "a 403 is counted");
    for (const res of [
      await readOnly.api.PATCH("/api/v1/developer/products/{id}", {
        params: { path: { id: `prod_${"a".repeat(22)}` } },
        body: flatPatch({ stock: 1 }),
      }),
      await readOnly.api.DELETE("/api/v1/developer/products/{id}", {
        params: { path: { id: `prod_${"a".repeat(22)}` } },
      }),
    ]) {
      assert.equal(res.response.status, 403);
      assert.equal(detailsOf(res).requiredScope, "write_products");
    }
    // Scopes are exact: write_products does not imply read_products.
    const writeOnly = await merchantWithKey(["write_products"]);
    const created = await writeOnly.api.POST("/api/v1/developer/products", {
      body: flat({ title: "Mine", price: "1" }),
    });
    assert.equal(created.response.status, 201);
    for (const res of [
      await writeOnly.api.GET("/api/v1/developer/products"),
      await writeOnly.api.GET("/api/v1/developer/products/{id}", {
        params: { path: { id: created.data!.data.id } },
      }),
    ]) {
      assert.equal(res.response.status, 403);
      assert.equal(detailsOf(res).requiredScope, "read_products");
    }
    const rows = await ctx.platform.db
      .selectFrom("products")
      .select("id")
      .where("title", "=", "Nope")
      .execute();
    assert.deepEqual(rows, [], "a refused write changed nothing");
  });

  it("pages products with correct meta at the edges", async () => {
    const { m, api } = await merchantWithKey(["read_products"]);
    const page = (query: QueryOf<"/api/v1/developer/products">) =>
      api.GET("/api/v1/developer/products", { params: { query } });
    // Queries the document refuses (not whole numbers, out of range, an unknown name): sent as written.
    const unchecked = (query: string) =>
      api.GET("/api/v1/developer/products", { querySerializer: () => query.replace(/^\?/, "") });

    const empty = await page({});
    assert.equal(empty.response.status, 200);
    assert.deepEqual(empty.data!.meta, { page: 1, perPage: 20, total: 0, totalPages: 0 });
    assert.deepEqual(empty.data!.data, []);
    const emptyLater = await page({ page: 2, perPage: 5 });
    assert.deepEqual(emptyLater.data!.meta, { page: 2, perPage: 5, total: 0, totalPages: 0 });
    assert.deepEqual(emptyLater.data!.data, []);

    const newestFirst = (await seedProducts(m, 6)).reverse();
    const ids = (res: Awaited<ReturnType<typeof page>>) => res.data!.data.map((p) => p.id);
    const first = await page({ page: 1, perPage: 3 });
    assert.deepEqual(first.data!.meta, { page: 1, perPage: 3, total: 6, totalPages: 2 });
    assert.deepEqual(ids(first), newestFirst.slice(0, 3));
    const exactLast = await page({ page: 2, perPage: 3 });
    assert.deepEqual(exactLast.data!.meta, { page: 2, perPage: 3, total: 6, totalPages: 2 });
    assert.deepEqual(ids(exactLast), newestFirst.slice(3, 6));
    const pastEnd = await page({ page: 3, perPage: 3 });
    assert.equal(pastEnd.response.status, 200);
    assert.deepEqual(pastEnd.data!.data, []);
    assert.deepEqual(pastEnd.data!.meta, { page: 3, perPage: 3, total: 6, totalPages: 2 });
    // The deepest page the window allows, far past the end: still an empty page with the totals.
    const farPast = await page({ page: 100, perPage: 100 });
    assert.deepEqual(farPast.data!.meta, { page: 100, perPage: 100, total: 6, totalPages: 1 });
    assert.deepEqual(farPast.data!.data, []);
    const deepest = await page({ page: 10_000, perPage: 1 });
    assert.deepEqual(deepest.data!.meta, { page: 10_000, perPage: 1, total: 6, totalPages: 6 });

    newestFirst.unshift(...(await seedProducts(m, 1, "Q")));
    const partialLast = await page({ page: 3, perPage: 3 });
    assert.deepEqual(partialLast.data!.meta, { page: 3, perPage: 3, total: 7, totalPages: 3 });
    assert.deepEqual(ids(partialLast), newestFirst.slice(6));
    const all = await page({ perPage: 100 });
    assert.deepEqual(all.data!.meta, { page: 1, perPage: 100, total: 7, totalPages: 1 });
    assert.deepEqual(ids(all), newestFirst);
    const defaults = await page({ page: 1 });
    assert.equal(defaults.data!.meta.perPage, 20);
    assert.equal(defaults.data!.data[0]!.currency, "USD");

    for (const [query, field] of [
      ["?page=0", "page"],
      ["?page=-1", "page"],
      ["?page=1.5", "page"],
      ["?page=abc", "page"],
      ["?page=", "page"],
      ["?page=10001", "page"],
      ["?page=1000001", "page"],
      ["?perPage=0", "perPage"],
      ["?perPage=101", "perPage"],
      ["?perPage=2.5", "perPage"],
      ["?perPage=ten", "perPage"],
      ["?page=1&per_page=5", "per_page"],
    ] as const) {
      const res = await unchecked(query);
      assert.equal(res.response.status, 400, query);
      assert.equal(errorCode(res), "VALIDATION_FAILED");
      assert.equal(fieldErrors(res)[0]!.field, field, query);
    }
  });

  it("refuses pages that end past the first 10,000 products, before reading anything", async () => {
    const { m, api } = await merchantWithKey(["read_products"]);
    await seedProducts(m, 1);
    for (const [query, product, lastPage] of [
      [{ page: 101, perPage: 100 }, 10_100, 100],
      [{ page: 5001, perPage: 2 }, 10_002, 5000],
      [{ page: 10_000, perPage: 20 }, 200_000, 500],
      [{ page: 10_000 }, 200_000, 500],
    ] as const) {
      const res = await api.GET("/api/v1/developer/products", { params: { query } });
      assert.equal(res.response.status, 400, `?${formQuery(query)}`);
      assert.equal((res.data ?? res.error)!.success, false);
      assert.equal(errorCode(res), "VALIDATION_FAILED");
      assert.match(res.error!.error.message, /first 10,000 products/);
      assert.equal(fieldErrors(res)[0]!.field, "page");
      assert.match(
        fieldErrors(res)[0]!.message,
        new RegExp(`is ${product},.*last page for .* is ${lastPage}$`),
      );
    }
    // The edges of the window are served.
    for (const query of [{ page: 100, perPage: 100 }, { page: 5000, perPage: 2 }, { page: 500 }]) {
      const res = await api.GET("/api/v1/developer/products", { params: { query } });
      assert.equal(res.response.status, 200, `?${formQuery(query)}`);
      assert.equal(res.data!.meta.total, 1);
    }
    const described = spec.doc.paths[`${DEV}/products`].get.parameters.find(
      (p: { name: string }) => p.name === "page",
    );
    assert.equal(described.schema.maximum, 10_000);
    assert.match(described.description, /page × perPage` may be at most 10,000/);
  });

  it("keeps each key inside its own store", async () => {
    const a = await merchantWithKey(["read_products", "write_products"]);
    const b = await merchant();
    const mine = await seedProducts(a.m, 2, "A");
    const theirs = await seedProducts(b, 3, "B");
    const list = await a.api.GET("/api/v1/developer/products", { params: { query: { perPage: 100 } } });
    assert.deepEqual(list.data!.meta.total, 2);
    assert.deepEqual(list.data!.data.map((p) => p.id).sort(), [...mine].sort());
    assert.equal((await a.api.GET("/api/v1/developer/store")).data!.data.id, a.m.store.id);
    for (const id of theirs) {
      for (const res of [
        await a.api.GET("/api/v1/developer/products/{id}", { params: { path: { id } } }),
        await a.api.PATCH("/api/v1/developer/products/{id}", {
          params: { path: { id } },
          body: flatPatch({ stock: 1 }),
        }),
        await a.api.DELETE("/api/v1/developer/products/{id}", { params: { path: { id } } }),
      ]) {
        assert.equal(res.response.status, 404, "another store's product is NOT_FOUND, never FORBIDDEN");
        assert.equal(errorCode(res), "NOT_FOUND");
      }
    }
    const untouched = await b.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { slug: b.slug, id: theirs[0]! } },
    });
    assert.equal(untouched.data!.data.totalAvailable, 0);
  });

  it("writes products with write_products through the same outbox as the dashboard", async () => {
    const { m, api } = await merchantWithKey(["read_products", "write_products"]);
    const created = await api.POST("/api/v1/developer/products", {
      body: flat({ title: "Via key", price: "4.00", stock: 3 }),
    });
    assert.equal(created.response.status, 201);
    const id = created.data!.data.id;
    const patched = await api.PATCH("/api/v1/developer/products/{id}", {
      params: { path: { id } },
      body: flatPatch({ stock: 5 }),
    });
    assert.equal(patched.data!.data.totalAvailable, 5);
    assert.equal(
      (await api.GET("/api/v1/developer/products/{id}", { params: { path: { id } } })).data!.data
        .totalAvailable,
      5,
    );
    assert.equal(
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: m.slug, id } },
        })
      ).data!.data.totalAvailable,
      5,
      "the dashboard sees it",
    );
    const deleted = await api.DELETE("/api/v1/developer/products/{id}", { params: { path: { id } } });
    assert.equal(deleted.response.status, 200, text(deleted));
    assert.equal(
      (await api.GET("/api/v1/developer/products/{id}", { params: { path: { id } } })).response.status,
      404,
    );
    const events = await ctx.platform.db
      .selectFrom("events")
      .select(["topic", "store_id"])
      .where("resource_id", "=", id)
      .orderBy("seq")
      .execute();
    assert.deepEqual(
      events.map((e) => e.topic),
      ["product.created", "product.updated", "product.deleted"],
    );
    assert.ok(events.every((e) => e.store_id === m.store.id));
  });

  it("revokes at once, and honours expiry", async () => {
    const { m, key, api } = await merchantWithKey(["read_products", "write_products"]);
    assert.equal((await api.GET("/api/v1/developer/store")).response.status, 200);
    const revoked = await m.client.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
      params: { path: { slug: m.slug, keyId: key.keyId } },
    });
    assert.ok(revoked.data!.data.revokedAt);
    const afterRevoke = await api.GET("/api/v1/developer/store");
    assert.equal(afterRevoke.response.status, 401);
    assert.equal(errorCode(afterRevoke), "INVALID_CREDENTIALS");
    assert.equal(
      (await api.POST("/api/v1/developer/products", { body: flat({ title: "x", price: "1" }) })).response
        .status,
      401,
    );

    const soon = await keyFor(m, ["read_products"], {
      expiresAt: new Date(ctx.clock.now().getTime() + 60_000).toISOString(),
    });
    assert.equal(soon.key.expiresAt, new Date(Date.parse(soon.key.expiresAt!)).toISOString());
    assert.equal((await soon.api.GET("/api/v1/developer/store")).response.status, 200);
    ctx.clock.advance(58_000);
    assert.equal(
      (await soon.api.GET("/api/v1/developer/store")).response.status,
      200,
      "shortly before expiry",
    );
    ctx.clock.advance(2_000);
    const expired = await soon.api.GET("/api/v1/developer/store");
    assert.equal(expired.response.status, 401, "from the expiry instant on");
    assert.equal(errorCode(expired), "INVALID_CREDENTIALS");
  });

  it("records last use at most once a minute per key", async () => {
    const { m, key, api } = await merchantWithKey(["read_products"]);
    const lastUsed = async (): Promise<string | null> =>
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/api-keys", { params: { path: { slug: m.slug } } })
      ).data!.data.find((k) => k.keyId === key.keyId)!.lastUsedAt;
    assert.equal(await lastUsed(), null);
    const before = ctx.clock.now().getTime();
    await api.GET("/api/v1/developer/store");
    const first = await lastUsed();
    assert.ok(first && Date.parse(first) >= before);
    ctx.clock.advance(30_000);
    await api.GET("/api/v1/developer/store");
    assert.equal(await lastUsed(), first, "not rewritten within the minute");
    ctx.clock.advance(31_000);
    await api.GET("/api/v1/developer/store");
    const second = await lastUsed();
    assert.ok(second && Date.parse(second) - Date.parse(first!) >= 61_000);
    ctx.clock.advance(61_000);
    const failed = await client({ "x-api-key": key.keyId, "x-api-secret": "mpsk_bad" }).GET(
      "/api/v1/developer/store",
    );
    assert.equal(failed.response.status, 401);
    assert.equal(await lastUsed(), second, "a failed attempt is not a use");
  });

  it("rate-limits per key pair with the X-RateLimit headers, counting malformed requests too", async () => {
    const a = await merchantWithKey(["read_products"]);
    const b = await merchantWithKey(["read_products"]);
    let last = await a.api.GET("/api/v1/developer/store");
    assert.equal(last.response.headers.get("x-ratelimit-limit"), String(RATE_LIMIT));
    assert.equal(last.response.headers.get("x-ratelimit-remaining"), String(RATE_LIMIT - 1));
    assert.equal(last.response.headers.get("x-ratelimit-reset"), "0");
    // Invalid requests spend the quota too, so they cannot be used to hammer the service for free.
    assert.equal(
      (await a.api.GET("/api/v1/developer/products", { params: { query: { page: 0 } } })).response.status,
      400,
    );
    for (let i = 2; i < RATE_LIMIT; i++) last = await a.api.GET("/api/v1/developer/store");
    assert.equal(last.response.status, 200);
    assert.equal(last.response.headers.get("x-ratelimit-remaining"), "0");
    const limited = await a.api.GET("/api/v1/developer/store");
    assert.equal(limited.response.status, 429);
    assert.equal(errorCode(limited), "RATE_LIMITED");
    assert.equal(limited.response.headers.get("x-ratelimit-remaining"), "0");
    assert.ok(Number(limited.response.headers.get("retry-after")) >= 1);
    assert.equal(
      limited.response.headers.get("x-ratelimit-reset"),
      limited.response.headers.get("retry-after"),
    );
    assert.equal(
      (await b.api.GET("/api/v1/developer/store")).response.status,
      200,
      "another key is unaffected",
    );
    ctx.clock.advance(60_000);
    const again = await a.api.GET("/api/v1/developer/store");
    assert.equal(again.response.status, 200, "a sliding minute later");
  });

  it("throttles repeated failures per key id, even for the right secret, until the window passes", async () => {
    const c = await merchantWithKey(["read_products"]);
    const guess = client({ "x-api-key": c.key.keyId, "x-api-secret": "mpsk_guess" });
    for (let i = 0; i < MAX_FAILURES; i++)
      assert.equal((await guess.GET("/api/v1/developer/store")).response.status, 401);
    const blocked = await c.api.GET("/api/v1/developer/store");
    assert.equal(blocked.response.status, 429, "even the right secret waits out the throttle");
    assert.equal(errorCode(blocked), "RATE_LIMITED");
    assert.ok(Number(blocked.response.headers.get("retry-after")) >= 1);
    assert.equal((await guess.GET("/api/v1/developer/store")).response.status, 429);
    const other = await keyFor(c.m, ["read_products"]);
    assert.equal(
      (await other.api.GET("/api/v1/developer/store")).response.status,
      200,
      "the store's other keys are unaffected",
    );
    ctx.clock.advance(900_000);
    assert.equal((await c.api.GET("/api/v1/developer/store")).response.status, 200);
  });

  it("throttles repeated failures per client IP across key ids, refusing only wrong pairs", async () => {
    const d = await merchantWithKey(["read_products"]);
    const attacker = "203.0.113.9";
    for (let i = 0; i < MAX_FAILURES_PER_IP; i++) {
      const res = await fromIp(attacker, {
        "x-api-key": `mpk_${String(i).padStart(24, "q")}`,
        "x-api-secret": "mpsk_guess",
      });
      assert.equal(res.response.status, 401, `attempt ${i}`);
    }
    const fresh = await fromIp(attacker, {
      "x-api-key": `mpk_${"w".repeat(24)}`,
      "x-api-secret": "mpsk_guess",
    });
    assert.equal(fresh.response.status, 429, "a wrong pair from the same IP is refused");
    assert.equal(errorCode(fresh), "RATE_LIMITED");
    assert.ok(Number(fresh.response.headers.get("retry-after")) >= 1);
    // Issue 9: a right pair is never refused because other credentials failed from its address.
    assert.equal((await fromIp(attacker, d.headers)).response.status, 200, "a right pair is not");
    const wrongOfKnownKey = await fromIp(attacker, {
      ...d.headers,
      "x-api-secret": "mpsk_guess",
    });
    assert.equal(wrongOfKnownKey.response.status, 429);
    assert.deepEqual(answer(wrongOfKnownKey), answer(fresh), "one answer for every wrong pair");
    const elsewhere = await fromIp("198.51.100.4", {
      "x-api-key": `mpk_${"v".repeat(24)}`,
      "x-api-secret": "mpsk_guess",
    });
    assert.equal(elsewhere.response.status, 401, "other IPs are not throttled");
    ctx.clock.advance(900_000);
    const later = await fromIp(attacker, {
      "x-api-key": `mpk_${"u".repeat(24)}`,
      "x-api-secret": "mpsk_guess",
    });
    assert.equal(later.response.status, 401, "after the window");
  });
});
