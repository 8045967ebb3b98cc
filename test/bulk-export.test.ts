import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import http, { type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { createAdminClient, createDeveloperClient } from "@merchant-platform/sdk";
import { sql } from "kysely";
import { run as runCli } from "../packages/cli/src/commands.ts";
import { installedApp } from "./apps-harness.ts";
import { addVariants, flat, flatPatch } from "./catalogue.ts";
import {
  type Api,
  apiClient,
  createTestContext,
  type ErrorBody,
  errorCode,
  fieldErrors,
  type Json,
  type KeyScope,
  merchantWithStore,
  offDocumentRequest,
  type TestContext,
  text,
} from "./harness.ts";
import { openApiChecker } from "./openapi-assert.ts";

/**
 * Bulk export (issue 22 part 1) over a real port: the body is a stream, read (or left unread,
 * or cut) as a client would. Both databases (TEST_DATABASE_URL for PostgreSQL).
 */

const API = "/api/v1/apps/api";
const DEV = "/api/v1/developer";
const ALL_READ: KeyScope[] = ["read_products", "read_orders", "read_customers"];
const BATCH = 100;

type Installed = Awaited<ReturnType<typeof installedApp>>;
/**
 * An exported record: a line of JSON Lines read off the socket as it came, compared with the list's
 * item as plain JSON (the document describes the stream as a string).
 */
type ExportedRecord = Json;

/** An open export: its response, and its lines as they come. */
interface OpenExport {
  res: IncomingMessage;
  request: http.ClientRequest;
  body(): Promise<string>;
}

/** The export tests' client side, over the real port of `ctx.app` at `base`. */
function exportClient(ctx: TestContext, base: string) {
  /** GET over the real port; resolves once the headers are in (the body is left to the caller). */
  function open(path: string, headers: Record<string, string>): Promise<OpenExport> {
    return new Promise((resolve, reject) => {
      const request = http.get(`${base}${path}`, { headers: { "accept-encoding": "identity", ...headers } });
      request.on("error", reject);
      request.on("response", (res) => {
        resolve({
          res,
          request,
          body: async () => {
            const chunks: Buffer[] = [];
            for await (const chunk of res) chunks.push(chunk as Buffer);
            return Buffer.concat(chunks).toString("utf8");
          },
        });
      });
    });
  }

  /** The whole export as parsed lines (asserting a 200 JSON Lines answer). */
  async function exportAll(path: string, headers: Record<string, string>) {
    const opened = await open(path, headers);
    const text = await opened.body();
    assert.equal(opened.res.statusCode, 200, text.slice(0, 300));
    assert.match(String(opened.res.headers["content-type"]), /^application\/x-ndjson/);
    assert.ok(text === "" || text.endsWith("\n"), "every line ends with a newline");
    const records = text
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ExportedRecord);
    return { records, headers: opened.res.headers };
  }

  /** Reads complete lines until at least `count`, then cuts the connection (a dropped download). */
  async function readThenDrop(path: string, headers: Record<string, string>, count: number) {
    const opened = await open(path, headers);
    assert.equal(opened.res.statusCode, 200);
    let text = "";
    for await (const chunk of opened.res) {
      text += String(chunk);
      if (text.split("\n").length - 1 >= count) break;
    }
    opened.request.destroy();
    const complete = text.slice(0, text.lastIndexOf("\n") + 1);
    return {
      records: complete
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ExportedRecord),
      snapshot: String(opened.res.headers["x-export-snapshot"]),
    };
  }

  async function storeIdOf(slug: string): Promise<string> {
    const row = await ctx.platform.db
      .selectFrom("stores")
      .select("id")
      .where("slug", "=", slug)
      .executeTakeFirst();
    return row!.id;
  }

  /**
   * `n` products in one statement, created in the past (a catalogue that existed before the
   * export), each with a description of `descriptionLength` characters; then ANALYZE, as
   * autovacuum (or the embedded database's maintenance loop) does on a running server.
   */
  async function seedProducts(slug: string, n: number, descriptionLength = 20): Promise<string[]> {
    const storeId = await storeIdOf(slug);
    const salt = randomBytes(4).toString("hex");
    const rows = await sql<{ id: string }>`
        INSERT INTO products (store_id, id, title, description, price_minor, price_max_minor, status, created_at, updated_at)
        SELECT ${storeId}, 'prod_' || substr(md5(${salt} || i::text), 1, 22), 'Seeded ' || i,
               repeat('d', ${descriptionLength}::int), 1000 + i, 1000 + i, 'active',
               now() - interval '1 day', now() - interval '1 day'
          FROM generate_series(1, ${n}::int) AS i
        RETURNING id`.execute(ctx.platform.db);
    await addVariants(
      ctx.platform.db,
      storeId,
      rows.rows.map((r) => ({ productId: r.id, stock: 5 })),
    );
    await sql`ANALYZE products`.execute(ctx.platform.db);
    return rows.rows.map((r) => r.id);
  }

  async function keyFor(merchant: { client: Api; slug: string }, scopes: KeyScope[]) {
    const created = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
      params: { path: { slug: merchant.slug } },
      body: { name: "Export", scopes },
    });
    assert.equal(created.response.status, 201, text(created));
    return { "x-api-key": created.data!.data.keyId, "x-api-secret": created.data!.data.secret };
  }

  return { open, exportAll, readThenDrop, storeIdOf, seedProducts, keyFor };
}

describe("bulk export", () => {
  let ctx: TestContext;
  let base: string;
  let spec: Awaited<ReturnType<typeof openApiChecker>>;
  let open: ReturnType<typeof exportClient>["open"];
  let exportAll: ReturnType<typeof exportClient>["exportAll"];
  let readThenDrop: ReturnType<typeof exportClient>["readThenDrop"];
  let seedProducts: ReturnType<typeof exportClient>["seedProducts"];
  let keyFor: ReturnType<typeof exportClient>["keyFor"];

  before(async () => {
    ctx = await createTestContext({
      EXPORT_BATCH_ROWS: String(BATCH),
      RATE_LIMIT_PER_MINUTE: "1000",
      ACCESS_TOKEN_CACHE_MS: "0",
    });
    await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    spec = await openApiChecker(ctx.app);
    ({ open, exportAll, readThenDrop, seedProducts, keyFor } = exportClient(ctx, base));
  });
  after(() => ctx.close());

  const bearer = (app: Installed) => ({ authorization: `Bearer ${app.tokens.accessToken}` });

  const ids = (records: ReadonlyArray<{ id?: unknown }>) => records.map((r) => r.id as string);
  const sorted = (xs: string[]) => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  it("streams each record exactly as the list shows it to the caller: products, orders with line items, customers; app metadata; a key pair", async () => {
    const app = await installedApp(ctx.app, [
      ...ALL_READ,
      "write_products",
      "write_orders",
      "write_customers",
    ]);
    const api = spec.watch(app.api);
    for (let i = 0; i < 5; i++) {
      const p = await api.POST("/api/v1/apps/api/products", {
        body: flat({
          title: `Shirt ${i}`,
          price: "12.50",
          stock: 50,
          ...(i % 2 ? { metadata: { erp: `E-${i}` } } : {}),
        }),
      });
      assert.equal(p.response.status, 201, text(p));
    }
    const products = (await api.GET("/api/v1/apps/api/products", { params: { query: { limit: 250 } } })).data!
      .data;
    for (let i = 0; i < 3; i++) {
      const o = await api.POST("/api/v1/apps/api/orders", {
        body: {
          customer: { email: `buyer${i}@example.com`, firstName: "Buyer", lastName: `${i}` },
          lineItems: [
            { productId: products[0]!.id, quantity: 1 },
            { productId: products[1]!.id, quantity: 2 },
          ],
          metadata: { channel: "web" },
        },
      });
      assert.equal(o.response.status, 201, text(o));
    }
    const adminLists = {
      products: () => api.GET("/api/v1/apps/api/products", { params: { query: { limit: 250 } } }),
      orders: () => api.GET("/api/v1/apps/api/orders", { params: { query: { limit: 250 } } }),
      customers: () => api.GET("/api/v1/apps/api/customers", { params: { query: { limit: 250 } } }),
    };
    for (const resource of ["products", "orders", "customers"] as const) {
      const list: Array<{ id: string }> = (await adminLists[resource]()).data!.data;
      const exported = await exportAll(`${API}/export/${resource}`, bearer(app));
      assert.ok(list.length >= 3, resource);
      // Ascending id order, and each line is the list's item for this app (metadata included).
      assert.deepEqual(ids(exported.records), sorted(ids(list)), resource);
      const byId = new Map(list.map((r) => [r.id, r]));
      for (const record of exported.records) assert.deepEqual(record, byId.get(record.id), resource);
      assert.ok(exported.headers["x-export-snapshot"]);
      assert.ok(!Number.isNaN(Date.parse(String(exported.headers["x-export-as-of"]))));
      assert.ok(exported.headers["x-ratelimit-remaining"], "rate limit headers on the export");
    }
    const exportedOrders = (await exportAll(`${API}/export/orders`, bearer(app))).records;
    assert.equal(exportedOrders[0]!.lineItems.length, 2);
    assert.deepEqual(exportedOrders[0]!.metadata, { channel: "web" });

    // A key pair: the developer API's items (no app metadata).
    const key = await keyFor(app.merchant, ALL_READ);
    const dev = spec.watch(apiClient(ctx.app, { headers: key }));
    const devLists = {
      products: () => dev.GET("/api/v1/developer/products", { params: { query: { perPage: 100 } } }),
      orders: () => dev.GET("/api/v1/developer/orders", { params: { query: { perPage: 100 } } }),
      customers: () => dev.GET("/api/v1/developer/customers", { params: { query: { perPage: 100 } } }),
    };
    for (const resource of ["products", "orders", "customers"] as const) {
      const list: Array<{ id: string }> = (await devLists[resource]()).data!.data;
      const exported = await exportAll(`${DEV}/export/${resource}`, key);
      assert.deepEqual(ids(exported.records), sorted(ids(list)), resource);
      const byId = new Map(list.map((r) => [r.id, r]));
      for (const record of exported.records) {
        assert.deepEqual(record, byId.get(record.id), resource);
        // Not in the developer API's items: read untyped, it must be absent.
        assert.equal((record as ExportedRecord).metadata, undefined);
      }
    }
  });

  it("is one consistent snapshot under concurrent writes: every record once, in one state, none created after it", async () => {
    const app = await installedApp(ctx.app, ["read_products", "write_products"]);
    const api = app.api;
    // Large records (2 kB each, 6 MB in all), so the sockets' buffers hold a small part of the
    // export and the slow reader below holds the server back: the writes land while it reads.
    const original = await seedProducts(app.merchant.slug, 30 * BATCH, 2000);
    // Each product's titles: as seeded (read back: the seed numbered them in SQL), then each update's.
    const titles = new Map<string, Set<string>>();
    const seeded = await ctx.platform.db
      .selectFrom("products")
      .select(["id", "title"])
      .where("id", "in", original)
      .execute();
    for (const row of seeded) titles.set(row.id, new Set([row.title]));

    const opened = await open(`${API}/export/products`, bearer(app));
    assert.equal(opened.res.statusCode, 200);
    const created: string[] = [];
    const deleted = new Set<string>();
    let changed = 0;
    let text = "";
    let step = 0;
    // The export reads a batch ahead of what the client took, but the sockets' buffers let it run
    // ahead further on a machine where this test is slow: records at the end of the id order are
    // changed before the first chunk is even read, so some update always lands ahead of it.
    const last = [...original].sort().slice(-20);
    for (const [i, target] of last.entries()) {
      const title = `Changed early ${i}`;
      titles.get(target)!.add(title);
      const updated = await api.PATCH("/api/v1/apps/api/products/{id}", {
        params: { path: { id: target } },
        body: flatPatch({ title, stock: 7 }),
      });
      assert.equal(updated.response.status, 200);
      changed++;
    }
    // A slow reader that writes between chunks: updates (which move a record to the end of any
    // updated_at order), creates and deletes, all over the id range, while the export reads on.
    for await (const chunk of opened.res) {
      text += String(chunk);
      step++;
      const target = original[(step * 7919) % original.length]!;
      if (!deleted.has(target)) {
        const title = `Changed ${step}`;
        titles.get(target)!.add(title);
        const updated = await api.PATCH("/api/v1/apps/api/products/{id}", {
          params: { path: { id: target } },
          body: flatPatch({ title, stock: 7 }),
        });
        assert.equal(updated.response.status, 200);
        changed++;
      }
      const fresh = await api.POST("/api/v1/apps/api/products", {
        body: flat({ title: `New ${step}`, price: "1.00" }),
      });
      assert.equal(fresh.response.status, 201);
      created.push(fresh.data!.data.id);
      const victim = original[(step * 104_729 + 13) % original.length]!;
      if (
        !deleted.has(victim) &&
        (await api.DELETE("/api/v1/apps/api/products/{id}", { params: { path: { id: victim } } })).response
          .status === 200
      )
        deleted.add(victim);
    }
    const records = text
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ExportedRecord);
    const seen = ids(records);
    assert.equal(new Set(seen).size, seen.length, "no record twice");
    assert.deepEqual(seen, sorted(seen), "ascending id order");
    for (const id of created) assert.ok(!seen.includes(id), "nothing created after the snapshot");
    const present = new Set(seen);
    for (const id of original)
      if (!deleted.has(id)) assert.ok(present.has(id), `existing record ${id} exported`);
    let inChangedState = 0;
    for (const record of records) {
      assert.ok(titles.get(record.id)?.has(record.title), `${record.id} in a state it had: ${record.title}`);
      if (String(record.title).startsWith("Changed")) {
        inChangedState++;
        assert.equal(record.totalAvailable, 7, "one state: the title and stock of the same update");
      }
    }
    assert.ok(changed > 5 && deleted.size > 0, "writes ran during the export");
    assert.ok(inChangedState > 0, "some updates landed before the export reached them");
  });

  it("resumes a dropped download from its last line: every record exactly once, across two drops", async () => {
    const app = await installedApp(ctx.app, ["read_products", "write_products"]);
    const original = await seedProducts(app.merchant.slug, 30 * BATCH);
    const first = await readThenDrop(`${API}/export/products`, bearer(app), 700);
    assert.ok(first.records.length >= 700 && first.records.length < original.length);
    // Created after the snapshot: a resume leaves it out too.
    const later = await app.api.POST("/api/v1/apps/api/products", {
      body: flat({ title: "After the snapshot", price: "1.00" }),
    });
    assert.equal(later.response.status, 201);
    const resume = (last: ExportedRecord[]) =>
      `${API}/export/products?snapshot=${encodeURIComponent(first.snapshot)}&after=${last.at(-1)!.id}`;
    const second = await readThenDrop(resume(first.records), bearer(app), 900);
    const rest = await exportAll(resume(second.records), bearer(app));
    assert.equal(rest.headers["x-export-snapshot"], first.snapshot, "the same snapshot");
    const all = [...ids(first.records), ...ids(second.records), ...ids(rest.records)];
    assert.equal(new Set(all).size, all.length, "no record twice");
    assert.deepEqual(all, sorted(original), "every record, in id order");

    // A resume position needs its snapshot; a snapshot of another resource is refused.
    const lone = await apiClient(ctx.app, { headers: bearer(app) }).GET("/api/v1/apps/api/export/products", {
      params: { query: { after: original[0] } },
    });
    assert.equal(lone.response.status, 400);
    assert.equal(fieldErrors(lone)[0]!.field, "after");
    const orders = await exportAll(`${API}/export/orders`, {
      authorization: `Bearer ${(await installedApp(ctx.app, ["read_orders"])).tokens.accessToken}`,
    });
    const wrong = await apiClient(ctx.app, { headers: bearer(app) }).GET("/api/v1/apps/api/export/products", {
      params: { query: { snapshot: String(orders.headers["x-export-snapshot"]) } },
    });
    assert.equal(wrong.response.status, 400);
    assert.equal(fieldErrors(wrong)[0]!.field, "snapshot");
  });

  it("exports only the caller's store, whatever snapshot or position it sends", async () => {
    const a = await installedApp(ctx.app, ["read_products"]);
    const b = await installedApp(ctx.app, ["read_products"]);
    const mine = await seedProducts(a.merchant.slug, 250);
    const theirs = await seedProducts(b.merchant.slug, 250);
    const exported = await exportAll(`${API}/export/products`, bearer(a));
    assert.deepEqual(ids(exported.records), sorted(mine));
    // B's snapshot and a position among B's ids: still A's records only.
    const bExport = await exportAll(`${API}/export/products`, bearer(b));
    assert.deepEqual(ids(bExport.records), sorted(theirs));
    const token = encodeURIComponent(String(bExport.headers["x-export-snapshot"]));
    const resumed = await exportAll(
      `${API}/export/products?snapshot=${token}&after=${sorted(theirs)[100]}`,
      bearer(a),
    );
    assert.ok(resumed.records.every((r) => mine.includes(r.id)));
    // A key pair of store B sees B's only.
    const key = await keyFor(b.merchant, ["read_products"]);
    assert.deepEqual(ids((await exportAll(`${DEV}/export/products`, key)).records), sorted(theirs));
  });

  it("checks credentials and scopes first (401, 403), then the request (400); an unknown resource is 404", async () => {
    const app = await installedApp(ctx.app, ["read_products"]);
    const client = spec.watch(apiClient(ctx.app, { headers: bearer(app) }));
    assert.equal(
      errorCode(await spec.watch(apiClient(ctx.app)).GET("/api/v1/apps/api/export/products")),
      "INVALID_TOKEN",
    );
    const noScope = await client.GET("/api/v1/apps/api/export/orders", {
      params: { query: { updatedSince: "garbage" } },
    });
    assert.equal(noScope.response.status, 403);
    assert.equal(errorCode(noScope), "INSUFFICIENT_SCOPE");
    assert.equal(errorCode(await client.GET("/api/v1/apps/api/export/customers")), "INSUFFICIENT_SCOPE");
    const bad = await client.GET("/api/v1/apps/api/export/products", {
      params: { query: { updatedSince: "garbage" } },
    });
    assert.equal(bad.response.status, 400);
    assert.equal(
      errorCode(
        await client.GET("/api/v1/apps/api/export/products", { params: { query: { snapshot: "forged" } } }),
      ),
      "VALIDATION_FAILED",
    );
    assert.equal(
      (await offDocumentRequest(apiClient(ctx.app, { headers: bearer(app) }), "GET", `${API}/export/widgets`))
        .response.status,
      404,
    );

    const merchant = await merchantWithStore(ctx.app);
    const key = await keyFor(merchant, ["read_products"]);
    const dev = spec.watch(apiClient(ctx.app, { headers: key }));
    assert.equal(errorCode(await dev.GET("/api/v1/developer/export/orders")), "INSUFFICIENT_SCOPE");
    assert.equal(errorCode(await dev.GET("/api/v1/developer/export/customers")), "INSUFFICIENT_SCOPE");
    assert.equal(
      errorCode(
        await spec
          .watch(apiClient(ctx.app, { headers: { "x-api-key": key["x-api-key"] } }))
          .GET("/api/v1/developer/export/products"),
      ),
      "UNAUTHENTICATED",
    );
    assert.equal(
      (await exportAll(`${DEV}/export/products`, key)).records.length,
      0,
      "an empty store: no lines",
    );
  });

  it("keeps only records changed since updatedSince, and gzips when asked", async () => {
    const app = await installedApp(ctx.app, ["read_products", "write_products"]);
    const original = await seedProducts(app.merchant.slug, 300);
    const since = new Date(Date.now() - 1000).toISOString();
    const touched = original.slice(0, 3);
    for (const id of touched)
      assert.equal(
        (
          await app.api.PATCH("/api/v1/apps/api/products/{id}", {
            params: { path: { id } },
            body: flatPatch({ stock: 1 }),
          })
        ).response.status,
        200,
      );
    const changed = await exportAll(
      `${API}/export/products?updatedSince=${encodeURIComponent(since)}`,
      bearer(app),
    );
    assert.deepEqual(ids(changed.records), sorted(touched));

    const plain = await open(`${API}/export/products`, bearer(app));
    const plainText = await plain.body();
    const zipped = await open(`${API}/export/products`, {
      ...bearer(app),
      "accept-encoding": "br;q=1, gzip;q=0.8",
    });
    const chunks: Buffer[] = [];
    for await (const chunk of zipped.res) chunks.push(chunk as Buffer);
    assert.equal(zipped.res.headers["content-encoding"], "gzip");
    assert.equal(zipped.res.headers.vary, "accept-encoding");
    assert.equal(plain.res.headers["content-encoding"], undefined);
    const unzipped = gunzipSync(Buffer.concat(chunks)).toString("utf8");
    assert.equal(unzipped, plainText);
    assert.ok(Buffer.concat(chunks).length * 3 < plainText.length, "gzip shrinks JSON Lines");
  });

  it("runs at most two exports at once per installation or key (429 with Retry-After), counted one by one in a burst, freed when one ends or is dropped", async () => {
    const app = await installedApp(ctx.app, ["read_products"]);
    // 12 MB: an unread export stays running (its rows do not fit in the sockets' buffers).
    await seedProducts(app.merchant.slug, 3000, 4000);
    const client = apiClient(ctx.app, { headers: bearer(app) });
    const before = Number(
      (await client.GET("/api/v1/apps/api/store")).response.headers.get("x-ratelimit-remaining"),
    );
    const burst = await Promise.all(
      Array.from({ length: 8 }, () => open(`${API}/export/products`, bearer(app))),
    );
    const statuses = burst.map((o) => o.res.statusCode);
    assert.equal(statuses.filter((s) => s === 200).length, 2, `burst: ${statuses.join(",")}`);
    const refused = burst.filter((o) => o.res.statusCode === 429);
    assert.equal(refused.length, 6);
    assert.equal(ctx.platform.exports.running(), 2, "the two are still running, unread");
    for (const o of refused) {
      assert.ok(Number(o.res.headers["retry-after"]) >= 1);
      assert.equal((JSON.parse(await o.body()) as ErrorBody).error.code, "RATE_LIMITED");
    }
    // Each export counted once against the rate limit, as every refused request did.
    const afterBurst = Number(
      (await client.GET("/api/v1/apps/api/store")).response.headers.get("x-ratelimit-remaining"),
    );
    assert.equal(before - afterBurst, 9);
    // Another installation of the same store has its own two.
    const other = await open(`${API}/export/products`, {
      authorization: `Bearer ${(await installedApp(ctx.app, ["read_products"])).tokens.accessToken}`,
    });
    assert.equal(other.res.statusCode, 200);
    other.request.destroy();
    const running = burst.filter((o) => o.res.statusCode === 200);
    // Dropping one frees its slot (given back when the server sees the connection close).
    running[0]!.request.destroy();
    let next: OpenExport | null = null;
    for (let attempt = 0; attempt < 50; attempt++) {
      const tried = await open(`${API}/export/products`, bearer(app));
      if (tried.res.statusCode === 200) {
        next = tried;
        break;
      }
      await tried.body();
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(next, "a dropped export's slot is freed");
    next.request.destroy();
    running[1]!.request.destroy();
  });

  it("cuts the response (never ends it cleanly) once the key pair is revoked mid-export; the resume is refused", async () => {
    const merchant = await merchantWithStore(ctx.app);
    await seedProducts(merchant.slug, 3000, 4000);
    const key = await keyFor(merchant, ["read_products"]);
    const opened = await open(`${DEV}/export/products`, key);
    assert.equal(opened.res.statusCode, 200);
    let received = 0;
    let failed: unknown = null;
    let revoked = false;
    try {
      for await (const chunk of opened.res) {
        received += (chunk as Buffer).length;
        if (!revoked && received > 200_000) {
          revoked = true;
          assert.equal(
            (
              await merchant.client.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
                params: { path: { slug: merchant.slug, keyId: key["x-api-key"] } },
              })
            ).response.status,
            200,
          );
          // The export checks its credential before every batch: what follows is at most what
          // the socket already held.
        }
      }
    } catch (error) {
      failed = error;
    }
    assert.ok(revoked);
    assert.ok(failed, "the body was cut, not ended: a client cannot take it for complete");
    assert.ok(received < 3000 * 4000, "it stopped early");
    const resumed = await apiClient(ctx.app, { headers: key }).GET("/api/v1/developer/export/products");
    assert.equal(errorCode(resumed), "INVALID_CREDENTIALS");
  });

  it("SDK: exportAll yields typed records and resumes a connection cut mid-stream by itself; the CLI writes JSON Lines with a progress line", async () => {
    const app = await installedApp(ctx.app, ["read_products", "read_orders"]);
    const original = await seedProducts(app.merchant.slug, 12 * BATCH);
    // A transport that cuts the first export response after 100 kB, mid-line.
    let cuts = 0;
    const cutting = async (request: Request) => {
      const response = await fetch(request);
      if (!request.url.includes("/export/") || cuts > 0 || !response.body) return response;
      cuts++;
      let sent = 0;
      const reader = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          sent += value.length;
          if (sent > 100_000) {
            await reader.cancel();
            controller.error(new TypeError("terminated"));
            return;
          }
          controller.enqueue(value);
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const admin = createAdminClient({ baseUrl: base, accessToken: app.tokens.accessToken, fetch: cutting });
    const seen: string[] = [];
    let asOf = "";
    for await (const product of admin.exportAll("products", {
      sleep: async () => {},
      onStart: (info) => {
        asOf = info.asOf;
      },
    })) {
      // Typed from the document: a product's fields, no casts.
      const title: string = product.title;
      assert.ok(title.startsWith("Seeded"));
      seen.push(product.id);
    }
    assert.equal(cuts, 1, "the first response was cut");
    assert.deepEqual(seen, sorted(original), "every record once, in order, across the cut");
    assert.ok(Date.parse(asOf) > 0);
    // Refusals throw the platform's error.
    await assert.rejects(async () => {
      for await (const _ of admin.exportAll("customers")) break;
    }, /INSUFFICIENT_SCOPE|customers/);
    const key = await keyFor(app.merchant, ["read_products"]);
    const developer = createDeveloperClient({
      baseUrl: base,
      apiKey: key["x-api-key"],
      apiSecret: key["x-api-secret"],
    });
    let count = 0;
    for await (const _ of developer.exportAll("products", { updatedSince: new Date(Date.now() - 3_600_000) }))
      count++;
    assert.equal(count, 0, "updatedSince: nothing changed in the last hour (seeded a day ago)");

    const out: string[] = [];
    const err: string[] = [];
    const sink = (to: string[]) => ({ write: (t: string) => to.push(t) }) as unknown as NodeJS.WritableStream;
    const code = await runCli(["export", "products", "--base-url", base, "--token", app.tokens.accessToken], {
      stdout: sink(out),
      stderr: sink(err),
      env: {},
    });
    assert.equal(code, 0, err.join(""));
    const lines = out.join("").split("\n").filter(Boolean);
    assert.deepEqual(
      lines.map((l) => (JSON.parse(l) as ExportedRecord).id),
      sorted(original),
    );
    assert.match(err.join(""), /products: 1,200 exported/);
    assert.match(err.join(""), /--updated-since 20/);
    const usage: string[] = [];
    assert.equal(
      await runCli(["export", "widgets", "--base-url", base], {
        stdout: sink([]),
        stderr: sink(usage),
        env: {},
      }),
      2,
    );
    // --location belongs to the inventory export.
    const misplaced: string[] = [];
    assert.equal(
      await runCli(["export", "products", "--location", "loc_x", "--base-url", base], {
        stdout: sink([]),
        stderr: sink(misplaced),
        env: {},
      }),
      2,
    );
    assert.match(misplaced.join(""), /--location is for export inventory/);
  });
});

/**
 * Issue 27, item 1: exports bounded at every level one tenant controls (the key pairs and
 * installations of a store, its stores, this process), each counted one by one in a burst, and an
 * export whose client takes nothing cut after EXPORT_IDLE_SECONDS.
 */
describe("bulk export: bounds per store, account and process; idle clients", () => {
  /** A context listening on a real port, with these export settings. */
  async function serving(env: Record<string, string>) {
    const ctx = await createTestContext({ RATE_LIMIT_PER_MINUTE: "10000", ...env });
    await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    const base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    return { ctx, ...exportClient(ctx, base) };
  }
  /** Big enough that an unread export never finishes into the sockets' buffers (12 MB). */
  const BIG = { n: 3000, description: 4000 };

  /** Waits (bounded) until this process runs `n` exports: the server sees closed connections late. */
  async function runningBecomes(ctx: TestContext, n: number) {
    for (let i = 0; i < 200 && ctx.platform.exports.running() !== n; i++)
      await new Promise((r) => setTimeout(r, 50));
    assert.equal(ctx.platform.exports.running(), n);
  }

  it("80 paused exports over 40 key pairs of one store: exactly the store's bound run, the rest 429 naming the store; another store of the account is bounded by the account", async () => {
    const s = await serving({ EXPORT_MAX_PER_STORE: "4", EXPORT_MAX_PER_ACCOUNT: "6" });
    try {
      const merchant = await merchantWithStore(s.ctx.app);
      await s.seedProducts(merchant.slug, BIG.n, BIG.description);
      const keys = [];
      for (let i = 0; i < 40; i++) keys.push(await s.keyFor(merchant, ["read_products"]));
      // Every request at once, none reading past its headers.
      const burst = await Promise.all(
        keys.flatMap((key) => [s.open(`${DEV}/export/products`, key), s.open(`${DEV}/export/products`, key)]),
      );
      const running = burst.filter((o) => o.res.statusCode === 200);
      const refused = burst.filter((o) => o.res.statusCode === 429);
      assert.equal(running.length, 4, `statuses: ${burst.map((o) => o.res.statusCode).join(",")}`);
      assert.equal(refused.length, 76);
      const messages = new Set<string>();
      for (const o of refused) {
        assert.ok(Number(o.res.headers["retry-after"]) >= 1);
        const body = JSON.parse(await o.body()) as ErrorBody;
        assert.equal(body.error.code, "RATE_LIMITED");
        messages.add(body.error.message);
      }
      // Refused by the store's bound (a key whose two tries both came late is refused by it too,
      // never by its own bound of 2, which it does not reach).
      assert.deepEqual([...messages], ["At most 4 exports run at once per store: wait for one to finish."]);
      assert.equal(s.ctx.platform.exports.running(), 4);

      // A second store of the same account: its own bound is 4, but the account has 6 (4 running).
      const second = `store-${randomBytes(4).toString("hex")}`;
      assert.equal(
        (await merchant.client.POST("/api/v1/dashboard/stores", { body: { name: "Second", slug: second } }))
          .response.status,
        201,
      );
      const other = { ...merchant, slug: second, base: `/api/v1/dashboard/stores/${second}` };
      await s.seedProducts(second, BIG.n, BIG.description);
      const otherKeys = [await s.keyFor(other, ["read_products"]), await s.keyFor(other, ["read_products"])];
      const more = await Promise.all(
        otherKeys.flatMap((key) => [
          s.open(`${DEV}/export/products`, key),
          s.open(`${DEV}/export/products`, key),
        ]),
      );
      assert.equal(more.filter((o) => o.res.statusCode === 200).length, 2);
      const byAccount = more.filter((o) => o.res.statusCode === 429);
      assert.equal(byAccount.length, 2);
      for (const o of byAccount)
        assert.match(
          (JSON.parse(await o.body()) as ErrorBody).error.message,
          /per merchant account \(over all its stores\)/,
        );
      // Another merchant is not held back by this one's exports.
      const stranger = await merchantWithStore(s.ctx.app);
      await s.seedProducts(stranger.slug, 10);
      const theirs = await s.exportAll(`${DEV}/export/products`, await s.keyFor(stranger, ["read_products"]));
      assert.equal(theirs.records.length, 10);

      // Closing them gives every slot back: the store's bound admits four again.
      for (const o of [...running, ...more]) o.request.destroy();
      await runningBecomes(s.ctx, 0);
      const again = await Promise.all(keys.slice(0, 4).map((key) => s.open(`${DEV}/export/products`, key)));
      assert.deepEqual(
        again.map((o) => o.res.statusCode),
        [200, 200, 200, 200],
      );
      for (const o of again) o.request.destroy();
      await runningBecomes(s.ctx, 0);
      const leases = await s.ctx.platform.db.selectFrom("export_leases").select("pool").execute();
      assert.deepEqual(leases, [], "no slot left behind");
    } finally {
      await s.ctx.close();
    }
  });

  it("runs at most EXPORT_MAX_PER_PROCESS exports in a process, whoever asks (429 naming the process)", async () => {
    const s = await serving({ EXPORT_MAX_PER_PROCESS: "3" });
    try {
      const opened = [];
      for (let i = 0; i < 4; i++) {
        const merchant = await merchantWithStore(s.ctx.app);
        await s.seedProducts(merchant.slug, BIG.n, BIG.description);
        opened.push(await s.open(`${DEV}/export/products`, await s.keyFor(merchant, ["read_products"])));
      }
      assert.deepEqual(
        opened.map((o) => o.res.statusCode),
        [200, 200, 200, 429],
      );
      assert.match(
        (JSON.parse(await opened[3]!.body()) as ErrorBody).error.message,
        /At most 3 exports run at once per process/,
      );
      for (const o of opened) o.request.destroy();
      await runningBecomes(s.ctx, 0);
    } finally {
      await s.ctx.close();
    }
  });

  it("cuts an export whose client takes nothing for EXPORT_IDLE_SECONDS (never ends it cleanly), and frees its slot; a reading client is not cut", async () => {
    const s = await serving({ EXPORT_IDLE_SECONDS: "1", EXPORT_MAX_CONCURRENT: "1" });
    try {
      const merchant = await merchantWithStore(s.ctx.app);
      await s.seedProducts(merchant.slug, BIG.n, BIG.description);
      const key = await s.keyFor(merchant, ["read_products"]);
      const paused = await s.open(`${DEV}/export/products`, key);
      assert.equal(paused.res.statusCode, 200);
      // The key's one slot is free again once the server has cut the idle export.
      await runningBecomes(s.ctx, 0);
      const cut = await paused.body().then(
        () => null,
        (error: unknown) => error,
      );
      assert.ok(cut, "the idle export's body was cut, not ended");
      // A client that reads, however slowly between batches, gets everything.
      const all = await s.exportAll(`${DEV}/export/products`, key);
      assert.equal(all.records.length, BIG.n);
    } finally {
      await s.ctx.close();
    }
  });
});
