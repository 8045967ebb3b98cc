import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify from "fastify";
import Type from "typebox";
import type { StoreScope } from "../../contracts/scopes.ts";
import { installErrorHandling } from "../../lib/http/error-handler.ts";
import { Body, Envelope, ErrorEnvelope } from "../../lib/http/schemas.ts";
import { installValidators } from "../../lib/http/validation.ts";
import { familyRoute } from "../families/api-family.ts";
import { createApiVersions } from "./api-versions.ts";
import { checkDeprecation, type DeprecatedUsage, type Deprecation, deprecatedField } from "./deprecations.ts";
import { createRenderer } from "./render.ts";
import { createSchemaVersions } from "./schema-versions.ts";
import { installVersioning } from "./versioning.ts";

const route = familyRoute<StoreScope>({
  security: () => [],
  authErrors: [],
  scopeHolder: "-",
  anyCredential: "-",
});
const OLD = "2026-06-01";
const NEW = "2026-11-28";
const versions = createApiVersions([
  { version: OLD, changes: [], deprecation: { at: NEW, sunset: "2027-12-01" } },
  { version: NEW, changes: [] },
]);
const retiring: Deprecation = { at: "2026-11-28", sunset: "2027-11-28", use: "Use `/things/new`." };
const skuGoes: Deprecation = { at: "2026-11-28", sunset: "2028-01-01", use: "Send `variants[].sku`." };
const now = new Date("2027-01-15T10:00:00Z");

async function appWith() {
  const calls: Array<[string, DeprecatedUsage]> = [];
  const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(ErrorEnvelope);
  installErrorHandling(app);
  installValidators(app);
  installVersioning(app, {
    versions,
    renderer: createRenderer(),
    schemas: createSchemaVersions(),
    clock: { now: () => now },
    changelogUrl: "https://platform.example/api/docs/changelog",
    pinnedVersion: () => NEW,
    deprecatedCall: (_request, version, usage) => calls.push([version, usage]),
  });
  const ok = { 200: Envelope(Type.String()) };
  app.post(
    "/things",
    route({
      operationId: "createThing",
      scope: "write_products",
      tags: ["t"],
      summary: "s",
      body: Body({ name: Type.String(), sku: Type.Optional(deprecatedField(Type.String(), skuGoes)) }),
      response: ok,
    }),
    async () => ({ success: true as const, data: "made" }),
  );
  app.get(
    "/things/old",
    route({
      operationId: "oldThings",
      scope: "read_products",
      tags: ["t"],
      summary: "s",
      response: ok,
      deprecated: retiring,
    }),
    async () => ({ success: true as const, data: "old" }),
  );
  await app.ready();
  return { app, calls };
}

const post = (
  app: Awaited<ReturnType<typeof appWith>>["app"],
  body: object,
  headers: Record<string, string> = {},
) => app.inject({ method: "POST", url: "/things", payload: body, headers });

describe("deprecated operations and fields (issue 29, part 3)", () => {
  it("a deprecated operation is documented so, and every answer says when it goes", async () => {
    const { app, calls } = await appWith();
    const res = await app.inject({ method: "GET", url: "/things/old" });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers.deprecation, `@${Date.parse("2026-11-28T00:00:00Z") / 1000}`);
    assert.equal(res.headers.sunset, new Date("2027-11-28T00:00:00Z").toUTCString());
    assert.match(
      String(res.headers.link),
      /<https:\/\/platform\.example\/api\/docs\/changelog>; rel="deprecation"/,
    );
    assert.deepEqual(calls, [[NEW, "operation"]]);
    const documented = route({
      operationId: "x",
      scope: "read_products",
      tags: [],
      summary: "s",
      response: {},
      deprecated: retiring,
    });
    assert.equal(documented.schema.deprecated, true);
    assert.match(
      documented.schema.description,
      /\*\*Deprecated\*\* since 2026-11-28; stops working on 2027-11-28\. Use `\/things\/new`\./,
    );
    assert.equal(documented.config.deprecation, retiring);
  });

  it("a deprecated field: the headers only when the request sends it, counted per field", async () => {
    const { app, calls } = await appWith();
    const without = await post(app, { name: "a" });
    assert.equal(without.statusCode, 200);
    assert.equal(without.headers.deprecation, undefined);
    assert.deepEqual(calls, []);
    const withSku = await post(app, { name: "a", sku: "S-1" });
    assert.equal(withSku.statusCode, 200);
    assert.equal(withSku.headers.sunset, new Date("2028-01-01T00:00:00Z").toUTCString());
    assert.deepEqual(calls, [[NEW, "field:sku"]]);
  });

  it("at a deprecated version with a deprecated field: both counted, the headers name the sooner sunset", async () => {
    const { app, calls } = await appWith();
    const res = await post(app, { name: "a", sku: "S-1" }, { "api-version": OLD });
    assert.equal(res.headers["api-version"], OLD);
    assert.equal(res.headers.sunset, new Date("2027-12-01T00:00:00Z").toUTCString(), "the version's, sooner");
    assert.deepEqual(calls, [
      [OLD, "version"],
      [OLD, "field:sku"],
    ]);
  });

  it("a sunset is at least 12 months after the deprecation", () => {
    assert.throws(
      () => checkDeprecation({ at: "2026-11-28", sunset: "2027-11-27", use: "" }, "t"),
      /12 months/,
    );
    assert.throws(
      () => checkDeprecation({ at: "2026-11-28", sunset: "2027-06-01", use: "" }, "t"),
      /12 months/,
    );
    assert.throws(() => checkDeprecation({ at: "2026-11-28", sunset: "soon", use: "" }, "t"), /YYYY-MM-DD/);
    assert.ok(checkDeprecation({ at: "2026-11-28", sunset: "2027-11-28", use: "" }, "t"));
  });
});
