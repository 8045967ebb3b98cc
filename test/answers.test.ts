import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import sharp from "sharp";
import { listenForEvents } from "../src/modules/webhooks/delivery/notifications.ts";
import { consent, REDIRECT } from "./apps-harness.ts";
import { flat, flatPatch } from "./catalogue.ts";
import {
  type Answer,
  type Api,
  apiClient,
  createTestContext,
  formQuery,
  type Json,
  offDocument,
  type ResponseData,
  type Scope,
  setCookies,
  type TestContext,
  text,
} from "./harness.ts";
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
  dashboardUploadProductImport: "CSV imports (test/csv-imports.test.ts)",
  dashboardUploadCustomerImport: "CSV imports (test/csv-imports.test.ts)",
  dashboardListImports: "CSV imports (test/csv-imports.test.ts)",
  dashboardGetImport: "CSV imports (test/csv-imports.test.ts)",
  dashboardRunProductImport: "CSV imports, run by the worker (test/csv-imports.test.ts)",
  dashboardRunCustomerImport: "CSV imports, run by the worker (test/csv-imports.test.ts)",
  dashboardExportProductsCsv: "CSV downloads (test/csv-imports.test.ts)",
  dashboardExportOrdersCsv: "CSV downloads (test/csv-imports.test.ts)",
  dashboardExportCustomersCsv: "CSV downloads (test/csv-imports.test.ts)",
  getProductImageFile: "a WebP file, not JSON (test/product-images.test.ts)",
};

/** A small image for the story's image uploads (the same bytes, so the same answers, every run). */
const SWATCH = sharp({ create: { width: 48, height: 32, channels: 3, background: "#b4573a" } })
  .png()
  .toBuffer()
  .then((b) => b.toString("base64"));

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

/**
 * A test event's data is made up at random (a persona, a sample record): left out of the comparison.
 * Any recorded body, walked as plain JSON.
 */
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
      { frozenClock: true, startAt: Date.parse("2026-11-30T10:00:00.000Z") },
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

  /** A client whose every request is recorded, in order: the request line as sent, the answer as written. */
  function recording(client: Api): Api {
    client.use({
      onResponse({ request, response }) {
        const url = new URL(request.url);
        recorded.push({
          operationId: match(request.method, url.pathname),
          request: `${request.method} ${url.pathname}${url.search}`,
          status: response.status,
          contentType: String(response.headers.get("content-type") ?? ""),
          body: text(response),
        });
      },
    });
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
    const ok = (res: Answer, status = 200) => assert.equal(res.response.status, status, text(res));

    // The merchant and the store (the dashboard's account family).
    const merchant = recording(apiClient(ctx.app));
    ok(
      await merchant.POST("/api/v1/dashboard/auth/signup", {
        body: {
          email: "golden-merchant@example.com",
          password: "correct horse battery",
          name: "Golden Merchant",
        },
      }),
      201,
    );
    ok(await merchant.GET("/api/v1/dashboard/me"));
    await settle();
    ok(
      await merchant.POST("/api/v1/dashboard/stores", { body: { name: "Golden Store", slug: "golden" } }),
      201,
    );
    ok(await merchant.GET("/api/v1/dashboard/stores"));
    await settle();
    ok(await merchant.PATCH("/api/v1/dashboard/account", { body: { name: "Golden M." } }));

    // E-mailed links (issue 32): forgot password, the operator's outbox, a new address confirmed.
    const forgetful = recording(apiClient(ctx.app));
    ok(
      await forgetful.POST("/api/v1/dashboard/auth/signup", {
        body: { email: "golden-second@example.com", password: "correct horse battery", name: "Second" },
      }),
      201,
    );
    ok(
      await forgetful.POST("/api/v1/dashboard/auth/password-reset", {
        body: { email: "golden-second@example.com" },
      }),
      202,
    );
    await ctx.platform.accountLinks.idle();
    await ctx.platform.mail.worker.drain();
    await settle();
    const outboxKey = new URL(ctx.platform.mail.outboxUrl("http://x")!).hash.slice("#key=".length);
    const opened = await recording(apiClient(ctx.app)).POST("/api/v1/dashboard/mail-outbox/session", {
      body: { key: outboxKey },
    });
    ok(opened);
    const outboxCookie = setCookies(opened).find((c) => c.name === "mp_outbox")!;
    // The test client keeps only the session cookie: the outbox's is sent as a browser would.
    const operator = recording(
      apiClient(ctx.app, { headers: { cookie: `mp_outbox=${outboxCookie.value}` } }),
    );
    const outboxList = await operator.GET("/api/v1/dashboard/mail-outbox");
    ok(outboxList);
    const resetMail = await operator.GET("/api/v1/dashboard/mail-outbox/{id}", {
      params: { path: { id: outboxList.data!.data[0]!.id } },
    });
    ok(resetMail);
    const resetToken = /#token=([A-Za-z0-9_.]+)/.exec(resetMail.data!.data.text)![1]!;
    ok(
      await forgetful.POST("/api/v1/dashboard/auth/password-reset/confirm", {
        body: { token: resetToken, newPassword: "a new horse battery" },
      }),
    );
    await settle();
    const mover = recording(apiClient(ctx.app));
    ok(
      await mover.POST("/api/v1/dashboard/auth/login", {
        body: { email: "golden-second@example.com", password: "a new horse battery" },
      }),
    );
    ok(
      await mover.PATCH("/api/v1/dashboard/account", {
        body: { email: "golden-moved@example.com", currentPassword: "a new horse battery" },
      }),
    );
    const confirmMail = await ctx.platform.db
      .selectFrom("mail_messages")
      .select("text_body")
      .where("to_address", "=", "golden-moved@example.com")
      .executeTakeFirstOrThrow();
    ok(
      await mover.POST("/api/v1/dashboard/auth/email-change/confirm", {
        body: { token: /#token=([A-Za-z0-9_.]+)/.exec(confirmMail.text_body)![1]! },
      }),
    );
    await settle();

    // The dashboard's store family.
    ok(await merchant.GET("/api/v1/dashboard/stores/{slug}", { params: { path: { slug: "golden" } } }));
    await settle();
    ok(
      await merchant.PATCH("/api/v1/dashboard/stores/{slug}", {
        params: { path: { slug: "golden" } },
        body: { name: "Golden Store Co.", orderNumberPrefix: "G-" },
      }),
    );
    await settle();
    const mug = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: "golden" } },
        body: flat({ title: "Mug", price: "9.50", stock: 10, sku: "MUG-1" }),
      })
    ).data!.data;
    await settle();
    const cap = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: "golden" } },
        body: flat({ title: "Cap", price: "15.00", stock: 3 }),
      })
    ).data!.data;
    await settle();
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: "golden" } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/products/count", {
        params: { path: { slug: "golden" } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: "golden" }, query: { q: "mug", sort: "price", limit: 1 } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
        params: { path: { slug: "golden", id: mug.id } },
      }),
    );
    ok(
      await merchant.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}", {
        params: { path: { slug: "golden", id: mug.id } },
        body: flatPatch({ stock: 12, description: "Stoneware" }),
      }),
    );
    await settle();
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/products/{id}/app-data", {
        params: { path: { slug: "golden", id: mug.id } },
      }),
    );
    // The catalogue of issue 30 in the dashboard: a product with options, its variants, locations, stock.
    const dressId = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/products", {
        params: { path: { slug: "golden" } },
        body: {
          title: "Dress",
          vendor: "Golden",
          options: [{ name: "Size", values: ["S", "M"] }],
          variants: [
            { optionValues: ["S"], price: "40.00", sku: "DRS-S", inventoryQuantity: 4 },
            { optionValues: ["M"], price: "42.00", sku: "DRS-M", inventoryQuantity: 2 },
          ],
        },
      })
    ).data!.data.id;
    await settle();
    const g = { slug: "golden" };
    const large = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/products/{id}/variants", {
        params: { path: { ...g, id: dressId } },
        body: { optionValues: ["L"], price: "44.00", sku: "DRS-L", inventoryQuantity: 1 },
      })
    ).data!.data;
    await settle();
    ok(
      await merchant.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}/variants/{variantId}", {
        params: { path: { ...g, id: dressId, variantId: large.id } },
        body: { price: "45.00" },
      }),
    );
    await settle();
    const [main] = (await merchant.GET("/api/v1/dashboard/stores/{slug}/locations", { params: { path: g } }))
      .data!.data;
    const annex = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/locations", {
        params: { path: g },
        body: { name: "Annex" },
      })
    ).data!.data;
    await settle();
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/locations/{id}", {
        params: { path: { ...g, id: annex.id } },
      }),
    );
    ok(
      await merchant.PATCH("/api/v1/dashboard/stores/{slug}/locations/{id}", {
        params: { path: { ...g, id: annex.id } },
        body: { fulfilsOnlineOrders: false },
      }),
    );
    await settle();
    ok(
      await merchant.POST("/api/v1/dashboard/stores/{slug}/inventory-levels/adjust", {
        params: { path: g },
        body: { reason: "received", changes: [{ variantId: large.id, locationId: main!.id, delta: 5 }] },
      }),
      201,
    );
    await settle();
    ok(
      await merchant.POST("/api/v1/dashboard/stores/{slug}/inventory-levels/set", {
        params: { path: g },
        body: {
          reason: "cycle_count",
          quantities: [{ variantId: large.id, locationId: main!.id, value: 5, changeFromQuantity: 6 }],
        },
      }),
      201,
    );
    await settle();
    ok(
      await merchant.POST("/api/v1/dashboard/stores/{slug}/inventory-levels/move", {
        params: { path: g },
        body: { variantId: large.id, fromLocationId: main!.id, toLocationId: annex.id, quantity: 2 },
      }),
      201,
    );
    await settle();
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/inventory-levels", {
        params: { path: g, query: { variantId: large.id, locationId: main!.id } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/inventory-changes", {
        params: { path: g, query: { variantId: large.id, locationId: main!.id } },
      }),
    );
    ok(
      await merchant.POST("/api/v1/dashboard/stores/{slug}/inventory-levels/move", {
        params: { path: g },
        body: { variantId: large.id, fromLocationId: annex.id, toLocationId: main!.id, quantity: 2 },
      }),
      201,
    );
    await settle();
    ok(
      await merchant.DELETE("/api/v1/dashboard/stores/{slug}/locations/{id}", {
        params: { path: { ...g, id: annex.id } },
      }),
    );
    await settle();
    ok(
      await merchant.DELETE("/api/v1/dashboard/stores/{slug}/products/{id}/variants/{variantId}", {
        params: { path: { ...g, id: dressId, variantId: large.id } },
      }),
    );
    await settle();
    // Product images (issue 32) in the dashboard: added, described, deleted.
    const swatch = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/products/{id}/images", {
        params: { path: { ...g, id: dressId } },
        body: { attachment: await SWATCH, alt: "Dress swatch" },
      })
    ).data!.data;
    await settle();
    ok(
      await merchant.PATCH("/api/v1/dashboard/stores/{slug}/products/{id}/images/{imageId}", {
        params: { path: { ...g, id: dressId, imageId: swatch.id } },
        body: { alt: "Dress, rust swatch" },
      }),
    );
    await settle();
    ok(
      await merchant.DELETE("/api/v1/dashboard/stores/{slug}/products/{id}/images/{imageId}", {
        params: { path: { ...g, id: dressId, imageId: swatch.id } },
      }),
    );
    await settle();
    // Collections: a manual one in the merchant's order, an automatic one by rules.
    const picks = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/collections", {
        params: { path: g },
        body: { title: "Picks", kind: "manual", productIds: [dressId, mug.id] },
      })
    ).data!.data;
    await settle();
    const golden = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/collections", {
        params: { path: g },
        body: {
          title: "Golden",
          kind: "automatic",
          rules: [{ field: "vendor", relation: "equals", value: "Golden" }],
        },
      })
    ).data!.data;
    await settle();
    ok(await merchant.GET("/api/v1/dashboard/stores/{slug}/collections", { params: { path: g } }));
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/collections/{id}", {
        params: { path: { ...g, id: picks.id } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/collections/{id}/products", {
        params: { path: { ...g, id: picks.id } },
      }),
    );
    ok(
      await merchant.PUT("/api/v1/dashboard/stores/{slug}/collections/{id}/products", {
        params: { path: { ...g, id: picks.id } },
        body: { productIds: [mug.id, dressId, cap.id] },
      }),
    );
    await settle();
    ok(
      await merchant.PATCH("/api/v1/dashboard/stores/{slug}/collections/{id}", {
        params: { path: { ...g, id: golden.id } },
        body: { match: "any", rules: [{ field: "price", relation: "greater_than", value: "30.00" }] },
      }),
    );
    await settle();
    const ana = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: "golden" } },
        body: {
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
        },
      })
    ).data!.data;
    await settle();
    const bo = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: "golden" } },
        body: { email: "bo@example.com", firstName: "Bo" },
      })
    ).data!.data;
    await settle();
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: "golden" } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/customers/count", {
        params: { path: { slug: "golden" } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/customers", {
        params: { path: { slug: "golden" }, query: { q: "ana" } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/customers/{id}", {
        params: { path: { slug: "golden", id: ana.id } },
      }),
    );
    ok(
      await merchant.PATCH("/api/v1/dashboard/stores/{slug}/customers/{id}", {
        params: { path: { slug: "golden", id: ana.id } },
        body: { note: "Prefers mornings" },
      }),
    );
    await settle();
    // Tax rates and discount codes (issue 31).
    const stateTax = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/tax-rates", {
        params: { path: g },
        body: { country: "US", region: "MA", title: "MA Sales Tax", rate: "6.25" },
      })
    ).data!.data;
    ok(
      await merchant.PATCH("/api/v1/dashboard/stores/{slug}/tax-rates/{id}", {
        params: { path: { ...g, id: stateTax.id } },
        body: { title: "Massachusetts Sales Tax" },
      }),
    );
    const gst = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/tax-rates", {
        params: { path: g },
        body: { country: "CA", title: "GST", rate: "5" },
      })
    ).data!.data;
    ok(await merchant.GET("/api/v1/dashboard/stores/{slug}/tax-rates", { params: { path: g } }));
    ok(
      await merchant.DELETE("/api/v1/dashboard/stores/{slug}/tax-rates/{id}", {
        params: { path: { ...g, id: gst.id } },
      }),
    );
    const spring = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/discounts", {
        params: { path: g },
        body: { code: "SPRING10", kind: "percentage", percentage: "10", usageLimit: 100, combinable: true },
      })
    ).data!.data;
    await settle();
    ok(
      await merchant.PATCH("/api/v1/dashboard/stores/{slug}/discounts/{id}", {
        params: { path: { ...g, id: spring.id } },
        body: { minimumSubtotal: "10.00" },
      }),
    );
    await settle();
    const temporary = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/discounts", {
        params: { path: g },
        body: { code: "SHIPFREE", kind: "free_shipping", endsAt: "2027-01-01T00:00:00Z" },
      })
    ).data!.data;
    await settle();
    ok(await merchant.GET("/api/v1/dashboard/stores/{slug}/discounts", { params: { path: g } }));
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/discounts/{id}", {
        params: { path: { ...g, id: spring.id } },
      }),
    );
    ok(
      await merchant.DELETE("/api/v1/dashboard/stores/{slug}/discounts/{id}", {
        params: { path: { ...g, id: temporary.id } },
      }),
    );
    await settle();
    const order = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: "golden" } },
        body: {
          customerId: ana.id,
          // One line: the stock of several products is taken in the order of their (random) ids.
          lineItems: [{ productId: mug.id, quantity: 2 }],
          note: "Gift wrap",
          shippingLines: [{ title: "Ground", price: "4.95", code: "ground" }],
          discountCodes: ["spring10"],
        },
      })
    ).data!.data;
    await settle();
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/orders", { params: { path: { slug: "golden" } } }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/orders/count", {
        params: { path: { slug: "golden" } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/orders", {
        params: { path: { slug: "golden" }, query: { status: "pending" } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", {
        params: { path: { slug: "golden", id: order.id } },
      }),
    );
    ok(
      await merchant.PATCH("/api/v1/dashboard/stores/{slug}/orders/{id}", {
        params: { path: { slug: "golden", id: order.id } },
        body: { tags: ["gift"] },
      }),
    );
    await settle();
    // An edit before it is paid (issue 31, part 5): a third mug, previewed then committed.
    const thirdMug = { lineItems: [{ lineItemId: order.lineItems[0]!.id, quantity: 3 }] };
    ok(
      await merchant.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/edits/preview", {
        params: { path: { slug: "golden", id: order.id } },
        body: thirdMug,
      }),
    );
    ok(
      await merchant.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/edits", {
        params: { path: { slug: "golden", id: order.id } },
        body: { ...thirdMug, note: "A third for the office" },
      }),
      201,
    );
    await settle();
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/edits", {
        params: { path: { slug: "golden", id: order.id } },
      }),
    );
    ok(
      await merchant.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/status", {
        params: { path: { slug: "golden", id: order.id } },
        body: { status: "paid" },
      }),
    );
    await settle();
    // Paid, then a gift box added: 2.00 owed until the merchant records it collected.
    ok(
      await merchant.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/edits", {
        params: { path: { slug: "golden", id: order.id } },
        body: {
          shippingLines: [
            { title: "Ground", price: "4.95", code: "ground" },
            { title: "Gift box", price: "2.00" },
          ],
        },
      }),
      201,
    );
    await settle();
    ok(
      await merchant.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/settle", {
        params: { path: { slug: "golden", id: order.id } },
      }),
    );
    await settle();
    // A refund of one mug, restocked (issue 31).
    const refundBody = { lineItems: [{ lineItemId: order.lineItems[0]!.id, quantity: 1 }], restock: true };
    ok(
      await merchant.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds/calculate", {
        params: { path: { slug: "golden", id: order.id } },
        body: refundBody,
      }),
    );
    ok(
      await merchant.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
        params: { path: { slug: "golden", id: order.id } },
        body: { ...refundBody, note: "Chipped" },
      }),
      201,
    );
    await settle();
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/refunds", {
        params: { path: { slug: "golden", id: order.id } },
      }),
    );
    ok(
      await merchant.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/fulfill", {
        params: { path: { slug: "golden", id: order.id } },
        body: {},
      }),
    );
    await settle();
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/history", {
        params: { path: { slug: "golden", id: order.id } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/webhooks", {
        params: { path: { slug: "golden", id: order.id } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/app-data", {
        params: { path: { slug: "golden", id: order.id } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/customers/{id}/stats", {
        params: { path: { slug: "golden", id: ana.id } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/customers/{id}/app-data", {
        params: { path: { slug: "golden", id: ana.id } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/overview", {
        params: { path: { slug: "golden" } },
      }),
    );
    const key = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: "golden" } },
        body: {
          name: "Golden key",
          scopes: [
            "read_products",
            "write_products",
            "read_inventory",
            "write_inventory",
            "read_orders",
            "read_customers",
          ],
        },
      })
    ).data!.data;
    await settle();
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: "golden" } },
      }),
    );
    ok(
      await merchant.PATCH("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
        params: { path: { slug: "golden", keyId: key.keyId } },
        body: { apiVersion: key.apiVersion },
      }),
    );
    // Staff (issue 32, part 3): an invitation read and accepted by a new account, a role change,
    // an invitation withdrawn, the member removed.
    const invited = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/staff/invitations", {
        params: { path: { slug: "golden" } },
        body: { email: "golden-staff@example.com", role: "orders" },
      })
    ).data!.data;
    await settle();
    const invitationToken = new URL(invited.acceptUrl).hash.replace("#token=", "");
    const staffMember = recording(apiClient(ctx.app));
    ok(await staffMember.POST("/api/v1/dashboard/invitations/lookup", { body: { token: invitationToken } }));
    ok(
      await staffMember.POST("/api/v1/dashboard/auth/signup", {
        body: { email: "golden-staff@example.com", password: "correct horse battery", name: "Golden Staff" },
      }),
      201,
    );
    ok(await staffMember.POST("/api/v1/dashboard/invitations/accept", { body: { token: invitationToken } }));
    await settle();
    const staffList = (
      await merchant.GET("/api/v1/dashboard/stores/{slug}/staff", { params: { path: { slug: "golden" } } })
    ).data!.data;
    const staffAccount = staffList.members.find((m) => m.role === "orders")!.accountId;
    ok(
      await merchant.PATCH("/api/v1/dashboard/stores/{slug}/staff/{accountId}", {
        params: { path: { slug: "golden", accountId: staffAccount } },
        body: { role: "catalogue" },
      }),
    );
    const second = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/staff/invitations", {
        params: { path: { slug: "golden" } },
        body: { email: "golden-reader@example.com", role: "read_only" },
      })
    ).data!.data;
    await settle();
    ok(
      await merchant.DELETE("/api/v1/dashboard/stores/{slug}/staff/invitations/{invitationId}", {
        params: { path: { slug: "golden", invitationId: second.invitation.id } },
      }),
    );
    ok(
      await merchant.DELETE("/api/v1/dashboard/stores/{slug}/staff/{accountId}", {
        params: { path: { slug: "golden", accountId: staffAccount } },
      }),
    );
    await settle();
    // Errors: another store's slug, a malformed body, a missing record.
    assert.equal(
      (
        await merchant.GET("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: "not-mine" } },
        })
      ).response.status,
      404,
    );
    assert.equal(
      (
        await merchant.POST("/api/v1/dashboard/stores/{slug}/products", {
          params: { path: { slug: "golden" } },
          // No price, an empty title: refused.
          body: offDocument({ title: "" }),
        })
      ).response.status,
      400,
    );
    assert.equal(
      (
        await merchant.GET("/api/v1/dashboard/stores/{slug}/orders/{id}", {
          params: { path: { slug: "golden", id: "ord_aaaaaaaaaaaaaaaaaaaaaa" } },
        })
      ).response.status,
      404,
    );

    // An app: registered by its developer, installed by the merchant.
    const developer = recording(apiClient(ctx.app));
    ok(
      await developer.POST("/api/v1/dashboard/auth/signup", {
        body: {
          email: "golden-developer@example.com",
          password: "correct horse battery",
          name: "Golden Developer",
        },
      }),
      201,
    );
    await settle();
    const scopes: Scope[] = [
      "read_products",
      "write_products",
      "read_orders",
      "write_orders",
      "read_customers",
      "write_customers",
      "read_inventory",
      "write_inventory",
      "read_discounts",
      "write_discounts",
      "read_returns",
      "write_returns",
      "manage_webhooks",
    ];
    const registered = (
      await developer.POST("/api/v1/dashboard/apps", {
        body: { name: "Golden App", redirectUris: [REDIRECT], scopes },
      })
    ).data!.data;
    await settle();
    ok(await developer.GET("/api/v1/dashboard/apps"));
    ok(
      await developer.GET("/api/v1/dashboard/apps/{clientId}", {
        params: { path: { clientId: registered.clientId } },
      }),
    );
    ok(
      await developer.PATCH("/api/v1/dashboard/apps/{clientId}", {
        params: { path: { clientId: registered.clientId } },
        body: {
          name: "Golden App 2",
          privacyWebhookUrl: `${receiver.url}/privacy`,
        },
      }),
    );
    await settle();
    // Its listing in the app directory, published at once.
    ok(
      await developer.PUT("/api/v1/dashboard/apps/{clientId}/listing", {
        params: { path: { clientId: registered.clientId } },
        body: {
          tagline: "Everything a golden store needs",
          description: "Syncs products, orders and stock.",
          appUrl: "https://app.example.com/",
          supportEmail: "help@app.example.com",
          iconColor: "indigo",
          status: "published",
        },
      }),
    );
    ok(
      await developer.GET("/api/v1/dashboard/apps/{clientId}/listing", {
        params: { path: { clientId: registered.clientId } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/oauth/consent", {
        params: {
          query: {
            client_id: registered.clientId,
            redirect_uri: REDIRECT,
            scope: scopes.join(" "),
            state: "st",
            response_type: "code",
          },
        },
        // As a browser's form writes it (a space is "+"), the request line the fixture recorded.
        querySerializer: formQuery,
      }),
    );
    const { code } = await consent({ client: merchant, slug: "golden" }, registered.clientId, scopes);
    await settle();
    const exchanged = await recording(apiClient(ctx.app)).POST("/api/v1/apps/token", {
      body: {
        slug: "golden",
        code,
        redirectUri: REDIRECT,
        clientId: registered.clientId,
        clientSecret: registered.clientSecret,
      },
    });
    ok(exchanged);
    await settle();
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/installations", {
        params: { path: { slug: "golden" } },
      }),
    );
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/app-directory", {
        params: { path: { slug: "golden" }, query: { q: "golden" } },
      }),
    );

    // The Admin API.
    const api = recording(
      apiClient(ctx.app, { headers: { authorization: `Bearer ${exchanged.data!.data.accessToken}` } }),
    );
    ok(await api.GET("/api/v1/apps/api/store"));
    const hooks: Array<ResponseData<"/api/v1/apps/api/webhooks", "post">> = [];
    for (const [eventName, path] of [
      ["product.created", "/ok"],
      ["order.created", "/fail"],
      ["customer.created", "/gone"],
      ["order.paid", "/ok"],
    ] as const) {
      const created = await api.POST("/api/v1/apps/api/webhooks", {
        body: { eventName, targetUrl: `${receiver.url}${path}` },
      });
      ok(created, 201);
      hooks.push(created.data!.data);
      await settle();
    }
    ok(await api.GET("/api/v1/apps/api/webhooks"));
    ok(
      await api.PATCH("/api/v1/apps/api/webhooks/{id}", {
        params: { path: { id: hooks[0]!.id } },
        body: { apiVersion: hooks[0]!.apiVersion },
      }),
    );
    const tee = (
      await api.POST("/api/v1/apps/api/products", {
        body: flat({ title: "Tee", price: "20.00", stock: 5, metadata: { erpId: "E-1" } }),
      })
    ).data!.data;
    await settle();
    ok(await api.GET("/api/v1/apps/api/products"));
    ok(await api.GET("/api/v1/apps/api/products/count"));
    ok(await api.GET("/api/v1/apps/api/products/{id}", { params: { path: { id: tee.id } } }));
    ok(
      await api.PATCH("/api/v1/apps/api/products/{id}", {
        params: { path: { id: tee.id } },
        body: flatPatch({ price: "21.00", metadata: { erpId: null, bin: "B2" } }),
      }),
    );
    await settle();
    const cy = (
      await api.POST("/api/v1/apps/api/customers", {
        body: { email: "cy@example.com", firstName: "Cy", metadata: { crm: "C-9" } },
      })
    ).data!.data;
    await settle();
    ok(await api.GET("/api/v1/apps/api/customers"));
    ok(await api.GET("/api/v1/apps/api/customers/count"));
    ok(await api.GET("/api/v1/apps/api/customers/{id}", { params: { path: { id: cy.id } } }));
    ok(
      await api.PATCH("/api/v1/apps/api/customers/{id}", {
        params: { path: { id: cy.id } },
        body: { lastName: "Young" },
      }),
    );
    await settle();
    const appOrder = await api.POST("/api/v1/apps/api/orders", {
      body: {
        customerId: cy.id,
        lineItems: [{ productId: tee.id, quantity: 2 }],
        metadata: { shipment: "S-1" },
      },
      headers: { "idempotency-key": "golden-order-1" },
    });
    ok(appOrder, 201);
    await settle();
    // The same key again: the stored answer.
    ok(
      await api.POST("/api/v1/apps/api/orders", {
        body: {
          customerId: cy.id,
          lineItems: [{ productId: tee.id, quantity: 2 }],
          metadata: { shipment: "S-1" },
        },
        headers: { "idempotency-key": "golden-order-1" },
      }),
      201,
    );
    ok(await api.GET("/api/v1/apps/api/orders"));
    ok(await api.GET("/api/v1/apps/api/orders/count"));
    ok(await api.GET("/api/v1/apps/api/orders/{id}", { params: { path: { id: appOrder.data!.data.id } } }));
    // The app refunds the merchant's order's second mug (paid above).
    const appRefund = { lineItems: [{ lineItemId: order.lineItems[0]!.id, quantity: 1 }] };
    ok(
      await api.POST("/api/v1/apps/api/orders/{id}/refunds/calculate", {
        params: { path: { id: order.id } },
        body: appRefund,
      }),
    );
    ok(
      await api.POST("/api/v1/apps/api/orders/{id}/refunds", {
        params: { path: { id: order.id } },
        body: appRefund,
      }),
      201,
    );
    await settle();
    ok(await api.GET("/api/v1/apps/api/orders/{id}/refunds", { params: { path: { id: order.id } } }));
    ok(
      await api.PATCH("/api/v1/apps/api/orders/{id}", {
        params: { path: { id: appOrder.data!.data.id } },
        body: { note: "Leave at door" },
      }),
    );
    await settle();
    ok(
      await api.POST("/api/v1/apps/api/orders/{id}/status", {
        params: { path: { id: appOrder.data!.data.id } },
        body: { status: "paid" },
      }),
    );
    await settle();
    // The app adds shipping to its paid order: 4.00 owed until the merchant's provider collects it.
    const appOrderPath = { params: { path: { id: appOrder.data!.data.id } } };
    ok(
      await api.POST("/api/v1/apps/api/orders/{id}/edits/preview", {
        ...appOrderPath,
        body: { shippingLines: [{ title: "Courier", price: "4.00" }] },
      }),
    );
    ok(
      await api.POST("/api/v1/apps/api/orders/{id}/edits", {
        ...appOrderPath,
        body: { shippingLines: [{ title: "Courier", price: "4.00" }], note: "Courier asked for" },
      }),
      201,
    );
    await settle();
    ok(await api.GET("/api/v1/apps/api/orders/{id}/edits", appOrderPath));
    ok(await api.POST("/api/v1/apps/api/orders/{id}/settle", appOrderPath));
    await settle();
    // Returns (issue 31, part 4) of the app's order, shipped: one tee through the dashboard, approved,
    // received and closed (refunded); one through the Admin API, declined, then requested again.
    const appOrderId = appOrder.data!.data.id;
    // Fulfilled in one action: confirmed, then shipped with its tracking.
    ok(
      await api.POST("/api/v1/apps/api/orders/{id}/fulfill", {
        params: { path: { id: appOrderId } },
        body: { fulfillment: { carrier: "UPS", trackingNumber: "1Z-GOLDEN" } },
      }),
    );
    await settle();
    const teeLine = appOrder.data!.data.lineItems[0]!.id;
    const byMerchant = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/orders/{id}/returns", {
        params: { path: { slug: "golden", id: appOrderId } },
        body: {
          lineItems: [{ lineItemId: teeLine, quantity: 1, reason: "size_too_small" }],
          note: "Too tight",
        },
      })
    ).data!.data;
    await settle();
    const ret = { params: { path: { slug: "golden", id: byMerchant.id } } };
    ok(await merchant.GET("/api/v1/dashboard/stores/{slug}/returns/{id}", ret));
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/orders/{id}/returns", {
        params: { path: { slug: "golden", id: appOrderId } },
      }),
    );
    ok(await merchant.POST("/api/v1/dashboard/stores/{slug}/returns/{id}/approve", ret));
    await settle();
    ok(await merchant.POST("/api/v1/dashboard/stores/{slug}/returns/{id}/receive", { ...ret, body: {} }));
    await settle();
    ok(await merchant.POST("/api/v1/dashboard/stores/{slug}/returns/{id}/close", { ...ret, body: {} }));
    await settle();
    const requestReturn = () =>
      api.POST("/api/v1/apps/api/orders/{id}/returns", {
        params: { path: { id: appOrderId } },
        body: { lineItems: [{ lineItemId: teeLine, quantity: 1, reason: "defective" }] },
      });
    const declined = await requestReturn();
    ok(declined, 201);
    await settle();
    ok(await api.GET("/api/v1/apps/api/returns/{id}", { params: { path: { id: declined.data!.data.id } } }));
    ok(
      await api.POST("/api/v1/apps/api/returns/{id}/decline", {
        params: { path: { id: declined.data!.data.id } },
      }),
    );
    await settle();
    const declinedByMerchant = (await requestReturn()).data!.data;
    await settle();
    ok(
      await merchant.POST("/api/v1/dashboard/stores/{slug}/returns/{id}/decline", {
        params: { path: { slug: "golden", id: declinedByMerchant.id } },
      }),
    );
    await settle();
    const again = (await requestReturn()).data!.data;
    await settle();
    ok(await api.GET("/api/v1/apps/api/orders/{id}/returns", { params: { path: { id: appOrderId } } }));
    ok(await api.POST("/api/v1/apps/api/returns/{id}/approve", { params: { path: { id: again.id } } }));
    await settle();
    ok(
      await api.POST("/api/v1/apps/api/returns/{id}/receive", {
        params: { path: { id: again.id } },
        body: { restock: false },
      }),
    );
    await settle();
    ok(
      await api.POST("/api/v1/apps/api/returns/{id}/close", {
        params: { path: { id: again.id } },
        body: { refund: false },
      }),
    );
    await settle();
    ok(await api.POST("/api/v1/apps/api/webhooks/test", { body: { event: "product.created" } }), 202);
    await settle();
    ok(await api.GET("/api/v1/apps/api/events"));
    ok(
      await api.GET("/api/v1/apps/api/events", {
        params: { query: { types: "order.created,order.paid", limit: 2 } },
        // The comma as written (the request line the fixture recorded).
        querySerializer: { allowReserved: true },
      }),
    );
    ok(await api.GET("/api/v1/apps/api/webhooks/deliveries"));
    ok(await api.GET("/api/v1/apps/api/webhooks/deliveries", { params: { query: { status: "failed" } } }));
    ok(await api.GET("/api/v1/apps/api/webhooks/listen-sessions"));
    const delivered = (
      await api.GET("/api/v1/apps/api/webhooks/deliveries", { params: { query: { status: "delivered" } } })
    ).data!.data;
    ok(
      await api.POST("/api/v1/apps/api/webhooks/deliveries/{id}/redeliver", {
        params: { path: { id: delivered[0]!.id } },
      }),
      201,
    );
    await settle();
    ok(
      await api.POST("/api/v1/apps/api/webhooks/{id}/recover", {
        params: { path: { id: hooks[1]!.id } },
        body: { since: new Date(0).toISOString() },
      }),
    );
    await settle();
    ok(
      await api.POST("/api/v1/apps/api/webhooks/{id}/secret", { params: { path: { id: hooks[0]!.id } } }),
      201,
    );
    await settle();
    // customer.created went to /gone (410): that subscription is disabled.
    ok(
      await api.POST("/api/v1/apps/api/webhooks/{id}/enable", {
        params: { path: { id: hooks[2]!.id } },
        body: {},
      }),
    );
    await settle();
    // An export is JSON Lines: read as text, which is what is recorded.
    ok(await api.GET("/api/v1/apps/api/export/products", { parseAs: "text" }));
    ok(await api.GET("/api/v1/apps/api/export/orders", { parseAs: "text" }));
    ok(await api.GET("/api/v1/apps/api/export/customers", { parseAs: "text" }));
    ok(
      await api.GET("/api/v1/apps/api/export/products", {
        params: { query: { updatedSince: new Date(0).toISOString() } },
        parseAs: "text",
      }),
    );
    ok(await api.DELETE("/api/v1/apps/api/products/{id}", { params: { path: { id: tee.id } } }));
    await settle();
    // Discount codes through the Admin API.
    ok(await api.GET("/api/v1/apps/api/discounts"));
    ok(await api.GET("/api/v1/apps/api/discounts/{id}", { params: { path: { id: spring.id } } }));
    const appCode = (
      await api.POST("/api/v1/apps/api/discounts", {
        body: {
          code: "APP-5",
          kind: "fixed_amount",
          value: "5.00",
          allocation: "each",
          productIds: [mug.id],
        },
      })
    ).data!.data;
    await settle();
    ok(
      await api.PATCH("/api/v1/apps/api/discounts/{id}", {
        params: { path: { id: appCode.id } },
        body: { status: "paused" },
      }),
    );
    await settle();
    ok(await api.DELETE("/api/v1/apps/api/discounts/{id}", { params: { path: { id: appCode.id } } }));
    await settle();
    // Collections through the Admin API.
    ok(await api.GET("/api/v1/apps/api/collections"));
    ok(await api.GET("/api/v1/apps/api/collections/{id}", { params: { path: { id: golden.id } } }));
    ok(await api.GET("/api/v1/apps/api/collections/{id}/products", { params: { path: { id: golden.id } } }));
    const sale = (await api.POST("/api/v1/apps/api/collections", { body: { title: "Sale", kind: "manual" } }))
      .data!.data;
    await settle();
    ok(
      await api.PUT("/api/v1/apps/api/collections/{id}/products", {
        params: { path: { id: sale.id } },
        body: { productIds: [cap.id] },
      }),
    );
    await settle();
    ok(
      await api.PATCH("/api/v1/apps/api/collections/{id}", {
        params: { path: { id: sale.id } },
        body: { title: "Sale!" },
      }),
    );
    await settle();
    ok(await api.DELETE("/api/v1/apps/api/collections/{id}", { params: { path: { id: sale.id } } }));
    await settle();
    // The catalogue of issue 30 through the Admin API.
    const [home] = (await api.GET("/api/v1/apps/api/locations")).data!.data;
    const depot = (await api.POST("/api/v1/apps/api/locations", { body: { name: "Depot" } })).data!.data;
    await settle();
    ok(await api.GET("/api/v1/apps/api/locations/{id}", { params: { path: { id: depot.id } } }));
    ok(
      await api.PATCH("/api/v1/apps/api/locations/{id}", {
        params: { path: { id: depot.id } },
        body: { name: "Depot 2" },
      }),
    );
    await settle();
    const xl = (
      await api.POST("/api/v1/apps/api/products/{id}/variants", {
        params: { path: { id: dressId } },
        body: { optionValues: ["XL"], price: "46.00", sku: "DRS-XL" },
      })
    ).data!.data;
    await settle();
    ok(
      await api.PATCH("/api/v1/apps/api/products/{id}/variants/{variantId}", {
        params: { path: { id: dressId, variantId: xl.id } },
        body: { barcode: "4006381333931" },
      }),
    );
    await settle();
    ok(
      await api.POST("/api/v1/apps/api/inventory-levels/adjust", {
        body: { reason: "received", changes: [{ variantId: xl.id, locationId: home!.id, delta: 3 }] },
      }),
      201,
    );
    await settle();
    ok(
      await api.POST("/api/v1/apps/api/inventory-levels/set", {
        body: {
          reason: "correction",
          quantities: [{ variantId: xl.id, locationId: home!.id, value: 4, changeFromQuantity: 3 }],
        },
      }),
      201,
    );
    await settle();
    ok(
      await api.POST("/api/v1/apps/api/inventory-levels/move", {
        body: { variantId: xl.id, fromLocationId: home!.id, toLocationId: depot.id, quantity: 1 },
      }),
      201,
    );
    await settle();
    ok(
      await api.GET("/api/v1/apps/api/inventory-levels", {
        params: { query: { variantId: xl.id, locationId: home!.id } },
      }),
    );
    ok(
      await api.GET("/api/v1/apps/api/inventory-changes", {
        params: { query: { variantId: xl.id, locationId: home!.id } },
      }),
    );
    ok(
      await api.GET("/api/v1/apps/api/export/inventory", {
        params: { query: { locationId: depot.id } },
        parseAs: "text",
      }),
    );
    ok(
      await api.POST("/api/v1/apps/api/inventory-levels/adjust", {
        body: { reason: "damaged", changes: [{ variantId: xl.id, locationId: depot.id, delta: -1 }] },
      }),
      201,
    );
    await settle();
    ok(await api.DELETE("/api/v1/apps/api/locations/{id}", { params: { path: { id: depot.id } } }));
    await settle();
    ok(
      await api.DELETE("/api/v1/apps/api/products/{id}/variants/{variantId}", {
        params: { path: { id: dressId, variantId: xl.id } },
      }),
    );
    await settle();
    const appSwatch = (
      await api.POST("/api/v1/apps/api/products/{id}/images", {
        params: { path: { id: dressId } },
        body: { attachment: await SWATCH, alt: "From the app" },
      })
    ).data!.data;
    await settle();
    ok(
      await api.PATCH("/api/v1/apps/api/products/{id}/images/{imageId}", {
        params: { path: { id: dressId, imageId: appSwatch.id } },
        body: { position: 0 },
      }),
    );
    await settle();
    ok(
      await api.DELETE("/api/v1/apps/api/products/{id}/images/{imageId}", {
        params: { path: { id: dressId, imageId: appSwatch.id } },
      }),
    );
    await settle();
    ok(await api.DELETE("/api/v1/apps/api/webhooks/{id}", { params: { path: { id: hooks[3]!.id } } }));
    await settle();
    assert.equal(
      (
        await api.GET("/api/v1/apps/api/products/{id}", {
          params: { path: { id: "prod_aaaaaaaaaaaaaaaaaaaaaa" } },
        })
      ).response.status,
      404,
    );
    assert.equal(
      (await api.POST("/api/v1/apps/api/orders", { body: { lineItems: [] } })).response.status,
      400,
    );
    assert.equal(
      (await api.GET("/api/v1/apps/api/events", { params: { query: { after: "999999999" } } })).response
        .status,
      400,
    );

    // The developer's view of its app's deliveries (the dashboard's account family).
    ok(
      await developer.GET("/api/v1/dashboard/apps/{clientId}/deliveries", {
        params: { path: { clientId: registered.clientId } },
      }),
    );
    ok(
      await developer.GET("/api/v1/dashboard/apps/{clientId}/webhooks", {
        params: { path: { clientId: registered.clientId } },
      }),
    );
    ok(
      await developer.GET("/api/v1/dashboard/apps/{clientId}/listen-sessions", {
        params: { path: { clientId: registered.clientId } },
      }),
    );
    ok(
      await developer.GET("/api/v1/dashboard/apps/{clientId}/deprecated-calls", {
        params: { path: { clientId: registered.clientId } },
      }),
    );
    const failed = (
      await developer.GET("/api/v1/dashboard/apps/{clientId}/deliveries", {
        params: { path: { clientId: registered.clientId }, query: { status: "failed" } },
      })
    ).data!.data;
    ok(
      await developer.POST("/api/v1/dashboard/apps/{clientId}/deliveries/{id}/redeliver", {
        params: { path: { clientId: registered.clientId, id: failed[0]!.id } },
      }),
      201,
    );
    await settle();
    ok(
      await developer.POST("/api/v1/dashboard/apps/{clientId}/webhooks/recover", {
        params: { path: { clientId: registered.clientId } },
        body: {
          subscriptionId: hooks[1]!.id,
          since: new Date(0).toISOString(),
        },
      }),
    );
    await settle();
    const disabledAgain = (
      await developer.GET("/api/v1/dashboard/apps/{clientId}/webhooks", {
        params: { path: { clientId: registered.clientId } },
      })
    ).data!.data;
    const toEnable = disabledAgain.find((s) => s.status === "disabled") ?? disabledAgain[0]!;
    ok(
      await developer.POST("/api/v1/dashboard/apps/{clientId}/webhooks/{id}/enable", {
        params: { path: { clientId: registered.clientId, id: toEnable.id } },
        body: {},
      }),
    );
    await settle();
    const rotated = await developer.POST("/api/v1/dashboard/apps/{clientId}/secret", {
      params: { path: { clientId: registered.clientId } },
    });
    ok(rotated, 200);
    await settle();

    // The developer API.
    const dev = recording(
      apiClient(ctx.app, { headers: { "x-api-key": key.keyId, "x-api-secret": key.secret } }),
    );
    ok(await dev.GET("/api/v1/developer/store"));
    ok(await dev.GET("/api/v1/developer/products"));
    ok(await dev.GET("/api/v1/developer/products", { params: { query: { page: 2, perPage: 1 } } }));
    const hat = (
      await dev.POST("/api/v1/developer/products", { body: flat({ title: "Hat", price: "12.00", stock: 4 }) })
    ).data!.data;
    await settle();
    ok(await dev.GET("/api/v1/developer/products/{id}", { params: { path: { id: hat.id } } }));
    ok(
      await dev.PATCH("/api/v1/developer/products/{id}", {
        params: { path: { id: hat.id } },
        body: { title: "Sun hat" },
      }),
    );
    await settle();
    ok(await dev.GET("/api/v1/developer/customers"));
    ok(await dev.GET("/api/v1/developer/customers/{id}", { params: { path: { id: ana.id } } }));
    ok(await dev.GET("/api/v1/developer/orders"));
    ok(await dev.GET("/api/v1/developer/orders/{id}", { params: { path: { id: order.id } } }));
    ok(await dev.GET("/api/v1/developer/export/products", { parseAs: "text" }));
    ok(await dev.GET("/api/v1/developer/export/orders", { parseAs: "text" }));
    ok(await dev.GET("/api/v1/developer/export/customers", { parseAs: "text" }));
    // Collections through the developer API.
    ok(await dev.GET("/api/v1/developer/collections"));
    ok(await dev.GET("/api/v1/developer/collections/{id}", { params: { path: { id: picks.id } } }));
    ok(await dev.GET("/api/v1/developer/collections/{id}/products", { params: { path: { id: picks.id } } }));
    ok(
      await merchant.DELETE("/api/v1/dashboard/stores/{slug}/collections/{id}", {
        params: { path: { ...g, id: golden.id } },
      }),
    );
    await settle();
    // The catalogue of issue 30 through the developer API.
    const [shop] = (await dev.GET("/api/v1/developer/locations")).data!.data;
    const tall = (
      await dev.POST("/api/v1/developer/products/{id}/variants", {
        params: { path: { id: dressId } },
        body: { optionValues: ["XS"], price: "38.00", sku: "DRS-XS", inventoryQuantity: 2 },
      })
    ).data!.data;
    await settle();
    ok(
      await dev.PATCH("/api/v1/developer/products/{id}/variants/{variantId}", {
        params: { path: { id: dressId, variantId: tall.id } },
        body: { weightGrams: 300 },
      }),
    );
    await settle();
    ok(
      await dev.POST("/api/v1/developer/inventory-levels/adjust", {
        body: { reason: "restock", changes: [{ variantId: tall.id, locationId: shop!.id, delta: 1 }] },
      }),
      201,
    );
    await settle();
    ok(
      await dev.POST("/api/v1/developer/inventory-levels/set", {
        body: {
          reason: "cycle_count",
          quantities: [{ variantId: tall.id, locationId: shop!.id, value: 2, changeFromQuantity: null }],
        },
      }),
      201,
    );
    await settle();
    const spare = (
      await merchant.POST("/api/v1/dashboard/stores/{slug}/locations", {
        params: { path: g },
        body: { name: "Spare" },
      })
    ).data!.data;
    await settle();
    ok(
      await dev.POST("/api/v1/developer/inventory-levels/move", {
        body: { variantId: tall.id, fromLocationId: shop!.id, toLocationId: spare.id, quantity: 1 },
      }),
      201,
    );
    await settle();
    ok(
      await dev.GET("/api/v1/developer/inventory-levels", {
        params: { query: { variantId: tall.id, locationId: spare.id } },
      }),
    );
    ok(await dev.GET("/api/v1/developer/inventory-changes", { params: { query: { locationId: spare.id } } }));
    ok(await dev.GET("/api/v1/developer/export/inventory", { parseAs: "text" }));
    ok(
      await dev.DELETE("/api/v1/developer/products/{id}/variants/{variantId}", {
        params: { path: { id: dressId, variantId: tall.id } },
      }),
    );
    await settle();
    const devSwatch = (
      await dev.POST("/api/v1/developer/products/{id}/images", {
        params: { path: { id: dressId } },
        body: { attachment: await SWATCH, alt: "Developer swatch" },
      })
    ).data!.data;
    await settle();
    ok(
      await dev.PATCH("/api/v1/developer/products/{id}/images/{imageId}", {
        params: { path: { id: dressId, imageId: devSwatch.id } },
        body: { variantId: null, alt: "Any size" },
      }),
    );
    await settle();
    ok(
      await dev.DELETE("/api/v1/developer/products/{id}/images/{imageId}", {
        params: { path: { id: dressId, imageId: devSwatch.id } },
      }),
    );
    await settle();
    ok(await dev.DELETE("/api/v1/developer/products/{id}", { params: { path: { id: hat.id } } }));
    await settle();
    assert.equal(
      (await dev.GET("/api/v1/developer/products", { params: { query: { page: 0 } } })).response.status,
      400,
    );
    assert.equal(
      (
        await dev.GET("/api/v1/developer/orders/{id}", {
          params: { path: { id: "ord_aaaaaaaaaaaaaaaaaaaaaa" } },
        })
      ).response.status,
      404,
    );

    // Refresh, then the end of the installation, the key and the app.
    const refreshed = await recording(apiClient(ctx.app)).POST("/api/v1/apps/token/refresh", {
      body: {
        slug: "golden",
        refreshToken: exchanged.data!.data.refreshToken,
        clientId: registered.clientId,
        clientSecret: rotated.data!.data.clientSecret,
      },
    });
    ok(refreshed);
    await settle();
    ok(await recording(apiClient(ctx.app)).GET("/.well-known/oauth-authorization-server"));
    ok(await recording(apiClient(ctx.app)).GET("/api/versions"));
    ok(
      await merchant.POST("/api/v1/dashboard/stores/{slug}/customers/{id}/data-requests", {
        params: { path: { slug: "golden", id: ana.id } },
      }),
      201,
    );
    await settle();
    ok(
      await merchant.GET("/api/v1/dashboard/stores/{slug}/customers/{id}/data-requests", {
        params: { path: { slug: "golden", id: ana.id } },
      }),
    );
    ok(
      await merchant.DELETE("/api/v1/dashboard/stores/{slug}/products/{id}", {
        params: { path: { slug: "golden", id: cap.id } },
      }),
    );
    await settle();
    ok(
      await merchant.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
        params: { path: { slug: "golden", id: bo.id } },
      }),
    );
    await settle();
    ok(
      await merchant.DELETE("/api/v1/dashboard/stores/{slug}/customers/{id}", {
        params: { path: { slug: "golden", id: ana.id } },
      }),
    );
    await settle();
    ok(
      await merchant.DELETE("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
        params: { path: { slug: "golden", keyId: key.keyId } },
      }),
    );
    await settle();
    ok(
      await merchant.DELETE("/api/v1/dashboard/stores/{slug}/installations/{clientId}", {
        params: { path: { slug: "golden", clientId: registered.clientId } },
      }),
    );
    await settle();
    ok(
      await developer.POST("/api/v1/dashboard/apps/{clientId}/privacy-secret", {
        params: { path: { clientId: registered.clientId } },
      }),
      200,
    );
    await settle();
    ok(
      await developer.DELETE("/api/v1/dashboard/apps/{clientId}", {
        params: { path: { clientId: registered.clientId } },
      }),
    );
    await settle();
    ok(await merchant.POST("/api/v1/dashboard/auth/logout"));
    ok(
      await merchant.POST("/api/v1/dashboard/auth/login", {
        body: {
          email: "golden-merchant@example.com",
          password: "correct horse battery",
        },
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
