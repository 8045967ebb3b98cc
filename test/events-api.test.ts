import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { createAdminClient } from "@merchant-platform/sdk";
import { sql } from "kysely";
import { run as runCli } from "../packages/cli/src/commands.ts";
import { installedApp } from "./apps-harness.ts";
import { flat, flatPatch, SYSTEM_ACTOR } from "./catalogue.ts";
import { type EventBody, fieldErrors, type ResponseData, text } from "./harness.ts";
import { createWebhookContext, waitUntil } from "./webhooks-harness.ts";

type Ctx = Awaited<ReturnType<typeof createWebhookContext>>;

/**
 * The events API (GET /api/v1/apps/api/events): the store's events read back in feed order, gap-free
 * while writers commit, within the token's scopes, with this app's deliveries of each.
 */
/** An item of the Admin API's event feed. */
type FeedItem = ResponseData<"/api/v1/apps/api/events", "get">[number];

describe("events API: the store's event feed", () => {
  let ctx: Ctx;
  before(async () => {
    ctx = await createWebhookContext({ RATE_LIMIT_PER_MINUTE: "1000000", WEBHOOK_MAX_ATTEMPTS: "1" });
  });
  after(() => ctx.close());

  it("8 writers commit 400 events while a reader pages with `after`: every event once, in order, each resource's sequence increasing", {
    // The feed's order under concurrent commits at scale (2,000 events) is test/event-feed.test.ts's;
    // this one reads it through the API, in pages of 25 while 8 writers commit: 400 transactions,
    // 16 pages and more (2,000 cost 37 s of CPU on the embedded database, the suite's third largest).
    timeout: 300_000,
  }, async () => {
    const installed = await installedApp(ctx.app, ["read_products"]);
    const m = installed.merchant;
    const WRITERS = 8;
    const PRODUCTS = 10; // per writer; each created, then changed 4 times: 5 events
    let writing = true;
    // Each writer commits through the products service itself (one transaction per change, its
    // event recorded inside it, as every request does), without the HTTP and session work around
    // it: the test is about the feed under concurrent commits, and 2,000 requests cost minutes.
    const store = await ctx.platform.services.stores.current(
      (
        await ctx.platform.db
          .selectFrom("stores")
          .select("id")
          .where("slug", "=", m.slug)
          .executeTakeFirstOrThrow()
      ).id,
    );
    const products = ctx.platform.services.products;
    const writer = async (w: number) => {
      for (let p = 0; p < PRODUCTS; p++) {
        const created = await products.create(
          store,
          flat({ title: `P${w}-${p}`, price: "1.00", stock: 1 }),
          SYSTEM_ACTOR,
        );
        for (let change = 0; change < 4; change++)
          await products.update(store, created.id, flatPatch({ stock: change + 2 }), SYSTEM_ACTOR);
      }
    };
    const seen: FeedItem[] = [];
    // The feed's positions count every event of the store, the stock's too (which this app, without
    // read_inventory, does not see): the head is the last cursor given, not the count seen.
    let cursor: string | undefined;
    const reader = async () => {
      for (;;) {
        const done = !writing;
        for (;;) {
          const res = await installed.api.GET("/api/v1/apps/api/events", {
            params: { query: { limit: 25, after: cursor } },
          });
          assert.equal(res.response.status, 200, text(res));
          seen.push(...res.data!.data);
          cursor = res.data!.meta.nextCursor;
          if (!res.data!.meta.hasMore) break;
        }
        if (done) return;
        // Polls as an app does, leaving the writers the database in between.
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const reading = reader();
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    writing = false;
    await reading;

    assert.equal(seen.length, WRITERS * PRODUCTS * 5, "every committed event");
    assert.equal(new Set(seen.map((e) => e.id)).size, seen.length, "each once");
    const last = new Map<string, number>();
    for (const e of seen) {
      assert.ok(
        (last.get(e.resource.id) ?? 0) < e.sequence,
        `${e.resource.id}: sequence strictly increasing`,
      );
      last.set(e.resource.id, e.sequence);
      assert.equal(e.resource.type, "product");
      assert.equal("id" in e.data ? e.data.id : undefined, e.resource.id);
    }
    // Polling from the stored cursor: nothing new, and the cursor stays put.
    const head = Number(cursor);
    const tail = await installed.api.GET("/api/v1/apps/api/events", {
      params: { query: { after: String(head) } },
    });
    assert.deepEqual(tail.data!.data, []);
    assert.equal(tail.data!.meta.hasMore, false);
    assert.equal(tail.data!.meta.nextCursor, String(head));
    // A cursor the feed never gave (past its head) would skip every event below it: 400 naming the head.
    for (const past of [head + 1, 999_999_999_999]) {
      const beyond = await installed.api.GET("/api/v1/apps/api/events", {
        params: { query: { after: String(past) } },
      });
      assert.equal(beyond.response.status, 400, text(beyond));
      assert.equal(beyond.error!.error.code, "VALIDATION_FAILED");
      assert.equal(fieldErrors(beyond)[0]!.field, "after");
      assert.match(beyond.error!.error.message, new RegExp(`last position is ${head}\\)`));
    }
  });

  it("shows only what the token's scopes allow, of its own store; types, since and 4xx", async () => {
    const installed = await installedApp(ctx.app, ["read_products"]);
    const m = installed.merchant;
    await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({ title: "Mug", price: "9.00", stock: 5 }),
    });
    await m.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
      params: { path: { slug: m.slug } },
      body: { email: `c${Date.now()}@example.com`, firstName: "Ana" },
    });
    const other = await installedApp(ctx.app, ["read_products", "read_customers"]);
    await other.merchant.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: other.merchant.slug } },
      body: flat({
        title: "Elsewhere",
        price: "1.00",
        stock: 1,
      }),
    });

    const all = await installed.api.GET("/api/v1/apps/api/events");
    assert.equal(all.response.status, 200, text(all));
    assert.deepEqual(
      all.data!.data.map((e) => [e.type, "title" in e.data ? e.data.title : undefined]),
      [["product.created", "Mug"]],
      "no customer event without read_customers; nothing of another store",
    );
    assert.equal(
      (
        await installed.api.GET("/api/v1/apps/api/events", {
          params: { query: { types: "customer.created" } },
        })
      ).response.status,
      403,
    );
    const unknown = await installed.api.GET("/api/v1/apps/api/events", {
      params: { query: { types: "order.exploded" } },
    });
    assert.equal(unknown.response.status, 400);
    assert.equal(unknown.error!.error.code, "VALIDATION_FAILED");
    assert.equal(
      (await installed.api.GET("/api/v1/apps/api/events", { params: { query: { after: "-1" } } })).response
        .status,
      400,
    );
    assert.equal(
      (await installed.api.GET("/api/v1/apps/api/events", { params: { query: { limit: 251 } } })).response
        .status,
      400,
    );
    assert.equal(
      (
        await installed.api.GET("/api/v1/apps/api/events", {
          params: { query: { since: "10000-01-01T00:00:00Z" } },
        })
      ).response.status,
      400,
    );

    ctx.clock.advance(30 * 60_000);
    const since = ctx.clock.now().toISOString();
    await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({ title: "Later", price: "2.00", stock: 5 }),
    });
    const recent = await installed.api.GET("/api/v1/apps/api/events", {
      params: { query: { since: since } },
    });
    assert.deepEqual(
      recent.data!.data.map((e) => ("title" in e.data ? e.data.title : undefined)),
      ["Later"],
    );
    const typed = await installed.api.GET("/api/v1/apps/api/events", {
      params: { query: { types: "product.created,product.updated" } },
    });
    assert.equal(typed.data!.data.length, 2);
  });

  it("serves each event's data exactly as it was recorded, whatever the payload schema is today", async () => {
    const installed = await installedApp(ctx.app, ["read_products"]);
    const storeId = installed.merchant.store.id as string;
    // An event recorded by an older version: fewer fields, and one since removed.
    await sql`INSERT INTO events (id, store_id, topic, resource_id, payload, dispatched_at)
              VALUES ('evt_legacy0000000000000000', ${storeId}, 'product.created', 'prod_legacy000000000000000',
                      '{"id": "prod_legacy000000000000000", "title": "Old", "weight": 3}', now())`.execute(
      ctx.platform.db,
    );
    const res = await installed.api.GET("/api/v1/apps/api/events");
    assert.equal(res.response.status, 200, text(res));
    assert.deepEqual(res.data!.data[0]!.data, { id: "prod_legacy000000000000000", title: "Old", weight: 3 });
  });

  it("lists this app's deliveries of each event, and `delivery=failed` the events whose delivery failed", async () => {
    const installed = await installedApp(ctx.app, ["read_products", "manage_webhooks"]);
    const m = installed.merchant;
    // Nothing listens there: one attempt (WEBHOOK_MAX_ATTEMPTS=1), then failed.
    const sub = await installed.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "product.created",
        targetUrl: "https://127.0.0.1:9/hooks",
      },
    });
    assert.equal(sub.response.status, 201, text(sub));
    const product = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({ title: "Lamp", price: "30.00", stock: 2 }),
    });
    await m.client.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { slug: m.slug, id: product.data!.data.id } },
      body: flatPatch({ stock: 3 }),
    }); // product.updated: not subscribed
    await waitUntil(
      async () => {
        const res = await installed.api.GET("/api/v1/apps/api/events", {
          params: { query: { delivery: "failed" } },
        });
        return res.data!.data.length === 1;
      },
      30_000,
      "the failed delivery",
    );
    const failed = await installed.api.GET("/api/v1/apps/api/events", {
      params: { query: { delivery: "failed" } },
    });
    const event = failed.data!.data[0]!;
    assert.equal(event.type, "product.created");
    assert.equal(event.deliveries.length, 1);
    assert.equal(event.deliveries[0]!.status, "failed");
    assert.equal(event.deliveries[0]!.subscriptionId, sub.data!.data.id);
    assert.ok(event.deliveries[0]!.lastError);
    const all = await installed.api.GET("/api/v1/apps/api/events");
    assert.deepEqual(
      all.data!.data.map((e) => [e.type, e.deliveries.length]),
      [
        ["product.created", 1],
        ["product.updated", 0],
      ],
    );
    // The webhook body carries the same id and sequence the feed shows.
    const { rows } = await sql<{ body: string }>`
      SELECT body FROM webhook_deliveries WHERE id = ${event.deliveries[0]!.id}`.execute(ctx.platform.db);
    const body = JSON.parse(rows[0]!.body) as EventBody<"product.created">;
    assert.equal(body.id, event.id);
    assert.equal(body.sequence, event.sequence);
  });

  it("the SDK reads the feed as an iterator and resumes from a stored cursor; the CLI prints it", async () => {
    await ctx.app.listen({ host: "127.0.0.1", port: 0 });
    const baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    const installed = await installedApp(ctx.app, ["read_customers"]);
    const m = installed.merchant;
    const signUp = (n: number) =>
      m.client.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: m.slug } },
        body: {
          email: `sdk${n}-${Date.now()}@example.com`,
          firstName: `C${n}`,
        },
      });
    for (let n = 0; n < 5; n++) await signUp(n);
    const admin = createAdminClient({
      baseUrl,
      accessToken: installed.tokens.accessToken,
    });
    const names: string[] = [];
    for await (const e of admin.events.list({ limit: 2 })) {
      if (e.type === "customer.created") names.push(e.data.firstName ?? "");
    }
    assert.deepEqual(names, ["C0", "C1", "C2", "C3", "C4"], "three pages of two, in order");

    // A consumer that handles two events, then fails on the third: it resumes at the third.
    let saved: string | undefined;
    const store = {
      get: async () => saved,
      set: async (cursor: string) => {
        saved = cursor;
      },
    };
    const handled: string[] = [];
    await assert.rejects(async () => {
      for await (const e of admin.events.resume(store)) {
        if (handled.length === 2) throw new Error("the handler failed");
        handled.push(e.id);
      }
    });
    const again: string[] = [];
    for await (const e of admin.events.resume(store)) again.push(e.id);
    assert.equal(again.length, 3, "the failed one and the two after it");
    await signUp(5);
    const later: string[] = [];
    for await (const e of admin.events.resume(store)) later.push(e.type);
    assert.deepEqual(later, ["customer.created"], "only what is new since the stored cursor");

    const out: string[] = [];
    const err: string[] = [];
    const sink = (to: string[]) => ({ write: (t: string) => to.push(t) }) as unknown as NodeJS.WritableStream;
    const code = await runCli(
      [
        "events",
        "--types",
        "customer.created",
        "--base-url",
        baseUrl,
        "--token",
        installed.tokens.accessToken,
      ],
      {
        stdout: sink(out),
        stderr: sink(err),
        env: { MERCHANT_PLATFORM_CONFIG: "/nonexistent/cli.json" },
      },
    );
    assert.equal(code, 0, err.join(""));
    assert.equal(out.length, 6);
    assert.match(out[0]!, /customer\.created\s+customer\/cus_/);
    assert.match(err.join(""), /6 event\(s\)\. Continue after them with --after \d+/);
    // --limit: that many, and where to go on from.
    const page: string[] = [];
    const pageErr: string[] = [];
    const limited = await runCli(
      [
        "events",
        "--types",
        "customer.created",
        "--limit",
        "2",
        "--base-url",
        baseUrl,
        "--token",
        installed.tokens.accessToken,
      ],
      {
        stdout: sink(page),
        stderr: sink(pageErr),
        env: { MERCHANT_PLATFORM_CONFIG: "/nonexistent/cli.json" },
      },
    );
    assert.equal(limited, 0, pageErr.join(""));
    assert.deepEqual(page, out.slice(0, 2));
    const cursor = /--after (\d+)/.exec(pageErr.join(""))![1]!;
    assert.equal(cursor, out[1]!.trim().split(/\s+/)[0]);
    const bad: string[] = [];
    assert.equal(
      await runCli(
        ["events", "--limit", "0", "--base-url", baseUrl, "--token", installed.tokens.accessToken],
        {
          stdout: sink([]),
          stderr: sink(bad),
          env: { MERCHANT_PLATFORM_CONFIG: "/nonexistent/cli.json" },
        },
      ),
      2,
    );
  });
});
