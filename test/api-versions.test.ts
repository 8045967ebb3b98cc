import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { API_VERSION, createAdminClient } from "@merchant-platform/sdk";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { run as runCli } from "../packages/cli/src/commands.ts";
import type { VersionSpec } from "../src/modules/versions/api-versions.ts";
import { type Json as Any, defineVersionChange } from "../src/modules/versions/version-change.ts";
import { Client, installedApp, type Json, merchantWithStore, type Response_ } from "./legacy-client.ts";
import { openApiChecker } from "./openapi-assert.ts";
import { startReceiver } from "./receiver.ts";
import { createWebhookContext, waitUntil } from "./webhooks-harness.ts";

/**
 * Dated API versions (issue 29) through the whole platform, with a version change made up for
 * the test: before 2026-11-28 a product's `title` was called `name`. The change is one module
 * (below) and nothing else knows of it; the older version's requests, answers, webhook bodies,
 * event feed, exports and document keep `name`, the newer ones `title`.
 */

const OLD = "2026-06-01";
const NEW = "2026-11-28";
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
  { version: NEW, changes: [productsAreTitled] },
];
/** A fixed time after both releases, before the old one's sunset. */
const START = Date.parse("2027-01-15T10:00:00.000Z");
const ADMIN = "/api/v1/apps/api";
const DEV = "/api/v1/developer";

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
    const plain = await app.api.get(`${ADMIN}/products`);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers["api-version"], NEW, "a new app is pinned to the current version");
    assert.equal(plain.headers.deprecation, undefined);
    const old = await app.api.get(`${ADMIN}/products`, { "api-version": OLD });
    assert.equal(old.headers["api-version"], OLD);
    // RFC 9745 and RFC 8594: the deprecation's instant, the sunset as an HTTP date, the changelog.
    assert.equal(old.headers.deprecation, `@${Date.parse(`${NEW}T00:00:00Z`) / 1000}`);
    assert.equal(old.headers.sunset, new Date("2027-12-01T00:00:00Z").toUTCString());
    assert.match(String(old.headers.link), /<http[^>]+\/api\/docs\/changelog>; rel="deprecation"/);
    for (const [headers, what] of [
      [{}, "no token"],
      [{ authorization: "Bearer mpat_nope" }, "a bad token"],
    ] as const) {
      const refused = await new Client(ctx.app, headers).get(`${ADMIN}/products`);
      assert.equal(refused.status, 401, what);
      assert.equal(refused.headers["api-version"], NEW, `${what}: the current version`);
    }
    const missing = await app.api.get(`${ADMIN}/products/prod_aaaaaaaaaaaaaaaaaaaaaa`, {
      "api-version": OLD,
    });
    assert.equal(missing.status, 404, JSON.stringify(missing.body));
    assert.equal(missing.headers["api-version"], OLD);
    for (const bad of ["2026-6-1", "latest", "2026-07-01", "2027-02-30", `${NEW},${OLD}`]) {
      const refused = await app.api.get(`${ADMIN}/products`, { "api-version": bad });
      assert.equal(refused.status, 400, bad);
      assert.equal(refused.body.error.code, "UNSUPPORTED_API_VERSION");
      assert.deepEqual(refused.body.error.details.supported, [OLD, NEW]);
      assert.equal(refused.headers["api-version"], NEW);
    }
    // The developer API too.
    const merchant = await merchantWithStore(ctx.app);
    const key = (
      await merchant.client.post(`${merchant.base}/api-keys`, { name: "v", scopes: ["read_products"] })
    ).data as Json;
    assert.equal(key.apiVersion, NEW, "a new key pair is pinned to the current version");
    const dev = new Client(ctx.app, { "x-api-key": key.keyId, "x-api-secret": key.secret });
    assert.equal((await dev.get(`${DEV}/store`)).headers["api-version"], NEW);
    assert.equal((await dev.get(`${DEV}/store`, { "api-version": OLD })).headers["api-version"], OLD);
    assert.equal((await dev.get(`${DEV}/store`, { "api-version": "x" })).status, 400);
    // Listed publicly, with their status.
    const listed = await new Client(ctx.app).get("/api/versions");
    assert.deepEqual(
      listed.data.map((v: Json) => [v.version, v.status, v.deprecatedAt, v.sunsetAt]),
      [
        [OLD, "deprecated", NEW, "2027-12-01"],
        [NEW, "current", null, null],
      ],
    );
    assert.deepEqual(listed.data[1].changes, ["Products are titled: a product's `name` is now `title`."]);
  });

  it("pins: an app's raised and rolled back within 72 hours, a key pair's changed by the merchant, a subscription's from its app", async () => {
    const app = await installedApp(ctx.app, ["read_products", "manage_webhooks"]);
    const path = `/api/v1/dashboard/apps/${app.clientId}`;
    assert.equal((await app.dev.client.get(path)).data.apiVersion, NEW);
    // An app made before a version change is on the older version: as if it were, here.
    await ctx.platform.db
      .updateTable("apps")
      .set({ api_version: OLD })
      .where("client_id", "=", app.clientId)
      .execute();
    const refused = await app.dev.client.patch(path, { apiVersion: "2026-07-01" });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, "UNSUPPORTED_API_VERSION");
    const raised = await app.dev.client.patch(path, { apiVersion: NEW });
    assert.equal(raised.status, 200, JSON.stringify(raised.body));
    assert.equal(raised.data.apiVersion, NEW);
    assert.equal(raised.data.apiVersionRollback.version, OLD);
    // Until 72 hours after the change (the clock runs: within the test's own seconds).
    const window = Date.parse(raised.data.apiVersionRollback.until) - ctx.clock.now().getTime();
    assert.ok(window > 72 * 3600_000 - 60_000 && window <= 72 * 3600_000, String(window));
    const back = await app.dev.client.patch(path, { apiVersion: OLD });
    assert.equal(back.status, 200);
    assert.equal(back.data.apiVersion, OLD);
    await app.dev.client.patch(path, { apiVersion: NEW });
    ctx.clock.advance(72 * 3600_000 + 1000);
    const late = await app.dev.client.patch(path, { apiVersion: OLD });
    assert.equal(late.status, 409, "no rollback after 72 hours");
    assert.equal(late.body.error.details[0].field, "apiVersion");

    // A subscription takes its app's pin, or the version it asks for; changed in place.
    const fresh = await installedApp(ctx.app, ["read_products", "manage_webhooks"]);
    const sub = (
      await fresh.api.post(`${ADMIN}/webhooks`, { eventName: "product.created", targetUrl: `${rx.url}/pin` })
    ).data as Json;
    assert.equal(sub.apiVersion, NEW);
    const asked = await fresh.api.post(`${ADMIN}/webhooks`, {
      eventName: "product.updated",
      targetUrl: `${rx.url}/pin`,
      apiVersion: OLD,
    });
    assert.equal(asked.data.apiVersion, OLD);
    assert.equal(
      (
        await fresh.api.post(`${ADMIN}/webhooks`, {
          eventName: "product.deleted",
          targetUrl: `${rx.url}/pin`,
          apiVersion: "1999-01-01",
        })
      ).body.error.code,
      "UNSUPPORTED_API_VERSION",
    );
    const changed = await fresh.api.patch(`${ADMIN}/webhooks/${sub.id}`, { apiVersion: OLD });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.data.apiVersion, OLD);
    assert.equal(
      (await fresh.api.get(`${ADMIN}/webhooks`)).data.find((s: Json) => s.id === sub.id).apiVersion,
      OLD,
    );

    // A key pair: any version served, the merchant's choice; its requests follow at once.
    const merchant = fresh.merchant;
    const key = (
      await merchant.client.post(`${merchant.base}/api-keys`, {
        name: "old",
        scopes: ["read_products"],
        apiVersion: OLD,
      })
    ).data as Json;
    assert.equal(key.apiVersion, OLD);
    const dev = new Client(ctx.app, { "x-api-key": key.keyId, "x-api-secret": key.secret });
    assert.equal((await dev.get(`${DEV}/store`)).headers["api-version"], OLD);
    const moved = await merchant.client.patch(`${merchant.base}/api-keys/${key.keyId}`, { apiVersion: NEW });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal((await dev.get(`${DEV}/store`)).headers["api-version"], NEW);
    const listed = await merchant.client.get(`${merchant.base}/api-keys`);
    assert.equal(listed.data.find((k: Json) => k.keyId === key.keyId).apiVersion, NEW);
  });

  it("the made-up change: the older version keeps `name` in requests, answers, exports, webhooks, the feed and its document; the newer one has `title`", async () => {
    const app = await installedApp(ctx.app, ["read_products", "write_products", "manage_webhooks"]);
    const at = (v: string) => ({ "api-version": v });
    for (const [version, path] of [
      [OLD, "/old"],
      [NEW, "/new"],
    ] as const) {
      const made = await app.api.post(`${ADMIN}/webhooks`, {
        eventName: "product.created",
        targetUrl: `${rx.url}${path}`,
        apiVersion: version,
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
    }
    // Written at the older version with `name`; answered there with `name`.
    const created = await app.api.post(
      `${ADMIN}/products`,
      { name: "Mug", price: "9.00", stock: 3 },
      at(OLD),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.data.name, "Mug");
    assert.equal("title" in created.data, false);
    const id = created.data.id as string;
    // The newer version reads the same record with `title`.
    const now = await app.api.get(`${ADMIN}/products/${id}`, at(NEW));
    assert.equal(now.data.title, "Mug");
    assert.equal("name" in now.data, false);
    // Writing the newer field at the older version is refused as any unknown field.
    assert.equal((await app.api.patch(`${ADMIN}/products/${id}`, { title: "Cup" }, at(OLD))).status, 400);
    const renamed = await app.api.patch(`${ADMIN}/products/${id}`, { name: "Cup" }, at(OLD));
    assert.equal(renamed.data.name, "Cup");
    const list = await app.api.get(`${ADMIN}/products`, at(OLD));
    assert.ok(list.data.every((p: Json) => "name" in p && !("title" in p)));

    // Webhooks: each subscription's body at its version, the header and the envelope saying which.
    await rx.waitFor(2);
    const of = (path: string) => rx.received.filter((r) => r.path === path);
    await waitUntil(() => of("/old").length >= 1 && of("/new").length >= 1, 20_000, "both deliveries");
    const oldBody = JSON.parse(of("/old")[0]!.body);
    const newBody = JSON.parse(of("/new")[0]!.body);
    assert.equal(oldBody.apiVersion, OLD);
    assert.equal(oldBody.data.name, "Mug");
    assert.equal("title" in oldBody.data, false);
    assert.equal(of("/old")[0]!.headers["api-version"], OLD);
    assert.equal(newBody.apiVersion, NEW);
    assert.equal(newBody.data.title, "Mug");
    assert.equal(of("/new")[0]!.headers["api-version"], NEW);

    // A redelivery follows its subscription's version as it is now.
    const subs = (await app.api.get(`${ADMIN}/webhooks`)).data as Json[];
    const oldSub = subs.find((s) => s.targetUrl.endsWith("/old"))!;
    assert.equal((await app.api.patch(`${ADMIN}/webhooks/${oldSub.id}`, { apiVersion: NEW })).status, 200);
    const deliveries = (await app.api.get(`${ADMIN}/webhooks/deliveries?event=product.created`))
      .data as Json[];
    const oldDelivery = deliveries.find((d) => d.targetUrl.endsWith("/old"))!;
    const count = of("/old").length;
    assert.equal(
      (await app.api.post(`${ADMIN}/webhooks/deliveries/${oldDelivery.id}/redeliver`)).status,
      201,
    );
    await waitUntil(() => of("/old").length === count + 1, 20_000, "the redelivery");
    const redelivered = JSON.parse(of("/old").at(-1)!.body);
    assert.equal(redelivered.apiVersion, NEW);
    assert.equal(redelivered.data.title, "Mug");
    assert.equal(redelivered.id, oldBody.id, "the same event");

    // The event feed, at the request's version.
    const feedOld = (await app.api.get(`${ADMIN}/events?types=product.created`, at(OLD))).data as Json[];
    const feedNew = (await app.api.get(`${ADMIN}/events?types=product.created`, at(NEW))).data as Json[];
    assert.equal(feedOld.find((e) => e.resource.id === id)!.data.name, "Mug");
    assert.equal(feedNew.find((e) => e.resource.id === id)!.data.title, "Mug");

    // The bulk export: each line the list's item at the caller's version.
    const exported = await app.api.get(`${ADMIN}/export/products`, at(OLD));
    const lines = String(exported.body.text ?? exported.raw.body)
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Json);
    assert.ok(lines.length >= 1);
    assert.ok(lines.every((l) => "name" in l && !("title" in l)));

    // The documents: the older one describes `name`, and only the versioned paths.
    const docs = new Client(ctx.app);
    const oldDoc = (await docs.get(`/api/docs/openapi.json?version=${OLD}`)).body;
    const newDoc = (await docs.get("/api/docs/openapi.json")).body;
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
    const unknown = await docs.get("/api/docs/openapi.json?version=2020-01-01");
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, "UNSUPPORTED_API_VERSION");
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
    const product = (await writer.post(`${ADMIN}/products`, { title: "Lamp", price: "30.00", stock: 4 }))
      .data as Json;
    const order = await writer.post(`${ADMIN}/orders`, {
      customer: { email: "versions@example.com", firstName: "Vera", lastName: "Sion" },
      lineItems: [{ productId: product.id, quantity: 1 }],
    });
    assert.equal(order.status, 201, JSON.stringify(order.body));
    await writer.post(`${ADMIN}/webhooks`, { eventName: "order.created", targetUrl: `${rx.url}/every` });
    const reads = [
      `${ADMIN}/store`,
      `${ADMIN}/products`,
      `${ADMIN}/products/${product.id}`,
      `${ADMIN}/orders`,
      `${ADMIN}/orders/${order.data.id}`,
      `${ADMIN}/customers`,
      `${ADMIN}/webhooks`,
      `${ADMIN}/events?types=product.created,order.created`,
    ];
    const answers: Record<string, Response_[]> = {};
    for (const version of [OLD, NEW]) {
      const spec = await openApiChecker(ctx.app, { version });
      const client = spec.watch(
        new Client(ctx.app, { authorization: `Bearer ${app.tokens.accessToken}`, "api-version": version }),
      );
      answers[version] = [];
      for (const url of reads) {
        const res = await client.get(url);
        assert.equal(res.status, 200, `${version} ${url}: ${JSON.stringify(res.body)}`);
        answers[version].push(res);
      }
    }
    // The check can fail: an older answer is not valid against the newer document.
    const current = await openApiChecker(ctx.app, { version: NEW });
    assert.throws(
      () => current.checkUrl("GET", `${ADMIN}/products/${product.id}`, answers[OLD]![2]!),
      /title/,
    );

    // Types generated from each version's document compile, and differ where the versions do.
    const files: Record<string, string> = {};
    for (const version of [OLD, NEW]) {
      const doc = (await new Client(ctx.app).get(`/api/docs/openapi.json?version=${version}`)).body;
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
    for (let i = 0; i < 3; i++) await app.api.get(`${ADMIN}/products`, { "api-version": OLD });
    await app.api.get(`${ADMIN}/store`, { "api-version": OLD });
    await app.api.get(`${ADMIN}/products`, { "api-version": NEW });
    const listed = await app.dev.client.get(`/api/v1/dashboard/apps/${app.clientId}/deprecated-calls`);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const byOperation = Object.fromEntries(listed.data.map((c: Json) => [c.operationId, c]));
    assert.deepEqual(Object.keys(byOperation).sort(), ["adminGetStore", "adminListProducts"]);
    assert.equal(byOperation.adminListProducts.calls, 3);
    assert.equal(byOperation.adminListProducts.apiVersion, OLD);
    // Another developer's app: 404.
    const other = await installedApp(ctx.app, ["read_products"]);
    assert.equal(
      (await other.dev.client.get(`/api/v1/dashboard/apps/${app.clientId}/deprecated-calls`)).status,
      404,
    );
  });

  it("a retired version is never served as another: 400 naming the oldest served, whether asked for or pinned", async () => {
    const merchant = await merchantWithStore(ctx.app);
    const key = (
      await merchant.client.post(`${merchant.base}/api-keys`, {
        name: "r",
        scopes: ["read_products"],
        apiVersion: OLD,
      })
    ).data as Json;
    const dev = new Client(ctx.app, { "x-api-key": key.keyId, "x-api-secret": key.secret });
    ctx.clock.advance(Date.parse("2027-12-02T00:00:00Z") - ctx.clock.now().getTime());
    const asked = await dev.get(`${DEV}/store`, { "api-version": OLD });
    assert.equal(asked.status, 400);
    assert.equal(asked.body.error.code, "UNSUPPORTED_API_VERSION");
    assert.equal(asked.body.error.details.oldestSupported, NEW);
    assert.equal(asked.body.error.details.retired, true);
    const pinned = await dev.get(`${DEV}/store`);
    assert.equal(pinned.status, 400);
    assert.match(pinned.body.error.message, /pinned version/);
    assert.equal((await dev.get(`${DEV}/store`, { "api-version": NEW })).status, 200);
    const listed = await new Client(ctx.app).get("/api/versions");
    assert.equal(listed.data[0].status, "retired");
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
