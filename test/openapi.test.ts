import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import SwaggerParser from "@apidevtools/swagger-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { EVENT_NAMES } from "../src/contracts/index.ts";
import { ERROR_CODES } from "../src/lib/errors.ts";
import { flat } from "./catalogue.ts";
import { createTestContext, type Json, merchantWithStore, type TestContext } from "./harness.ts";
import { fetchDocument, inlineRefs, isRfc, type Operation, operationsOf } from "./openapi-doc.ts";

/**
 * The served OpenAPI document: valid OpenAPI 3.1, every operation fully described in the platform's
 * envelope with the closed error-code list, every request input bounded, and the committed
 * openapi.json identical to what `node src/cli.ts openapi` generates. Every check walks the whole
 * document and reports every offender at once, so routes added later are covered without edits here.
 *
 * The document and its JSON Schemas are walked as plain JSON (`Json`): what a test reads here is the
 * document's own structure, which its `paths` do not describe.
 */

const ROOT = join(import.meta.dirname, "..");
const CODES = Object.keys(ERROR_CODES).sort();
/** Formats whose grammar alone bounds the length of a valid value. `email` and `uri` do not. */
const BOUNDED_FORMATS = new Set(["date-time", "date", "time", "uuid", "ipv4", "ipv6"]);

function types(schema: Json): string[] {
  return Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
}

/** An anchored pattern with no `*`, `+` or `{n,}` outside character classes bounds the length. */
function patternBounds(pattern: string): boolean {
  if (!pattern.startsWith("^") || !pattern.endsWith("$") || pattern.endsWith("\\$")) return false;
  const bare = pattern.replace(/\\./g, "e").replace(/\[(?:\\.|[^\]])*\]/g, "c");
  return !/[*+]|\{\d*,\}/.test(bare);
}

/**
 * Appends to `out` every unbounded part of a request schema: strings without maxLength (or an
 * enum/const, a bounding pattern or format), arrays without maxItems, numbers without
 * minimum/maximum, and, in JSON bodies, objects that accept unknown properties.
 */
function unbounded(schema: unknown, where: string, out: string[], closedObjects: boolean): void {
  if (!schema || typeof schema !== "object") return;
  const s = schema as Json;
  const t = types(s);
  const fixed = s.enum !== undefined || s.const !== undefined;
  if (t.includes("string") && !fixed && s.maxLength === undefined) {
    const bounded = (s.pattern && patternBounds(s.pattern)) || BOUNDED_FORMATS.has(s.format);
    if (!bounded) out.push(`${where}: string without maxLength`);
  }
  if (t.includes("array") && s.maxItems === undefined && s.prefixItems === undefined)
    out.push(`${where}: array without maxItems`);
  if ((t.includes("integer") || t.includes("number")) && !fixed) {
    if (s.maximum === undefined && s.exclusiveMaximum === undefined)
      out.push(`${where}: number without maximum`);
    if (s.minimum === undefined && s.exclusiveMinimum === undefined)
      out.push(`${where}: number without minimum`);
  }
  // A map (app metadata) has no fixed fields, so it cannot be closed; it is bounded instead: how
  // many keys, each key's text, and each value (checked below through additionalProperties).
  const boundedMap =
    s.maxProperties !== undefined &&
    s.propertyNames?.maxLength !== undefined &&
    typeof s.additionalProperties === "object";
  if (t.includes("object") && closedObjects && s.additionalProperties !== false && !boundedMap)
    out.push(`${where}: object accepts unknown properties (additionalProperties is not false)`);
  for (const [k, v] of Object.entries((s.properties ?? {}) as Json))
    unbounded(v, `${where}.${k}`, out, closedObjects);
  for (const [k, v] of Object.entries((s.patternProperties ?? {}) as Json))
    unbounded(v, `${where}[/${k}/]`, out, closedObjects);
  if (s.additionalProperties && typeof s.additionalProperties === "object")
    unbounded(s.additionalProperties, `${where}.*`, out, closedObjects);
  if (s.items) unbounded(s.items, `${where}[]`, out, closedObjects);
  for (const [i, item] of ((s.prefixItems ?? []) as unknown[]).entries())
    unbounded(item, `${where}[${i}]`, out, closedObjects);
  for (const key of ["anyOf", "oneOf", "allOf"])
    for (const [i, sub] of ((s[key] ?? []) as unknown[]).entries())
      unbounded(sub, `${where}(${key}[${i}])`, out, closedObjects);
  for (const key of ["not", "if", "then", "else"]) unbounded(s[key], `${where}(${key})`, out, closedObjects);
}

/** The codes an error response's description names (`CODE`: ...), as errorResponses() writes them. */
function codesNamed(description: string): string[] {
  return [...description.matchAll(/`([A-Z][A-Z_]+)`/g)].map((m) => m[1]!);
}

function isEnvelopeSuccess(schema: Json): boolean {
  const success = schema.properties?.success;
  const isTrue = success?.const === true || (success?.enum?.length === 1 && success.enum[0] === true);
  return schema.type === "object" && isTrue && (schema.required ?? []).includes("success");
}

describe("OpenAPI document", () => {
  let ctx: TestContext;
  let doc: Json;
  let operations: Operation[];
  before(async () => {
    ctx = await createTestContext();
    doc = await fetchDocument(ctx.app);
    operations = operationsOf(doc);
  });
  after(() => ctx.close());

  it("validates as OpenAPI 3.1", async () => {
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    // validate() dereferences in place: give it a copy.
    await SwaggerParser.validate(structuredClone(doc) as never);
    assert.ok(operations.length >= 40, `only ${operations.length} operations: is the document complete?`);
  });

  it("has only well-formed JSON Schemas (2020-12), path templates matching path parameters", () => {
    // swagger-parser checks a 3.1 document's shape but not the schemas inside it, nor the path templates.
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    const problems: string[] = [];
    const compile = (where: string, schema: unknown) => {
      if (schema === undefined) return;
      try {
        const inlined = inlineRefs(doc, schema) as Json;
        delete inlined.$id;
        ajv.compile(inlined);
      } catch (error) {
        problems.push(`${where}: ${(error as Error).message}`);
      }
    };
    for (const [name, schema] of Object.entries((doc.components?.schemas ?? {}) as Json))
      compile(`components.schemas.${name}`, schema);
    for (const { name, path, op } of operations) {
      for (const [type, media] of Object.entries((op.requestBody?.content ?? {}) as Json))
        compile(`${name} requestBody ${type}`, (media as Json).schema);
      for (const [status, response] of Object.entries((op.responses ?? {}) as Json))
        for (const [type, media] of Object.entries(((response as Json).content ?? {}) as Json))
          compile(`${name} ${status} ${type}`, (media as Json).schema);
      const params = (op.parameters ?? []) as Json[];
      const seen = new Set<string>();
      for (const p of params) {
        compile(`${name} ${p.in} parameter ${p.name}`, p.schema);
        if (seen.has(`${p.in}:${p.name}`))
          problems.push(`${name}: parameter ${p.in} ${p.name} declared twice`);
        seen.add(`${p.in}:${p.name}`);
      }
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!).sort();
      const declared = params
        .filter((p) => p.in === "path")
        .map((p) => p.name as string)
        .sort();
      if (templated.join() !== declared.join())
        problems.push(`${name}: path template {${templated}} but path parameters [${declared}]`);
      for (const p of params.filter((p) => p.in === "path" && p.required !== true))
        problems.push(`${name}: path parameter ${p.name} is not required`);
    }
    for (const [event, item] of Object.entries((doc.webhooks ?? {}) as Json))
      compile(`webhook ${event}`, (item as Json).post?.requestBody?.content?.["application/json"]?.schema);
    assert.deepEqual(problems, [], `malformed schemas or parameters:\n  ${problems.join("\n  ")}`);
  });

  it("has the closed error-code list in the shared error envelope", () => {
    const envelope = doc.components?.schemas?.Error;
    assert.ok(envelope, "components.schemas.Error is missing");
    assert.deepEqual([...envelope.required].sort(), ["error", "message", "success"]);
    assert.deepEqual(envelope.properties.success.enum ?? [envelope.properties.success.const], [false]);
    const error = envelope.properties.error;
    assert.deepEqual([...error.required].sort(), ["code", "message", "requestId"]);
    assert.deepEqual(
      [...error.properties.code.enum].sort(),
      CODES,
      "ErrorEnvelope.error.code must list exactly the codes of src/lib/errors.ts",
    );
  });

  it("describes every operation: unique operationId, declared tags, summary and description, envelope responses, closed codes", () => {
    const problems: string[] = [];
    const ids = new Map<string, string>();
    const declaredTags = new Set(((doc.tags ?? []) as Json[]).map((t) => t.name));
    const schemes = doc.components?.securitySchemes ?? {};
    for (const { name, op } of operations) {
      if (typeof op.operationId !== "string" || !/^[a-z][A-Za-z0-9]*$/.test(op.operationId))
        problems.push(`${name}: operationId ${JSON.stringify(op.operationId)} is missing or not camelCase`);
      else if (ids.has(op.operationId))
        problems.push(`${name}: operationId ${op.operationId} is also used by ${ids.get(op.operationId)}`);
      else ids.set(op.operationId, name);
      if (!Array.isArray(op.tags) || op.tags.length === 0) problems.push(`${name}: no tags`);
      for (const tag of op.tags ?? [])
        if (!declaredTags.has(tag))
          problems.push(`${name}: tag "${tag}" is not declared in the document's tags`);
      if (typeof op.summary !== "string" || op.summary.trim() === "") problems.push(`${name}: no summary`);
      // The summary names the operation; the description says what a caller cannot guess from it.
      if (typeof op.description !== "string" || op.description.trim() === "")
        problems.push(`${name}: no description`);
      const security = (op.security ?? doc.security ?? []) as Json[];
      for (const requirement of security)
        for (const scheme of Object.keys(requirement))
          if (!schemes[scheme]) problems.push(`${name}: security scheme ${scheme} is not declared`);

      const responses = Object.entries((op.responses ?? {}) as Json);
      const ok = responses.filter(([status]) => /^2/.test(status));
      if (!ok.length && !responses.some(([status]) => /^3/.test(status)))
        problems.push(`${name}: no success response`);
      // A browser page (the consent screen) answers HTML; everything else is a JSON API.
      const jsonApi = ok.some(([, r]) => (r as Json).content?.["application/json"]);
      const rfc = isRfc(op);
      for (const [status, response] of responses) {
        const r = response as Json;
        const content = (r.content ?? {}) as Json;
        const code = Number(status);
        if (status === "default") {
          problems.push(`${name}: a "default" response hides which statuses can happen`);
          continue;
        }
        if (code >= 200 && code < 300) {
          if (!jsonApi || rfc) continue;
          for (const [type, media] of Object.entries(content)) {
            if (type !== "application/json") problems.push(`${name} ${status}: answers ${type}, not JSON`);
            else if (!isEnvelopeSuccess(inlineRefs(doc, (media as Json).schema) as Json))
              problems.push(`${name} ${status}: not the success envelope {success: true, data}`);
          }
          continue;
        }
        if (code < 400) continue; // redirects carry no body
        const json = content["application/json"]?.schema as Json | undefined;
        if (rfc) {
          const s = json && (inlineRefs(doc, json) as Json);
          if (!s?.properties?.error || !s?.properties?.error_description)
            problems.push(`${name} ${status}: not an RFC 6749 error {error, error_description}`);
          continue;
        }
        if (!jsonApi && !json) continue; // an HTML page's error page
        if (json?.$ref !== "#/components/schemas/Error")
          problems.push(`${name} ${status}: not the shared ErrorEnvelope`);
        for (const type of Object.keys(content))
          if (type !== "application/json") problems.push(`${name} ${status}: also answers ${type}`);
        const named = codesNamed(r.description ?? "");
        if (!named.length) problems.push(`${name} ${status}: the description names no error code`);
        for (const c of named) {
          const known = ERROR_CODES[c as keyof typeof ERROR_CODES];
          if (!known) problems.push(`${name} ${status}: names ${c}, which is not in the closed list`);
          else if (known.status !== code)
            problems.push(`${name} ${status}: names ${c}, which is ${known.status}`);
        }
      }
      if (jsonApi && !rfc) {
        const statuses = new Set(responses.map(([s]) => s));
        for (const required of ["400", "500"])
          if (!statuses.has(required)) problems.push(`${name}: does not document ${required}`);
      }
    }
    assert.deepEqual(problems, [], `${problems.length} problems:\n  ${problems.join("\n  ")}`);
  });

  it("bounds every request input: strings, arrays and numbers, and closes JSON bodies to unknown fields", () => {
    const offenders: string[] = [];
    for (const { name, op } of operations) {
      for (const [type, media] of Object.entries((op.requestBody?.content ?? {}) as Json)) {
        const schema = inlineRefs(doc, (media as Json).schema);
        // Form bodies are the OAuth RFCs' and must ignore unknown parameters (RFC 6749 section 3.2).
        unbounded(schema, `${name} body`, offenders, type === "application/json");
      }
      for (const p of (op.parameters ?? []) as Json[])
        unbounded(inlineRefs(doc, p.schema), `${name} ${p.in}.${p.name}`, offenders, false);
    }
    assert.deepEqual(offenders, [], `${offenders.length} unbounded inputs:\n  ${offenders.join("\n  ")}`);
  });

  it("declares security on every operation: OAuth scopes on the Admin API (none only where any token will do), [] on public operations", () => {
    const oauth = doc.components.securitySchemes.appOAuth;
    assert.equal(oauth?.type, "oauth2");
    const flow = oauth.flows.authorizationCode;
    for (const url of ["authorizationUrl", "tokenUrl", "refreshUrl"])
      assert.match(flow[url], /^https?:\/\//, url);
    assert.ok(Object.values(flow.scopes).every((d) => typeof d === "string" && d.length > 10));
    const problems: string[] = [];
    for (const { name, path, op } of operations) {
      if (!Array.isArray(op.security)) problems.push(`${name}: no security`);
      else if (path.startsWith("/api/v1/apps/api/")) {
        const scopes = op.security.flatMap((r: Json) => r.appOAuth ?? []);
        // `x-required-scope: null`: any valid token of the store (the store itself), no scope.
        const anyToken = op["x-required-scope"] === null && op.security.length === 1;
        if (anyToken ? scopes.length !== 0 : scopes.length !== 1 || !(scopes[0] in flow.scopes))
          problems.push(
            `${name}: needs exactly one declared OAuth scope, has ${JSON.stringify(op.security)}`,
          );
      }
    }
    const receivers = new Set<string>();
    const ids = new Set(operations.map(({ op }) => op.operationId));
    for (const [event, item] of Object.entries(doc.webhooks as Json)) {
      const post = (item as Json).post;
      if (!Array.isArray(post.security)) problems.push(`webhook ${event}: no security`);
      // Code generators name the receiver's handler after it: one each, never an endpoint's.
      if (
        typeof post.operationId !== "string" ||
        ids.has(post.operationId) ||
        receivers.has(post.operationId)
      )
        problems.push(
          `webhook ${event}: operationId ${JSON.stringify(post.operationId)} is missing or not unique`,
        );
      receivers.add(post.operationId);
    }
    assert.deepEqual(problems, []);
  });

  it("names the resources and event payloads as components, referenced by $ref", () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of [
      "Product",
      "Order",
      "Customer",
      "Store",
      "WebhookSubscription",
      "WebhookDelivery",
      "Error",
    ])
      assert.ok(names.includes(name), `components.schemas.${name} is missing`);
    const text = JSON.stringify(doc.paths);
    assert.ok(text.includes('"$ref":"#/components/schemas/Product"'), "Product is not referenced");
    for (const [event, item] of Object.entries(doc.webhooks as Json)) {
      const ref = (item as Json).post.requestBody.content["application/json"].schema.$ref as string;
      assert.match(ref ?? "", /^#\/components\/schemas\/[A-Z]\w+Event$/, `webhook ${event}`);
    }
    const inline: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== "object") return;
      if (typeof (node as Json).title === "string" && (node as Json).type === "object") inline.push(at);
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    walk(doc.paths, "#/paths");
    assert.deepEqual(inline, [], "titled schemas left inline");
  });

  it("never marks a parameter with a default as required", () => {
    const offenders = operations.flatMap(({ name, op }) =>
      ((op.parameters ?? []) as Json[])
        .filter((p) => p.required && p.schema?.default !== undefined)
        .map((p) => `${name} ${p.name}`),
    );
    assert.deepEqual(offenders, []);
  });

  it("has an example of each operation's success and main error, each valid against its schema", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const problems: string[] = [];
    for (const { name, op } of operations) {
      const examples = Object.entries(op.responses as Json).flatMap(([status, response]) => {
        const media = (response as Json).content?.["application/json"];
        const values = [
          ...(media?.example !== undefined ? [media.example] : []),
          ...Object.values((media?.examples ?? {}) as Json).map((e) => (e as Json).value),
        ];
        return values.map((value) => ({ status, media, value }));
      });
      const hasJson = (re: RegExp) =>
        Object.entries(op.responses as Json).some(
          ([s, r]) => re.test(s) && (r as Json).content?.["application/json"],
        );
      if (hasJson(/^2/) && !examples.some((e) => /^2/.test(e.status)))
        problems.push(`${name}: no success example`);
      if (hasJson(/^4/) && !examples.some((e) => /^4/.test(e.status)))
        problems.push(`${name}: no error example`);
      for (const { status, media, value } of examples) {
        const validate = ajv.compile(inlineRefs(doc, media.schema) as object);
        if (!validate(value))
          problems.push(`${name} ${status}: example invalid: ${ajv.errorsText(validate.errors)}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it("documents the headers the server sends: request id, rate limits, Retry-After, WWW-Authenticate, Location", () => {
    const headers = (path: string, method: string, status: string) =>
      Object.keys(doc.paths[path][method].responses[status].headers ?? {});
    assert.ok(headers("/api/v1/apps/api/products", "get", "200").includes("X-RateLimit-Remaining"));
    assert.ok(headers("/api/v1/apps/api/products", "get", "429").includes("Retry-After"));
    assert.ok(headers("/api/v1/apps/api/products", "get", "401").includes("WWW-Authenticate"));
    assert.ok(headers("/api/v1/developer/products", "get", "200").includes("X-RateLimit-Limit"));
    assert.ok(headers("/api/v1/apps/api/products", "post", "201").includes("Location"));
    assert.ok(headers("/api/v1/apps/api/products", "post", "201").includes("Idempotency-Replayed"));
    for (const { name, op } of operations)
      for (const [status, response] of Object.entries(op.responses as Json))
        assert.ok(
          (response as Json).headers?.["X-Request-Id"],
          `${name} ${status}: X-Request-Id not documented`,
        );
  });

  it("sends what it documents: Location on a create (replays too), the request id in error bodies", async () => {
    const m = await merchantWithStore(ctx.app);
    const key = { "idempotency-key": `loc-${Date.now()}` };
    const created = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({ title: "Mug", price: "12.00" }),
      headers: key,
    });
    assert.equal(created.response.status, 201);
    assert.equal(created.response.headers.get("location"), `${m.base}/products/${created.data!.data.id}`);
    const replay = await m.client.POST("/api/v1/dashboard/stores/{slug}/products", {
      params: { path: { slug: m.slug } },
      body: flat({ title: "Mug", price: "12.00" }),
      headers: key,
    });
    assert.equal(replay.response.headers.get("idempotency-replayed"), "true");
    assert.equal(replay.response.headers.get("location"), created.response.headers.get("location"));
    // The Location (asserted above to be this product's path) is readable.
    assert.equal(
      (
        await m.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
          params: { path: { slug: m.slug, id: created.data!.data.id } },
        })
      ).response.status,
      200,
    );
    const store = await m.client.POST("/api/v1/dashboard/stores", {
      body: {
        name: "Second",
        slug: `s-${Date.now()}`,
      },
    });
    assert.equal(store.response.status, 201);
    assert.equal(store.response.headers.get("location"), null, "no GET /stores/{id}: no Location");
    const missing = await m.client.GET("/api/v1/dashboard/stores/{slug}/products/{id}", {
      params: { path: { slug: m.slug, id: "prod_0000000000000000000000" } },
      headers: {
        "x-request-id": "trace-42",
      },
    });
    assert.equal(missing.response.status, 404);
    assert.equal(missing.response.headers.get("x-request-id"), "trace-42");
    assert.equal(missing.error!.error.requestId, "trace-42");
  });

  it("declares and uses the same security schemes, and documents every webhook event", () => {
    const declared = Object.keys(doc.components?.securitySchemes ?? {}).sort();
    const used = new Set<string>();
    for (const { op } of operations)
      for (const requirement of (op.security ?? []) as Json[])
        for (const s of Object.keys(requirement)) used.add(s);
    assert.deepEqual([...used].sort(), declared, "a declared security scheme is used by no operation");
    // Every event of the contract is documented (the list itself is EVENT_NAMES: not restated here).
    assert.deepEqual(
      Object.keys(doc.webhooks ?? {}).sort(),
      [...EVENT_NAMES].sort(),
      "every event is documented",
    );
    for (const [event, item] of Object.entries(doc.webhooks as Json))
      assert.ok((item as Json).post?.requestBody?.content?.["application/json"]?.schema, `${event}: no body`);
  });

  it("states the configured limits, not numbers restated in prose, and cites no private spec", async () => {
    const tuned = await createTestContext({
      RATE_LIMIT_PER_MINUTE: "60",
      ACCESS_TOKEN_TTL_SECONDS: "900",
      WEBHOOK_MAX_ATTEMPTS: "5",
      WEBHOOK_RETRY_BASE_MS: "30000",
    });
    try {
      const text = JSON.stringify(await fetchDocument(tuned.app));
      assert.match(text, /60 accepted requests per installation/);
      assert.match(text, /60 requests per key pair/);
      assert.match(text, /access token \(`mpat_…`, 15 min,/);
      assert.match(text, /5 attempts, 30 s doubling/);
      assert.doesNotMatch(text, /180 (accepted )?requests|8 attempts, 1 min/);
    } finally {
      await tuned.close();
    }
    assert.doesNotMatch(
      JSON.stringify(doc),
      /\b[Ss]pec(ification)? \d|the spec's/,
      "the document is public; the spec is not",
    );
  });

  it("is committed up to date: openapi.json equals `node src/cli.ts openapi`", () => {
    const generated = execFileSync(process.execPath, [join(ROOT, "src/cli.ts"), "openapi"], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: "", LOG_LEVEL: "silent" },
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.ok(JSON.parse(generated).paths, "`node src/cli.ts openapi` printed no document");
    const file = join(ROOT, "openapi.json");
    assert.ok(existsSync(file), "openapi.json is missing: run npm run openapi");
    const committed = readFileSync(file, "utf8");
    if (generated !== committed) {
      const a = committed.split("\n");
      const b = generated.split("\n");
      const line = a.findIndex((l, i) => l !== b[i]);
      assert.fail(
        `openapi.json is stale: run npm run openapi (first difference at line ${line + 1}:\n` +
          `  committed: ${a[line]?.trim().slice(0, 150)}\n  generated: ${b[line]?.trim().slice(0, 150)})`,
      );
    }
  });

  it("serves the interactive docs from the service itself (no CDN)", async () => {
    const page = await ctx.app.inject({ method: "GET", url: "/api/docs/ui/" });
    const html =
      page.statusCode === 302
        ? (await ctx.app.inject({ method: "GET", url: page.headers.location as string })).body
        : page.body;
    assert.match(html, /swagger-ui/i);
    assert.doesNotMatch(html, /(?:src|href)=["']?(?:https?:)?\/\//i, "an asset from another origin");
  });

  it("sends the docs' files and the dashboard's compressed as the client accepts, the same bytes once decoded", async () => {
    const dashboard = await ctx.app.inject({ method: "GET", url: "/" });
    const bundle = /src="(\/assets\/[^"]+\.js)"/.exec(dashboard.body)?.[1];
    assert.ok(bundle, "the dashboard's page names its script");
    const decode: Record<string, (b: Buffer) => Buffer> = {
      br: brotliDecompressSync,
      gzip: gunzipSync,
      identity: (b) => b,
    };
    for (const url of [bundle, "/api/docs/ui/static/swagger-ui-bundle.js", "/api/docs/openapi.json"]) {
      const plain = await ctx.app.inject({ method: "GET", url });
      assert.equal(plain.statusCode, 200, url);
      assert.equal(plain.headers["content-encoding"], undefined, `${url}: nothing accepted, nothing encoded`);
      for (const [accept, expected] of [
        ["gzip, deflate, br", "br"],
        ["gzip", "gzip"],
        ["identity", "identity"],
      ] as const) {
        const res = await ctx.app.inject({ method: "GET", url, headers: { "accept-encoding": accept } });
        assert.equal(res.statusCode, 200, url);
        assert.equal(res.headers["content-encoding"] ?? "identity", expected, `${url} with ${accept}`);
        assert.match(String(res.headers.vary), /accept-encoding/i, `${url}: caches keep the variants apart`);
        assert.ok(
          decode[expected]!(res.rawPayload).equals(plain.rawPayload),
          `${url} with ${accept}: the same bytes`,
        );
        if (expected !== "identity")
          assert.ok(
            res.rawPayload.length * 3 < plain.rawPayload.length,
            `${url}: ${res.rawPayload.length} bytes`,
          );
      }
    }
  });
});
