import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { API_VERSION, createAdminClient } from "@merchant-platform/sdk";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { run as runCli } from "../packages/cli/src/commands.ts";
import type { VersionSpec } from "../src/modules/versions/api-versions.ts";
import { CATALOGUE_VERSION, catalogue } from "../src/modules/versions/changes/2026-11-29-catalogue.ts";
import { type Json as Any, defineVersionChange } from "../src/modules/versions/version-change.ts";
import { installedApp } from "./apps-harness.ts";
import { flat } from "./catalogue.ts";
import {
  type Answer,
  type Api,
  apiClient,
  detailsOf,
  type EventBody,
  errorCode,
  fieldErrors,
  type Json,
  merchantWithStore,
  offDocument,
  offDocumentRequest,
  text,
} from "./harness.ts";
import { openApiChecker } from "./openapi-assert.ts";
import { fetchDocument } from "./openapi-doc.ts";
import { startReceiver } from "./receiver.ts";
import { createWebhookContext, waitUntil } from "./webhooks-harness.ts";

/**
 * Dated API versions (issue 29) through the whole platform, with a version change made up for
 * the test: before 2026-11-29 a product's `title` was called `name` (and, really, it had no variants). The change is one module
 * (below) and nothing else knows of it; the older version's requests, answers, webhook bodies,
 * event feed, exports and document keep `name`, the newer ones `title`.
 */

const OLD = "2026-06-01";
/** The newest version, which also brought variants (the real change of issue 30 rides along). */
const NEW = CATALOGUE_VERSION;
const renameBody = ({ name, ...rest }: Any) => (name === undefined ? rest : { ...rest, title: name });
const renameSchema = (schema: Any) => {
  const { title: field, ...properties } = schema.properties ?? {};
  if (!field) return schema;
  return {
    ...schema,
    properties: { ...properties, name: field },
    ...(schema.required
      ? { required: schema.required.map((r: string) => (r === "title" ? "name" : r)) }
      : {}),
  };
};
const productsAreTitled = defineVersionChange({
  version: NEW,
  description: "Products are titled: a product's `name` is now `title`.",
  resources: { Product: ({ title, ...rest }) => ({ ...rest, name: title }) },
  requests: {
    adminCreateProduct: renameBody,
    adminUpdateProduct: renameBody,
    developerCreateProduct: renameBody,
    developerUpdateProduct: renameBody,
  },
  schemas: { Product: renameSchema },
  requestSchemas: {
    adminCreateProduct: renameSchema,
    adminUpdateProduct: renameSchema,
    developerCreateProduct: renameSchema,
    developerUpdateProduct: renameSchema,
  },
});
const VERSIONS: VersionSpec[] = [
  { version: OLD, changes: [], deprecation: { at: NEW, sunset: "2027-12-01" } },
  { version: NEW, changes: [productsAreTitled, catalogue] },
];
/** A fixed time after both releases, before the old one's sunset. */
const START = Date.parse("2027-01-15T10:00:00.000Z");
const ADMIN = "/api/v1/apps/api";

describe("API versions: pins, headers, and a version change through every path", () => {
  let ctx: Awaited<ReturnType<typeof createWebhookContext>>;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    ctx = await createWebhookContext({}, { apiVersions: VERSIONS, startAt: START });
    rx = await startReceiver();
  });
  after(async () => {
    await rx?.close();
    await ctx?.close();
  });

  it("every answer carries Api-Version, errors too; the header chooses, else the credential's pin; anything else is a 400", async () => {
    const app = await installedApp(ctx.app, ["read_products", "write_products"]);
    assert.equal(app.tokens.accessToken.length > 0, true);
    const plain = await app.api.GET("/api/v1/apps/api/products");
    assert.equal(plain.response.status, 200);
    assert.equal(
      plain.response.headers.get("api-version"),
      NEW,
      "a new app is pinned to the current version",
    );
    assert.equal(plain.response.headers.get("deprecation"), null);
    const old = await app.api.GET("/api/v1/apps/api/products", { headers: { "api-version": OLD } });
    assert.equal(old.response.headers.get("api-version"), OLD);
    // RFC 9745 and RFC 8594: the deprecation's instant, the sunset as an HTTP date, the changelog.
    assert.equal(old.response.headers.get("deprecation"), `@${Date.parse(`${NEW}T00:00:00Z`) / 1000}`);
    assert.equal(old.response.headers.get("sunset"), new Date("2027-12-01T00:00:00Z").toUTCString());
    assert.match(
      String(old.response.headers.get("link")),
      /<http[^>]+\/api\/docs\/changelog>; rel="deprecation"/,
    );
    for (const [headers, what] of [
      [{}, "no token"],
      [{ authorization: "Bearer mpat_nope" }, "a bad token"],
    ] as const) {
      const refused = await apiClient(ctx.app, { headers: headers }).GET("/api/v1/apps/api/products");
      assert.equal(refused.response.status, 401, what);
      assert.equal(refused.response.headers.get("api-version"), NEW, `${what}: the current version`);
    }
    const missing = await app.api.GET("/api/v1/apps/api/products/{id}", {
      params: { path: { id: "prod_aaaaaaaaaaaaaaaaaaaaaa" } },
      headers: {
        "api-version": OLD,
      },
    });
    assert.equal(missing.response.status, 404, text(missing));
    assert.equal(missing.response.headers.get("api-version"), OLD);
    for (const bad of ["2026-6-1", "latest", "2026-07-01", "2027-02-30", `${NEW},${OLD}`]) {
      const refused = await app.api.GET("/api/v1/apps/api/products", { headers: { "api-version": bad } });
      assert.equal(refused.response.status, 400, bad);
      assert.equal(refused.error!.error.code, "UNSUPPORTED_API_VERSION");
      assert.deepEqual(detailsOf(refused).supported, [OLD, NEW]);
      assert.equal(refused.response.headers.get("api-version"), NEW);
    }
    // The developer API too.
    const merchant = await merchantWithStore(ctx.app);
    const key = (
      await merchant.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: merchant.slug } },
        body: { name: "v", scopes: ["read_products"] },
      })
    ).data!.data;
    assert.equal(key.apiVersion, NEW, "a new key pair is pinned to the current version");
    const dev = apiClient(ctx.app, { headers: { "x-api-key": key.keyId, "x-api-secret": key.secret } });
    assert.equal((await dev.GET("/api/v1/developer/store")).response.headers.get("api-version"), NEW);
    assert.equal(
      (await dev.GET("/api/v1/developer/store", { headers: { "api-version": OLD } })).response.headers.get(
        "api-version",
      ),
      OLD,
    );
    assert.equal(
      (await dev.GET("/api/v1/developer/store", { headers: { "api-version": "x" } })).response.status,
      400,
    );
    // Listed publicly, with their status.
    const listed = await apiClient(ctx.app).GET("/api/versions");
    assert.deepEqual(
      listed.data!.data.map((v) => [v.version, v.status, v.deprecatedAt, v.sunsetAt]),
      [
        [OLD, "deprecated", NEW, "2027-12-01"],
        [NEW, "current", null, null],
      ],
    );
    assert.deepEqual(listed.data!.data[1]!.changes, [
      "Products are titled: a product's `name` is now `title`.",
      catalogue.description,
    ]);
  });

  it("pins: an app's raised and rolled back within 72 hours, a key pair's changed by the merchant, a subscription's from its app", async () => {
    const app = await installedApp(ctx.app, ["read_products", "manage_webhooks"]);
    assert.equal(
      (
        await app.dev.client.GET("/api/v1/dashboard/apps/{clientId}", {
          params: { path: { clientId: app.clientId } },
        })
      ).data!.data.apiVersion,
      NEW,
    );
    // An app made before a version change is on the older version: as if it were, here.
    await ctx.platform.db
      .updateTable("apps")
      .set({ api_version: OLD })
      .where("client_id", "=", app.clientId)
      .execute();
    const refused = await app.dev.client.PATCH("/api/v1/dashboard/apps/{clientId}", {
      params: { path: { clientId: app.clientId } },
      body: { apiVersion: "2026-07-01" },
    });
    assert.equal(refused.response.status, 400);
    assert.equal(refused.error!.error.code, "UNSUPPORTED_API_VERSION");
    const raised = await app.dev.client.PATCH("/api/v1/dashboard/apps/{clientId}", {
      params: { path: { clientId: app.clientId } },
      body: { apiVersion: NEW },
    });
    assert.equal(raised.response.status, 200, text(raised));
    assert.equal(raised.data!.data.apiVersion, NEW);
    assert.equal(raised.data!.data.apiVersionRollback!.version, OLD);
    // Until 72 hours after the change (the clock runs: within the test's own seconds).
    const window = Date.parse(raised.data!.data.apiVersionRollback!.until) - ctx.clock.now().getTime();
    assert.ok(window > 72 * 3600_000 - 60_000 && window <= 72 * 3600_000, String(window));
    const back = await app.dev.client.PATCH("/api/v1/dashboard/apps/{clientId}", {
      params: { path: { clientId: app.clientId } },
      body: { apiVersion: OLD },
    });
    assert.equal(back.response.status, 200);
    assert.equal(back.data!.data.apiVersion, OLD);
    await app.dev.client.PATCH("/api/v1/dashboard/apps/{clientId}", {
      params: { path: { clientId: app.clientId } },
      body: { apiVersion: NEW },
    });
    ctx.clock.advance(72 * 3600_000 + 1000);
    const late = await app.dev.client.PATCH("/api/v1/dashboard/apps/{clientId}", {
      params: { path: { clientId: app.clientId } },
      body: { apiVersion: OLD },
    });
    assert.equal(late.response.status, 409, "no rollback after 72 hours");
    assert.equal(fieldErrors(late)[0]!.field, "apiVersion");

    // A subscription takes its app's pin, or the version it asks for; changed in place.
    const fresh = await installedApp(ctx.app, ["read_products", "manage_webhooks"]);
    const sub = (
      await fresh.api.POST("/api/v1/apps/api/webhooks", {
        body: { eventName: "product.created", targetUrl: `${rx.url}/pin` },
      })
    ).data!.data;
    assert.equal(sub.apiVersion, NEW);
    const asked = await fresh.api.POST("/api/v1/apps/api/webhooks", {
      body: {
        eventName: "product.updated",
        targetUrl: `${rx.url}/pin`,
        apiVersion: OLD,
      },
    });
    assert.equal(asked.data!.data.apiVersion, OLD);
    assert.equal(
      (
        await fresh.api.POST("/api/v1/apps/api/webhooks", {
          body: {
            eventName: "product.deleted",
            targetUrl: `${rx.url}/pin`,
            apiVersion: "1999-01-01",
          },
        })
      ).error!.error.code,
      "UNSUPPORTED_API_VERSION",
    );
    const changed = await fresh.api.PATCH("/api/v1/apps/api/webhooks/{id}", {
      params: { path: { id: sub.id } },
      body: { apiVersion: OLD },
    });
    assert.equal(changed.response.status, 200, text(changed));
    assert.equal(changed.data!.data.apiVersion, OLD);
    assert.equal(
      (await fresh.api.GET("/api/v1/apps/api/webhooks")).data!.data.find((s) => s.id === sub.id)!.apiVersion,
      OLD,
    );

    // A key pair: any version served, the merchant's choice; its requests follow at once.
    const merchant = fresh.merchant;
    const key = (
      await merchant.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: merchant.slug } },
        body: {
          name: "old",
          scopes: ["read_products"],
          apiVersion: OLD,
        },
      })
    ).data!.data;
    assert.equal(key.apiVersion, OLD);
    const dev = apiClient(ctx.app, { headers: { "x-api-key": key.keyId, "x-api-secret": key.secret } });
    assert.equal((await dev.GET("/api/v1/developer/store")).response.headers.get("api-version"), OLD);
    const moved = await merchant.client.PATCH("/api/v1/dashboard/stores/{slug}/api-keys/{keyId}", {
      params: { path: { slug: merchant.slug, keyId: key.keyId } },
      body: { apiVersion: NEW },
    });
    assert.equal(moved.response.status, 200, text(moved));
    assert.equal((await dev.GET("/api/v1/developer/store")).response.headers.get("api-version"), NEW);
    const listed = await merchant.client.GET("/api/v1/dashboard/stores/{slug}/api-keys", {
      params: { path: { slug: merchant.slug } },
    });
    assert.equal(listed.data!.data.find((k) => k.keyId === key.keyId)!.apiVersion, NEW);
  });

  it("the made-up change: the older version keeps `name` in requests, answers, exports, webhooks, the feed and its document; the newer one has `title`", async () => {
    const app = await installedApp(ctx.app, ["read_products", "write_products", "manage_webhooks"]);
    const at = (v: string) => ({ "api-version": v });
    for (const [version, path] of [
      [OLD, "/old"],
      [NEW, "/new"],
    ] as const) {
      const made = await app.api.POST("/api/v1/apps/api/webhooks", {
        body: {
          eventName: "product.created",
          targetUrl: `${rx.url}${path}`,
          apiVersion: version,
        },
      });
      assert.equal(made.response.status, 201, text(made));
    }
    // At the older version the made-up change calls a product's title `name`: what is sent and read
    // there is not the current document's shape, so it is sent offDocument and read as plain JSON.
    const older = (answer: Answer) => (answer.data as { data: Json }).data;
    // Written at the older version with `name`; answered there with `name`.
    const created = await app.api.POST("/api/v1/apps/api/products", {
      body: offDocument({ name: "Mug", price: "9.00", stock: 3 }),
      headers: at(OLD),
    });
    assert.equal(created.response.status, 201, text(created));
    assert.equal(older(created).name, "Mug");
    assert.equal("title" in older(created), false);
    const id = created.data!.data.id;
    // The newer version reads the same record with `title`.
    const now = await app.api.GET("/api/v1/apps/api/products/{id}", {
      params: { path: { id } },
      headers: at(NEW),
    });
    assert.equal(now.data!.data.title, "Mug");
    assert.equal("name" in now.data!.data, false);
    // Writing the newer field at the older version is refused as any unknown field.
    assert.equal(
      (
        await app.api.PATCH("/api/v1/apps/api/products/{id}", {
          params: { path: { id } },
          body: { title: "Cup" },
          headers: at(OLD),
        })
      ).response.status,
      400,
    );
    const renamed = await app.api.PATCH("/api/v1/apps/api/products/{id}", {
      params: { path: { id } },
      body: offDocument({ name: "Cup" }),
      headers: at(OLD),
    });
    assert.equal(older(renamed).name, "Cup");
    const list = await app.api.GET("/api/v1/apps/api/products", { headers: at(OLD) });
    assert.ok(list.data!.data.every((p) => "name" in p && !("title" in p)));

    // Webhooks: each subscription's body at its version, the header and the envelope saying which.
    await rx.waitFor(2);
    const of = (path: string) => rx.received.filter((r) => r.path === path);
    await waitUntil(() => of("/old").length >= 1 && of("/new").length >= 1, 20_000, "both deliveries");
    const oldBody = JSON.parse(of("/old")[0]!.body) as Json; // at the older version: plain JSON
    const newBody = JSON.parse(of("/new")[0]!.body) as EventBody<"product.created">;
    assert.equal(oldBody.apiVersion, OLD);
    assert.equal(oldBody.data.name, "Mug");
    assert.equal("title" in oldBody.data, false);
    assert.equal(of("/old")[0]!.headers["api-version"], OLD);
    assert.equal(newBody.apiVersion, NEW);
    assert.equal(newBody.data.title, "Mug");
    assert.equal(of("/new")[0]!.headers["api-version"], NEW);

    // A redelivery follows its subscription's version as it is now.
    const subs = (await app.api.GET("/api/v1/apps/api/webhooks")).data!.data;
    const oldSub = subs.find((s) => s.targetUrl.endsWith("/old"))!;
    assert.equal(
      (
        await app.api.PATCH("/api/v1/apps/api/webhooks/{id}", {
          params: { path: { id: oldSub.id } },
          body: { apiVersion: NEW },
        })
      ).response.status,
      200,
    );
    const deliveries = (
      await app.api.GET("/api/v1/apps/api/webhooks/deliveries", {
        params: { query: { event: "product.created" } },
      })
    ).data!.data;
    const oldDelivery = deliveries.find((d) => d.targetUrl.endsWith("/old"))!;
    const count = of("/old").length;
    assert.equal(
      (
        await app.api.POST("/api/v1/apps/api/webhooks/deliveries/{id}/redeliver", {
          params: { path: { id: oldDelivery.id } },
        })
      ).response.status,
      201,
    );
    await waitUntil(() => of("/old").length === count + 1, 20_000, "the redelivery");
    const redelivered = JSON.parse(of("/old").at(-1)!.body) as EventBody<"product.created">;
    assert.equal(redelivered.apiVersion, NEW);
    assert.equal(redelivered.data.title, "Mug");
    assert.equal(redelivered.id, oldBody.id, "the same event");

    // The event feed, at the request's version.
    const feedOld = (
      await app.api.GET("/api/v1/apps/api/events", {
        params: { query: { types: "product.created" } },
        headers: at(OLD),
      })
    ).data!.data as Json[]; // at the older version: plain JSON
    const feedNew = (
      await app.api.GET("/api/v1/apps/api/events", {
        params: { query: { types: "product.created" } },
        headers: at(NEW),
      })
    ).data!.data;
    assert.equal(feedOld.find((e) => e.resource.id === id)!.data.name, "Mug");
    const fromFeed = feedNew.find((e) => e.resource.id === id)!.data;
    assert.equal("title" in fromFeed ? fromFeed.title : undefined, "Mug");

    // The bulk export: each line the list's item at the caller's version.
    const exported = await app.api.GET("/api/v1/apps/api/export/products", {
      headers: at(OLD),
      parseAs: "text",
    });
    const lines = text(exported)
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Json);
    assert.ok(lines.length >= 1);
    assert.ok(lines.every((l) => "name" in l && !("title" in l)));

    // The documents: the older one describes `name`, and only the versioned paths.
    // Documents themselves: plain JSON (not among the paths they describe).
    const oldDoc = await fetchDocument(ctx.app, OLD);
    const newDoc = await fetchDocument(ctx.app);
    assert.equal(oldDoc.info.version, OLD);
    assert.equal(newDoc.info.version, NEW);
    assert.ok(oldDoc.components.schemas.Product.properties.name);
    assert.equal(oldDoc.components.schemas.Product.properties.title, undefined);
    assert.ok(newDoc.components.schemas.Product.properties.title);
    assert.ok(oldDoc.components.schemas.Product.required.includes("name"));
    const createBody =
      oldDoc.paths["/api/v1/apps/api/products"].post.requestBody.content["application/json"].schema;
    assert.ok(createBody.properties.name && !createBody.properties.title, "the old request body");
    assert.equal(Object.keys(oldDoc.paths).filter((p) => p.startsWith("/api/v1/dashboard")).length, 0);
    assert.ok(Object.keys(newDoc.paths).some((p) => p.startsWith("/api/v1/dashboard")));
    const unknown = await offDocumentRequest(
      apiClient(ctx.app),
      "GET",
      "/api/docs/openapi.json?version=2020-01-01",
    );
    assert.equal(unknown.response.status, 400);
    assert.equal(errorCode(unknown), "UNSUPPORTED_API_VERSION");
  });

  it("renders the same records at every version, each answer valid against that version's document and not the other's; each document's openapi-typescript types compile", async () => {
    const app = await installedApp(ctx.app, [
      "read_products",
      "write_products",
      "read_orders",
      "write_orders",
      "read_customers",
      "write_customers",
      "manage_webhooks",
    ]);
    const writer = app.bearer(app.tokens.accessToken);
    const product = (
      await writer.POST("/api/v1/apps/api/products", {
        body: flat({ title: "Lamp", price: "30.00", stock: 4 }),
      })
    ).data!.data;
    const order = await writer.POST("/api/v1/apps/api/orders", {
      body: {
        customer: { email: "versions@example.com", firstName: "Vera", lastName: "Sion" },
        lineItems: [{ productId: product.id, quantity: 1 }],
      },
    });
    assert.equal(order.response.status, 201, text(order));
    await writer.POST("/api/v1/apps/api/webhooks", {
      body: { eventName: "order.created", targetUrl: `${rx.url}/every` },
    });
    const orderId = order.data!.data.id;
    // Each read labelled with its URL; answered at both versions, so read as the checker reads them.
    const reads: Array<[string, (client: Api) => Promise<Answer>]> = [
      [`${ADMIN}/store`, (c) => c.GET("/api/v1/apps/api/store")],
      [`${ADMIN}/products`, (c) => c.GET("/api/v1/apps/api/products")],
      [
        `${ADMIN}/products/${product.id}`,
        (c) => c.GET("/api/v1/apps/api/products/{id}", { params: { path: { id: product.id } } }),
      ],
      [`${ADMIN}/orders`, (c) => c.GET("/api/v1/apps/api/orders")],
      [
        `${ADMIN}/orders/${orderId}`,
        (c) => c.GET("/api/v1/apps/api/orders/{id}", { params: { path: { id: orderId } } }),
      ],
      [`${ADMIN}/customers`, (c) => c.GET("/api/v1/apps/api/customers")],
      [`${ADMIN}/webhooks`, (c) => c.GET("/api/v1/apps/api/webhooks")],
      [
        `${ADMIN}/events?types=product.created,order.created`,
        (c) =>
          c.GET("/api/v1/apps/api/events", {
            params: { query: { types: "product.created,order.created" } },
            querySerializer: { allowReserved: true },
          }),
      ],
    ];
    const answers: Record<string, Answer[]> = {};
    for (const version of [OLD, NEW]) {
      const spec = await openApiChecker(ctx.app, { version });
      const client = spec.watch(
        apiClient(ctx.app, {
          headers: { authorization: `Bearer ${app.tokens.accessToken}`, "api-version": version },
        }),
      );
      answers[version] = [];
      for (const [url, read] of reads) {
        const res = await read(client);
        assert.equal(res.response.status, 200, `${version} ${url}: ${text(res)}`);
        answers[version].push(res);
      }
    }
    // The check can fail: an older answer is not valid against the newer document.
    const current = await openApiChecker(ctx.app, { version: NEW });
    const olderProduct = answers[OLD]![2]!;
    assert.throws(
      () =>
        current.check("GET", `${ADMIN}/products/{id}`, {
          status: olderProduct.response.status,
          body: olderProduct.data,
        }),
      /title/,
    );

    // Types generated from each version's document compile, and differ where the versions do.
    const files: Record<string, string> = {};
    for (const version of [OLD, NEW]) {
      const doc = await fetchDocument(ctx.app, version);
      files[`/v/${version}.ts`] = astToString(await openapiTS(doc as never));
    }
    const field = (version: string, name: string) =>
      `type P${version.replaceAll("-", "")} = import("./${version}.ts").components["schemas"]["Product"]["${name}"];\n`;
    files["/v/use.ts"] = `${field(OLD, "name")}${field(NEW, "title")}export {};\n`;
    files["/v/wrong.ts"] = `${field(OLD, "title")}export {};\n`;
    const diagnostics = typecheck(files);
    assert.deepEqual(
      diagnostics.filter((d) => d.file !== "/v/wrong.ts"),
      [],
      "every version's types compile",
    );
    assert.ok(
      diagnostics.some((d) => d.file === "/v/wrong.ts" && /title/.test(d.message)),
      "the older types have no `title`",
    );
  });

  it("the SDK sends the version it was generated for and says which; the CLI shows each call's with --verbose", async () => {
    assert.equal(API_VERSION, NEW, "the SDK is generated from the current document");
    const app = await installedApp(ctx.app, ["read_products", "manage_webhooks"]);
    await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    const base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    // Pinned to the older version, the app still gets what its SDK was generated for.
    await ctx.platform.db
      .updateTable("apps")
      .set({ api_version: OLD })
      .where("client_id", "=", app.clientId)
      .execute();
    const admin = createAdminClient({ baseUrl: base, accessToken: app.tokens.accessToken });
    const { response } = await admin.GET("/api/v1/apps/api/webhooks");
    assert.equal(response.headers.get("api-version"), NEW);
    const older = createAdminClient({ baseUrl: base, accessToken: app.tokens.accessToken, apiVersion: OLD });
    assert.equal((await older.GET("/api/v1/apps/api/webhooks")).response.headers.get("api-version"), OLD);

    const out: string[] = [];
    const err: string[] = [];
    const sink = (to: string[]) => ({ write: (t: string) => to.push(t) }) as unknown as NodeJS.WritableStream;
    const io = { stdout: sink(out), stderr: sink(err), env: {} };
    assert.equal(
      await runCli(["webhooks", "--verbose", "--base-url", base, "--token", app.tokens.accessToken], io),
      0,
    );
    assert.match(
      err.join(""),
      new RegExp(`^GET /api/v1/apps/api/webhooks → 200 · Api-Version ${NEW} · \\d+ ms\n$`),
    );
    err.length = 0;
    assert.equal(await runCli(["webhooks", "--base-url", base, "--token", app.tokens.accessToken], io), 0);
    assert.equal(err.join(""), "", "quiet without --verbose");
  });

  it("counts an app's calls at deprecated versions, per version and operation, for its developer", async () => {
    const app = await installedApp(ctx.app, ["read_products"]);
    for (let i = 0; i < 3; i++)
      await app.api.GET("/api/v1/apps/api/products", { headers: { "api-version": OLD } });
    await app.api.GET("/api/v1/apps/api/store", { headers: { "api-version": OLD } });
    await app.api.GET("/api/v1/apps/api/products", { headers: { "api-version": NEW } });
    const listed = await app.dev.client.GET("/api/v1/dashboard/apps/{clientId}/deprecated-calls", {
      params: { path: { clientId: app.clientId } },
    });
    assert.equal(listed.response.status, 200, text(listed));
    const byOperation = Object.fromEntries(listed.data!.data.map((c) => [c.operationId, c]));
    assert.deepEqual(Object.keys(byOperation).sort(), ["adminGetStore", "adminListProducts"]);
    assert.equal(byOperation.adminListProducts!.calls, 3);
    assert.equal(byOperation.adminListProducts!.apiVersion, OLD);
    // Another developer's app: 404.
    const other = await installedApp(ctx.app, ["read_products"]);
    assert.equal(
      (
        await other.dev.client.GET("/api/v1/dashboard/apps/{clientId}/deprecated-calls", {
          params: { path: { clientId: app.clientId } },
        })
      ).response.status,
      404,
    );
  });

  it("a retired version is never served as another: 400 naming the oldest served, whether asked for or pinned", async () => {
    const merchant = await merchantWithStore(ctx.app);
    const key = (
      await merchant.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: merchant.slug } },
        body: {
          name: "r",
          scopes: ["read_products"],
          apiVersion: OLD,
        },
      })
    ).data!.data;
    const dev = apiClient(ctx.app, { headers: { "x-api-key": key.keyId, "x-api-secret": key.secret } });
    ctx.clock.advance(Date.parse("2027-12-02T00:00:00Z") - ctx.clock.now().getTime());
    const asked = await dev.GET("/api/v1/developer/store", { headers: { "api-version": OLD } });
    assert.equal(asked.response.status, 400);
    assert.equal(asked.error!.error.code, "UNSUPPORTED_API_VERSION");
    assert.equal(detailsOf(asked).oldestSupported, NEW);
    assert.equal(detailsOf(asked).retired, true);
    const pinned = await dev.GET("/api/v1/developer/store");
    assert.equal(pinned.response.status, 400);
    assert.match(pinned.error!.error.message, /pinned version/);
    assert.equal(
      (await dev.GET("/api/v1/developer/store", { headers: { "api-version": NEW } })).response.status,
      200,
    );
    const listed = await apiClient(ctx.app).GET("/api/versions");
    assert.equal(listed.data!.data[0]!.status, "retired");
  });
});

/** Type-checks in-memory files (strict); the diagnostics with the file each is in. */
function typecheck(files: Record<string, string>): Array<{ file: string | undefined; message: string }> {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: [],
    lib: ["lib.es2022.d.ts"],
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  host.readFile = (name) => files[name] ?? read(name);
  host.fileExists = (name) => name in files || exists(name);
  const directoryExists = host.directoryExists?.bind(host);
  host.directoryExists = (name) =>
    Object.keys(files).some((f) => f.startsWith(`${name}/`)) || (directoryExists?.(name) ?? false);
  host.realpath = (name) => name;
  host.getSourceFile = (name, language) => {
    const text = host.readFile(name);
    return text === undefined ? undefined : ts.createSourceFile(name, text, language);
  };
  const program = ts.createProgram(Object.keys(files), options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ({
    file: d.file?.fileName,
    message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
  }));
}
