import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { MAX_ACTIVE_KEYS_PER_STORE } from "../src/contracts/limits.ts";
import {
  answer,
  apiClient,
  createTestContext,
  detailsOf,
  errorCode,
  fieldErrors,
  merchantWithStore,
  offDocument,
  type RequestBody,
  rawBody,
  type TestContext,
  text,
} from "./harness.ts";
import { openApiChecker } from "./openapi-assert.ts";

type Checker = Awaited<ReturnType<typeof openApiChecker>>;

describe("dashboard: developer key pairs", () => {
  let ctx: TestContext;
  let spec: Checker;
  before(async () => {
    ctx = await createTestContext({ RATE_LIMIT_PER_MINUTE: "1000" });
    spec = await openApiChecker(ctx.app);
  });
  after(() => ctx.close());

  async function merchant() {
    const m = await merchantWithStore(ctx.app);
    return { ...m, client: spec.watch(m.client) };
  }
  type Merchant = Awaited<ReturnType<typeof merchant>>;

  async function create(
    m: Merchant,
    body: Partial<RequestBody<"/api/v1/dashboard/stores/{slug}/api-keys", "post">> = {},
  ) {
    const res = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
      params: { path: { slug: m.slug } },
      body: {
        name: "Export",
        scopes: ["read_products"],
        ...body,
      },
    });
    assert.equal(res.response.status, 201, text(res));
    return res.data!.data;
  }
  const developer = (key: { keyId: string; secret: string }) =>
    spec.watch(apiClient(ctx.app, { headers: { "x-api-key": key.keyId, "x-api-secret": key.secret } }));

  describe("happy path", () => {
    it("creates a key pair whose secret is answered once and stored only as its SHA-256 hash", async () => {
      const m = await merchant();
      const res = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: m.slug } },
        body: {
          name: "  Nightly export  ",
          scopes: ["write_products", "read_products"],
        },
      });
      assert.equal(res.response.status, 201);
      assert.equal(res.response.headers.get("cache-control"), "no-store");
      const key = res.data!.data;
      assert.match(key.keyId, /^mpk_[0-9A-Za-z]{24}$/);
      assert.match(key.secret, /^mpsk_[0-9A-Za-z]{43}$/);
      assert.equal(key.name, "Nightly export");
      assert.deepEqual(key.scopes, ["read_products", "write_products"]);
      assert.equal(key.lastUsedAt, null);
      assert.equal(key.expiresAt, null);
      assert.equal(key.revokedAt, null);

      const row = await ctx.platform.db
        .selectFrom("api_keys")
        .selectAll()
        .where("id", "=", key.keyId)
        .executeTakeFirstOrThrow();
      assert.equal(row.store_id, m.store.id);
      assert.equal(row.secret_hash, createHash("sha256").update(key.secret).digest("hex"));
      assert.ok(!JSON.stringify(row).includes(key.secret.slice(5)), "the secret itself is stored nowhere");

      const list = await m.client.GET("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: m.slug } },
      });
      assert.equal(list.response.status, 200);
      assert.deepEqual(
        list.data!.data.map((k: Record<string, unknown>) => Object.keys(k).sort()),
        [["apiVersion", "createdAt", "expiresAt", "keyId", "lastUsedAt", "name", "revokedAt", "scopes"]],
      );
      assert.ok(!text(list).includes(key.secret.slice(5)), "never listed");
      assert.equal((await developer(key).GET("/api/v1/developer/store")).response.status, 200);
    });

    it("keeps an expiry, and lists usable keys first, newest first", async () => {
      const m = await merchant();
      await create(m, { name: "old" });
      ctx.clock.advance(1);
      const revoked = await create(m, { name: "revoked" });
      ctx.clock.advance(1);
      const expiresAt = new Date(ctx.clock.now().getTime() + 10_000).toISOString();
      const expiring = await create(m, { name: "expiring", expiresAt });
      assert.equal(expiring.expiresAt, expiresAt);
      ctx.clock.advance(1);
      await create(m, { name: "newest" });
      await m.client.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
        params: { path: { slug: m.slug, keyId: revoked.keyId } },
      });
      const names = async () =>
        (
          await m.client.GET("/api/v1/dashboard/stores/{slug}/api-keys", {
            params: { path: { slug: m.slug } },
          })
        ).data!.data.map((k: { name: string }) => k.name);
      assert.deepEqual(await names(), ["newest", "expiring", "old", "revoked"]);
      ctx.clock.advance(10_000);
      assert.deepEqual(await names(), ["newest", "old", "expiring", "revoked"]);
    });

    it("revokes at once; revoking again answers the key unchanged", async () => {
      const m = await merchant();
      const key = await create(m);
      const api = developer(key);
      assert.equal((await api.GET("/api/v1/developer/store")).response.status, 200);
      const first = await m.client.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
        params: { path: { slug: m.slug, keyId: key.keyId } },
      });
      assert.equal(first.response.status, 200);
      assert.ok(first.data!.data.revokedAt);
      assert.equal(first.data!.data.keyId, key.keyId);
      assert.equal(
        (await api.GET("/api/v1/developer/store")).response.status,
        401,
        "the very next call fails",
      );
      ctx.clock.advance(5_000);
      const second = await m.client.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
        params: { path: { slug: m.slug, keyId: key.keyId } },
      });
      assert.equal(second.response.status, 200);
      assert.equal(second.data!.data.revokedAt, first.data!.data.revokedAt);
      const listed = (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/api-keys", { params: { path: { slug: m.slug } } })
      ).data!.data[0]!;
      assert.equal(listed.revokedAt, first.data!.data.revokedAt);
    });
  });

  describe("error path", () => {
    it("rejects invalid bodies with 400 naming the field", async () => {
      const m = await merchant();
      const past = new Date(ctx.clock.now().getTime() - 1000).toISOString();
      const cases: Array<[unknown, string]> = [
        [{ scopes: ["read_products"] }, "name"],
        [{ name: "", scopes: ["read_products"] }, "name"],
        [{ name: "x".repeat(101), scopes: ["read_products"] }, "name"],
        [{ name: 7, scopes: ["read_products"] }, "name"],
        [{ name: "x" }, "scopes"],
        [{ name: "x", scopes: [] }, "scopes"],
        [{ name: "x", scopes: "read_products" }, "scopes"],
        [{ name: "x", scopes: ["manage_webhooks"] }, "scopes.0"],
        [{ name: "x", scopes: ["read_everything"] }, "scopes.0"],
        [{ name: "x", scopes: ["read_products", "read_products"] }, "scopes"],
        [{ name: "x", scopes: ["read_products"], expiresAt: "tomorrow" }, "expiresAt"],
        [{ name: "x", scopes: ["read_products"], expiresAt: past }, "expiresAt"],
        // Outside years 1-9999 once in UTC, and a leap second: each answered 500 before.
        [{ name: "x", scopes: ["read_products"], expiresAt: "9999-12-31T23:59:59-23:59" }, "expiresAt"],
        [{ name: "x", scopes: ["read_products"], expiresAt: "2999-12-31T23:59:60Z" }, "expiresAt"],
        [{ name: "x", scopes: ["read_products"], expiresAt: "10000-01-01T00:00:00Z" }, "expiresAt"],
        [{ name: "x", scopes: ["read_products"], expiresAt: "0000-01-01T00:00:00Z" }, "expiresAt"],
        [{ name: "x", scopes: ["read_products"], secret: "mpsk_mine" }, "secret"],
        [{ name: "x", scopes: ["read_products"], keyId: "mpk_mine" }, "keyId"],
      ];
      for (const [body, field] of cases) {
        const res = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
          params: { path: { slug: m.slug } },
          // Each body breaks the document's rules on purpose.
          body: offDocument(body),
        });
        assert.equal(res.response.status, 400, JSON.stringify(body));
        assert.equal(errorCode(res), "VALIDATION_FAILED");
        assert.ok(
          fieldErrors(res).some((d) => d.field === field),
          `${JSON.stringify(body)} -> ${JSON.stringify(fieldErrors(res))}`,
        );
      }
      const malformed = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: m.slug } },
        ...rawBody('{"name": "x", '),
      });
      assert.equal(malformed.response.status, 400);
      assert.equal(errorCode(malformed), "BAD_REQUEST");
      assert.equal(
        (
          await m.client.GET("/api/v1/dashboard/stores/{slug}/api-keys", {
            params: { path: { slug: m.slug } },
          })
        ).data!.data.length,
        0,
        "nothing was created",
      );
    });

    it("keeps expiries within year 9999 in UTC, so the key list always reads back", async () => {
      const m = await merchant();
      const last = await create(m, { name: "last", expiresAt: "9999-12-31T23:59:59.999Z" });
      assert.equal(last.expiresAt, "9999-12-31T23:59:59.999Z");
      // Year 9999 as written, year 10000 in UTC: created on PostgreSQL with its secret never shown,
      // then every list of the store answered 500.
      const late = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: m.slug } },
        body: {
          name: "late",
          scopes: ["read_products"],
          expiresAt: "9999-12-31T23:59:59-23:59",
        },
      });
      assert.equal(late.response.status, 400);
      assert.equal(errorCode(late), "VALIDATION_FAILED");
      assert.match(fieldErrors(late)[0]!.message, /years 1 to 9999/);
      const list = await m.client.GET("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: m.slug } },
      });
      assert.equal(list.response.status, 200, text(list));
      assert.deepEqual(
        list.data!.data.map((k) => k.name),
        ["last"],
      );
      assert.equal(
        (
          await m.client.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
            params: { path: { slug: m.slug, keyId: last.keyId } },
          })
        ).response.status,
        200,
      );
    });

    it("brings back a store whose key list an expiry past year 9999 had broken (migration 0013)", async () => {
      const m = await merchant();
      const key = await create(m, { name: "broken" });
      // What the old code let PostgreSQL store.
      await sql`UPDATE api_keys SET expires_at = '10000-01-01 00:00:00+00' WHERE id = ${key.keyId}`.execute(
        ctx.platform.db,
      );
      const migration = readFileSync(
        new URL("../src/db/migrations/20261126_0013_api_key_expiry_within_year_9999.sql", import.meta.url),
        "utf8",
      );
      await sql.raw(migration).execute(ctx.platform.db);
      const list = await m.client.GET("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: m.slug } },
      });
      assert.equal(list.response.status, 200, text(list));
      assert.equal(list.data!.data[0]!.expiresAt, "9999-12-31T23:59:59.999Z");
      assert.equal(
        (
          await m.client.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
            params: { path: { slug: m.slug, keyId: key.keyId } },
          })
        ).response.status,
        200,
      );
    });

    it("answers 404 for unknown key ids and 400 for malformed ones", async () => {
      const m = await merchant();
      const unknown = await m.client.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
        params: { path: { slug: m.slug, keyId: `mpk_${"0".repeat(24)}` } },
      });
      assert.equal(unknown.response.status, 404);
      assert.equal(errorCode(unknown), "NOT_FOUND");
      for (const bad of ["nope", `mpk_${"0".repeat(23)}`, `mpsk_${"0".repeat(24)}`]) {
        const res = await m.client.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
          params: { path: { slug: m.slug, keyId: bad } },
        });
        assert.equal(res.response.status, 400, bad);
        assert.equal(errorCode(res), "VALIDATION_FAILED");
      }
    });

    it(`caps a store at ${MAX_ACTIVE_KEYS_PER_STORE} usable keys; revoked and expired ones do not count`, async () => {
      const m = await merchant();
      const expiring = await create(m, {
        name: "short-lived",
        expiresAt: new Date(ctx.clock.now().getTime() + 60_000).toISOString(),
      });
      const first = await create(m);
      for (let i = 2; i < MAX_ACTIVE_KEYS_PER_STORE; i++) await create(m, { name: `k${i}` });
      const over = await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: m.slug } },
        body: {
          name: "one too many",
          scopes: ["read_products"],
        },
      });
      assert.equal(over.response.status, 409);
      assert.equal(errorCode(over), "CONFLICT");
      assert.equal(detailsOf(over).limit, MAX_ACTIVE_KEYS_PER_STORE);
      await m.client.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
        params: { path: { slug: m.slug, keyId: first.keyId } },
      });
      await create(m, { name: "after a revoke" });
      assert.equal(
        (
          await m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
            params: { path: { slug: m.slug } },
            body: { name: "x", scopes: ["read_orders"] },
          })
        ).response.status,
        409,
      );
      ctx.clock.advance(60_000);
      assert.equal((await developer(expiring).GET("/api/v1/developer/store")).response.status, 401);
      await create(m, { name: "after an expiry" });
      const list = (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/api-keys", { params: { path: { slug: m.slug } } })
      ).data!.data;
      assert.equal(list.length, MAX_ACTIVE_KEYS_PER_STORE + 2);
      assert.equal(
        list.filter((k: { revokedAt: string | null }) => !k.revokedAt).length,
        MAX_ACTIVE_KEYS_PER_STORE + 1,
      );
    });

    it("holds the cap under concurrent creates: twenty racers for the last slot, one winner", async () => {
      const m = await merchant();
      for (let i = 1; i < MAX_ACTIVE_KEYS_PER_STORE; i++) await create(m, { name: `k${i}` });
      const racers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
            params: { path: { slug: m.slug } },
            body: { name: `racer ${i}`, scopes: ["read_products"] },
          }),
        ),
      );
      const statuses = racers.map((r) => r.response.status).sort();
      assert.deepEqual(statuses, [201, ...Array(19).fill(409)]);
      const rows = await ctx.platform.db
        .selectFrom("api_keys")
        .select("id")
        .where("store_id", "=", m.store.id)
        .execute();
      assert.equal(rows.length, MAX_ACTIVE_KEYS_PER_STORE);
    });
  });

  describe("security", () => {
    it("needs a session for every key route", async () => {
      const m = await merchant();
      const key = await create(m);
      const anonymous = spec.watch(apiClient(ctx.app));
      for (const res of [
        await anonymous.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
          params: { path: { slug: m.slug } },
          body: { name: "x", scopes: ["read_products"] },
        }),
        await anonymous.GET("/api/v1/dashboard/stores/{slug}/api-keys", {
          params: { path: { slug: m.slug } },
        }),
        await anonymous.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
          params: { path: { slug: m.slug, keyId: key.keyId } },
        }),
      ]) {
        assert.equal(res.response.status, 401);
        assert.equal(errorCode(res), "UNAUTHENTICATED");
      }
      // A key pair is not a dashboard credential.
      const viaKey = await developer(key).GET("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: m.slug } },
      });
      assert.equal(viaKey.response.status, 401);
      assert.equal(
        (await developer(key).GET("/api/v1/developer/store")).response.status,
        200,
        "the key was not revoked",
      );
    });

    it("hides another merchant's store and keys as 404, and never revokes across stores", async () => {
      const owner = await merchant();
      const intruder = await merchant();
      const key = await create(owner);
      const notFound = [
        await intruder.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
          params: { path: { slug: owner.slug } },
          body: { name: "x", scopes: ["read_products"] },
        }),
        await intruder.client.GET("/api/v1/dashboard/stores/{slug}/api-keys", {
          params: { path: { slug: owner.slug } },
        }),
        await intruder.client.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
          params: { path: { slug: owner.slug, keyId: key.keyId } },
        }),
        // The owner's key id through the intruder's own store: still not theirs.
        await intruder.client.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
          params: { path: { slug: intruder.slug, keyId: key.keyId } },
        }),
      ];
      const missing = await intruder.client.GET("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: "no-such-store-here" } },
      });
      for (const res of notFound) {
        assert.equal(res.response.status, 404);
        assert.equal(errorCode(res), "NOT_FOUND");
      }
      assert.deepEqual(
        answer(notFound[1]!),
        answer(missing),
        "indistinguishable from a store that does not exist",
      );
      assert.equal(
        (await developer(key).GET("/api/v1/developer/store")).response.status,
        200,
        "the owner's key still works",
      );
      assert.equal(
        (
          await owner.client.GET("/api/v1/dashboard/stores/{slug}/api-keys", {
            params: { path: { slug: owner.slug } },
          })
        ).data!.data.length,
        1,
      );
      assert.equal(
        (
          await intruder.client.GET("/api/v1/dashboard/stores/{slug}/api-keys", {
            params: { path: { slug: intruder.slug } },
          })
        ).data!.data.length,
        0,
      );
    });

    it("refuses state changes that are not JSON (CSRF guard)", async () => {
      const m = await merchant();
      const key = await create(m);
      const form = { "content-type": "application/x-www-form-urlencoded" };
      const refused = [
        [
          "POST",
          () =>
            m.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
              params: { path: { slug: m.slug } },
              ...rawBody("name=x&scopes=read_products"),
              headers: form,
            }),
        ],
        [
          "DELETE",
          () =>
            m.client.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
              params: { path: { slug: m.slug, keyId: key.keyId } },
              ...rawBody(""),
              headers: form,
            }),
        ],
      ] as const;
      for (const [method, send] of refused) {
        const res = await send();
        assert.equal(res.response.status, 415, method);
        assert.equal(errorCode(res), "UNSUPPORTED_MEDIA_TYPE");
      }
      assert.equal((await developer(key).GET("/api/v1/developer/store")).response.status, 200, "not revoked");
    });
  });
});
