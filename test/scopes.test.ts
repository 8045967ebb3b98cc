import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { SCOPE_NAMES, STORE_SCOPE_NAMES } from "../src/contracts/scopes.ts";
import { KEY_SCOPE_NAMES } from "../src/modules/api-keys/api-keys-schemas.ts";
import { consent, exchange, REDIRECT } from "./apps-harness.ts";
import {
  createTestContext,
  injectAny,
  type Json,
  merchantWithStore,
  type TestContext,
  text,
} from "./harness.ts";
import { openApiChecker } from "./openapi-assert.ts";
import { inlineRefs, type Operation, operationsOf } from "./openapi-doc.ts";

/**
 * Scopes mean what they say on every route (issue 9, item 10). Everything here is generated from
 * the served OpenAPI document, which the routes' own declarations produce (each route states its
 * scope once; the helper writes it into the security requirement and the description, and into the
 * route config that the family's guard checks). No operation is listed by hand: a route added later
 * is covered, and one added without a scope fails here (and fails to register at all).
 *
 * The walk over every operation reads the document and the answers as plain JSON (`Json`): its
 * paths come from the document at run time, so there is no literal path to type a call by.
 */

const ADMIN = "/api/v1/apps/api";
const DEV = "/api/v1/developer";
const STORE = "/api/v1/dashboard/stores/{slug}";
const WRITES = new Set(["post", "put", "patch", "delete"]);

/** The store-scoped families: their operations, and the scopes a route of each may require. */
const FAMILIES = [
  { name: "Admin API", prefix: ADMIN, scopes: SCOPE_NAMES as readonly string[] },
  { name: "developer API", prefix: DEV, scopes: KEY_SCOPE_NAMES as readonly string[] },
  { name: "dashboard (a store)", prefix: STORE, scopes: STORE_SCOPE_NAMES as readonly string[] },
];

/**
 * Scope names the walk read from the document at run time, checked against the contract's list of
 * the family: typed by the list they are in.
 */
function checked<S extends string>(names: readonly string[], allowed: readonly S[]): S[] {
  for (const name of names)
    assert.ok((allowed as readonly string[]).includes(name), `${name}: not a scope here`);
  return names as S[];
}

const familyOf = (path: string) => FAMILIES.find((f) => path === f.prefix || path.startsWith(`${f.prefix}/`));

/**
 * The scope an operation documents: its `x-required-scope`, or null for "any valid credential of
 * the store"; the OAuth family lists the same one scope in its security requirement. Throws when the
 * document is ambiguous.
 */
function declaredScope(o: Operation): string | null {
  const requirements = (o.op.security ?? []) as Json[];
  if (requirements.length !== 1) throw new Error(`${requirements.length} security requirements`);
  if (!("x-required-scope" in o.op)) throw new Error("no x-required-scope");
  const scope = o.op["x-required-scope"] as string | null;
  const listed = [...new Set(Object.values(requirements[0]!).flat() as string[])];
  if (listed.length > 1 || (listed.length === 1 && listed[0] !== scope))
    throw new Error(`security lists ${listed.join(", ")}, x-required-scope says ${scope}`);
  return scope;
}

/** A made-up id for a path parameter: ids here are `<prefix>_` + N base62 characters. */
function madeUpId(schema: Json): string {
  const match = /^\^([a-z]+_)\[0-9A-Za-z\]\{(\d+)\}\$$/.exec(String(schema.pattern ?? ""));
  if (!match) throw new Error(`cannot make up a value for pattern ${schema.pattern}: teach madeUpId`);
  return match[1]! + "a".repeat(Number(match[2]));
}

describe("route table: every store-scoped operation states the scope it needs", () => {
  let ctx: TestContext;
  let operations: Operation[];
  before(async () => {
    ctx = await createTestContext();
    const spec = await openApiChecker(ctx.app);
    operations = operationsOf(spec.doc).filter((o) => familyOf(o.path));
  });
  after(() => ctx.close());

  it("documents one scope from its family's set (or explicitly none), and a write never carries a read scope", () => {
    const problems: string[] = [];
    for (const o of operations) {
      const family = familyOf(o.path)!;
      let scope: string | null;
      try {
        scope = declaredScope(o);
      } catch (error) {
        problems.push(`${o.name}: ${(error as Error).message}`);
        continue;
      }
      const said = scope ? `**Required scope:** \`${scope}\`` : "**Required scope:** none";
      if (!String(o.op.description ?? "").includes(said))
        problems.push(`${o.name}: the description does not say "${said}"`);
      if (scope === null) {
        if (WRITES.has(o.method)) problems.push(`${o.name}: a write that needs no scope`);
        continue;
      }
      if (!family.scopes.includes(scope))
        problems.push(`${o.name}: ${scope} is not a scope of the ${family.name}`);
      if (WRITES.has(o.method) && !/^(write|manage)_/.test(scope))
        problems.push(`${o.name} (${o.op.operationId}): a write carrying ${scope}`);
      if (!WRITES.has(o.method) && !/^(read|manage)_/.test(scope))
        problems.push(`${o.name} (${o.op.operationId}): a read carrying ${scope}`);
      if (!o.op.responses?.["403"]) problems.push(`${o.name}: does not document 403 INSUFFICIENT_SCOPE`);
    }
    assert.deepEqual(problems, [], `${problems.length} problems:\n  ${problems.join("\n  ")}`);
    const count = (prefix: string) => operations.filter((o) => o.path.startsWith(prefix)).length;
    assert.ok(count(ADMIN) >= 12 && count(DEV) >= 6 && count(STORE) >= 18, "the document lost operations");
  });
});

describe("Admin API and developer API: every operation checks exactly the scope it declares", () => {
  let ctx: TestContext;
  let spec: Awaited<ReturnType<typeof openApiChecker>>;
  before(async () => {
    ctx = await createTestContext();
    spec = await openApiChecker(ctx.app);
  });
  after(() => ctx.close());

  it("answers 403 INSUFFICIENT_SCOPE naming the scope to a credential with every other scope, and serves one holding only that scope", async () => {
    const merchant = await merchantWithStore(ctx.app);
    const developer = await merchantWithStore(ctx.app);
    const credentials = new Map<string, Record<string, string>>();

    /** Headers of an Admin API token for a new installation holding exactly `scopes`. */
    async function bearer(names: readonly string[]) {
      const scopes = checked(names, SCOPE_NAMES);
      const registered = await developer.client.POST("/api/v1/dashboard/apps", {
        body: {
          name: `Scopes ${scopes.join(" ")}`.slice(0, 100),
          redirectUris: [REDIRECT],
          scopes,
        },
      });
      assert.equal(registered.response.status, 201, text(registered));
      const { clientId, clientSecret } = registered.data!.data;
      const { code } = await consent(merchant, clientId, scopes);
      const tokens = await exchange(ctx.app, {
        slug: merchant.slug,
        code,
        redirectUri: REDIRECT,
        clientId,
        clientSecret,
      });
      assert.equal(tokens.response.status, 200, text(tokens));
      assert.deepEqual(tokens.data!.data.scopes, [...scopes].sort());
      return { authorization: `Bearer ${tokens.data!.data.accessToken}` };
    }
    /** Headers of a developer key pair of the same store holding exactly `scopes`. */
    async function keyPair(names: readonly string[]) {
      const scopes = checked(names, KEY_SCOPE_NAMES);
      const created = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
        params: { path: { slug: merchant.slug } },
        body: { name: "Scopes", scopes },
      });
      assert.equal(created.response.status, 201, text(created));
      assert.deepEqual([...created.data!.data.scopes].sort(), [...scopes].sort());
      return { "x-api-key": created.data!.data.keyId, "x-api-secret": created.data!.data.secret };
    }
    async function credential(family: (typeof FAMILIES)[number], scopes: readonly string[]) {
      const key = `${family.prefix} ${[...scopes].sort().join(" ")}`;
      if (!credentials.has(key))
        credentials.set(
          key,
          family.prefix === ADMIN ? await bearer([...scopes]) : await keyPair([...scopes]),
        );
      return credentials.get(key)!;
    }

    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const problems: string[] = [];
    const tested = { admin: 0, developer: 0 };
    for (const o of operationsOf(spec.doc)) {
      const family = familyOf(o.path);
      if (!family || family.prefix === STORE) continue;
      tested[family.prefix === ADMIN ? "admin" : "developer"]++;
      let scope: string | null;
      try {
        scope = declaredScope(o);
      } catch (error) {
        problems.push(`${o.name}: ${(error as Error).message}`);
        continue;
      }

      // The request: made-up ids, an empty JSON body where the operation takes one.
      let url = o.path;
      for (const p of ((o.op.parameters ?? []) as Json[]).filter((p) => p.in === "path"))
        url = url.replace(`{${p.name}}`, madeUpId(inlineRefs(spec.doc, p.schema) as Json));
      const bodySchema = o.op.requestBody?.content?.["application/json"]?.schema;
      const body = bodySchema ? {} : undefined;
      // What the right credential must get, decided from the document alone: 400 when `{}` is not a
      // valid body, else 404 for a made-up id, else the documented success.
      const expected: { status: number; code?: string } =
        bodySchema && !ajv.validate(inlineRefs(spec.doc, bodySchema) as object, body)
          ? { status: 400, code: "VALIDATION_FAILED" }
          : url !== o.path
            ? { status: 404, code: "NOT_FOUND" }
            : { status: Number(Object.keys(o.op.responses).find((s) => /^2/.test(s))) };
      const streaming = Object.values(o.op.responses as Json).some(
        (r) => (r as Json).content?.["text/event-stream"],
      );
      const call = async (
        scopes: readonly string[],
      ): Promise<{ status: number; body: Json; headers: Record<string, unknown> }> => {
        const headers = await credential(family, scopes);
        if (streaming) {
          // A stream that is served never ends: its status and headers are the answer.
          const res = await injectAny(ctx.app, { method: o.method.toUpperCase(), url, headers });
          return { status: res.statusCode, body: res.body ? res.json() : {}, headers: res.headers };
        }
        // Every operation of the document, its path read from the document at run time: there is no
        // literal path to type the call by, so it is injected and its answer read as plain JSON.
        const res = await ctx.app.inject({
          method: o.method.toUpperCase() as "GET",
          url,
          headers: { ...(o.method !== "get" ? { "content-type": "application/json" } : {}), ...headers },
          ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
        });
        let parsed: Json;
        try {
          parsed = res.json();
        } catch {
          parsed = { text: res.body };
        }
        const answer = { status: res.statusCode, body: parsed, headers: res.headers };
        spec.check(o.method, o.path, answer);
        return answer;
      };
      const answered = (res: { status: number; body: Json }) =>
        `${res.status} ${res.body.error?.code ?? ""} ${res.body.error?.message ?? ""}`.trim();

      if (scope === null) {
        // Any valid credential of the store: each single-scope one is served.
        for (const only of family.scopes) {
          const res = await call([only]);
          if (res.status !== expected.status || (expected.code && res.body.error?.code !== expected.code))
            problems.push(`${o.name} needs no scope, but [${only}] got ${answered(res)}`);
        }
        continue;
      }

      const others = family.scopes.filter((s) => s !== scope);
      const refused = await call(others);
      if (refused.status !== 403 || refused.body.error?.code !== "INSUFFICIENT_SCOPE")
        problems.push(`${o.name} needs ${scope}: every other scope got ${answered(refused)}, not 403`);
      else if (refused.body.error.details?.requiredScope !== scope)
        problems.push(`${o.name}: the 403 names ${refused.body.error.details?.requiredScope}, not ${scope}`);
      else if (
        family.prefix === ADMIN &&
        !String(refused.headers["www-authenticate"]).includes(`error="insufficient_scope", scope="${scope}"`)
      )
        problems.push(
          `${o.name}: WWW-Authenticate does not name ${scope}: ${refused.headers["www-authenticate"]}`,
        );

      const served = await call([scope]);
      if (served.status !== expected.status || (expected.code && served.body.error?.code !== expected.code))
        problems.push(
          `${o.name} needs ${scope}: [${scope}] got ${answered(served)}, expected ${expected.status} ${expected.code ?? ""}`,
        );
    }
    assert.ok(tested.admin >= 12 && tested.developer >= 6, `only ${JSON.stringify(tested)} operations`);
    assert.deepEqual(problems, [], `${problems.length} problems:\n  ${problems.join("\n  ")}`);
  });
});
