import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { ERROR_CODES } from "../src/lib/errors.ts";
import { createTestContext, type Json, type TestContext } from "./harness.ts";

const ROOT = join(import.meta.dirname, "..");
const METHODS = ["get", "post", "put", "patch", "delete"];

/** Every string in a request schema is bounded; every array too. Returns the unbounded paths. */
function unbounded(schema: Json | undefined, path: string, out: string[]) {
  if (!schema || typeof schema !== "object") return;
  if (
    schema.type === "string" &&
    schema.maxLength === undefined &&
    !schema.enum &&
    schema.const === undefined &&
    !schema.format
  ) {
    out.push(path);
  }
  if (schema.type === "array" && schema.maxItems === undefined) out.push(`${path}[]`);
  for (const [k, v] of Object.entries(schema.properties ?? {})) unbounded(v as Json, `${path}.${k}`, out);
  if (schema.items) unbounded(schema.items, `${path}[]`, out);
  for (const list of [schema.anyOf, schema.oneOf, schema.allOf])
    for (const s of list ?? []) unbounded(s, path, out);
}

describe("OpenAPI document", () => {
  let ctx: TestContext;
  let doc: Json;
  before(async () => {
    ctx = await createTestContext();
    doc = (await ctx.app.inject({ method: "GET", url: "/api/docs/openapi.json" })).json();
  });
  after(() => ctx.close());

  it("validates as OpenAPI 3.1", async () => {
    assert.equal(doc.openapi, "3.1.0");
    await SwaggerParser.validate(structuredClone(doc) as never);
  });

  it("documents every operation fully: id, tags, summary, envelope responses, closed error codes", () => {
    const ids = new Set<string>();
    const problems: string[] = [];
    const codes = doc.components.schemas.ErrorEnvelope.properties.error.properties.code.enum;
    assert.deepEqual([...codes].sort(), Object.keys(ERROR_CODES).sort());
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const method of METHODS) {
        const op = (item as Json)[method];
        if (!op) continue;
        operations++;
        const name = `${method.toUpperCase()} ${path}`;
        if (!op.operationId) problems.push(`${name}: no operationId`);
        else if (ids.has(op.operationId)) problems.push(`${name}: duplicate operationId ${op.operationId}`);
        ids.add(op.operationId);
        if (!op.tags?.length) problems.push(`${name}: no tags`);
        if (!op.summary) problems.push(`${name}: no summary`);
        const oauthShaped =
          path.startsWith("/api/v1/oauth/") ||
          path.startsWith("/.well-known/") ||
          path === "/api/v1/apps/authorize";
        for (const [status, response] of Object.entries(op.responses as Json)) {
          const schema = (response as Json).content?.["application/json"]?.schema;
          if (oauthShaped) continue;
          if (Number(status) >= 400) {
            if (schema?.$ref !== "#/components/schemas/ErrorEnvelope")
              problems.push(`${name} ${status}: not the error envelope`);
          } else if (
            schema &&
            schema.properties?.success?.enum?.[0] !== true &&
            schema.properties?.success?.const !== true
          ) {
            problems.push(`${name} ${status}: success response is not the envelope`);
          }
        }
        if (!oauthShaped && !Object.keys(op.responses).some((s) => Number(s) >= 400))
          problems.push(`${name}: no error responses`);
        const bounds: string[] = [];
        unbounded(op.requestBody?.content?.["application/json"]?.schema, "body", bounds);
        for (const p of op.parameters ?? []) unbounded(p.schema, `${p.in}.${p.name}`, bounds);
        if (bounds.length) problems.push(`${name}: unbounded ${bounds.join(", ")}`);
      }
    }
    assert.ok(operations >= 40, `only ${operations} operations`);
    assert.deepEqual(problems, []);
  });

  it("documents the security schemes and every webhook event", () => {
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), [
      "bearerAuth",
      "developerKey",
      "developerSecret",
      "sessionCookie",
    ]);
    assert.equal(Object.keys(doc.webhooks).length, 11);
    assert.ok(doc.webhooks["order.paid"].post.requestBody.content["application/json"].schema.properties.data);
  });

  it("is committed up to date (run `npm run openapi` after changing a route)", () => {
    const generated = execFileSync(process.execPath, [join(ROOT, "src/cli.ts"), "openapi"], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: "", LOG_LEVEL: "silent" },
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.ok(
      generated === readFileSync(join(ROOT, "openapi.json"), "utf8"),
      "openapi.json is stale: run npm run openapi",
    );
  });

  it("serves the interactive docs from the service itself (no CDN)", async () => {
    const page = await ctx.app.inject({ method: "GET", url: "/api/docs/ui/" });
    const html =
      page.statusCode === 302
        ? (await ctx.app.inject({ method: "GET", url: page.headers.location as string })).body
        : page.body;
    assert.match(html, /swagger-ui/i);
    assert.doesNotMatch(
      html,
      /https?:\/\/(?!localhost)[a-z0-9.-]+\.(com|net|org|io)\//i,
      "no external asset",
    );
  });
});
