import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { STORE_ROLE_NAMES, STORE_ROLES, type StaffRole, type StoreRole } from "../src/contracts/roles.ts";
import { STORE_SCOPE_NAMES } from "../src/contracts/scopes.ts";
import { exampleOf } from "../src/lib/http/openapi-examples.ts";
import {
  type Api,
  apiClient,
  createTestContext,
  injectAny,
  type Json,
  merchantWithStore,
  type TestContext,
  text,
  uniqueEmail,
} from "./harness.ts";
import { openApiChecker } from "./openapi-assert.ts";
import { inlineRefs, operationsOf } from "./openapi-doc.ts";

/**
 * Every dashboard operation of a store against every role (issue 32, part 3), generated from the
 * served document as test/scopes.test.ts does for apps and key pairs: no operation or role is
 * listed by hand, so a route added later is covered. A role without the operation's scope gets 403
 * `INSUFFICIENT_SCOPE` naming it; a role with it is served (whatever the operation then answers to
 * made-up ids and example bodies, it is never a refusal, a 401 or a 5xx). The dashboard's guard
 * runs after validation (it needs the validated slug), so a body no example satisfies is a 400 for
 * every role: those operations are counted and bounded below.
 */

const STORE = "/api/v1/dashboard/stores/{slug}";
const PASSWORD = "correct horse battery";

function madeUpId(schema: Json): string {
  const match = /^\^([a-z]+_)\[0-9A-Za-z\]\{(\d+)\}\$$/.exec(String(schema.pattern ?? ""));
  if (!match) throw new Error(`cannot make up a value for pattern ${schema.pattern}`);
  return match[1]! + "a".repeat(Number(match[2]));
}

describe("roles: every dashboard operation of a store checks the role's scopes", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  it("refuses each role the operations outside its scopes (403 naming the scope) and serves it the others", async () => {
    const spec = await openApiChecker(ctx.app);
    const owner = await merchantWithStore(ctx.app);
    const clients = new Map<StoreRole, Api>([["owner", owner.client]]);
    for (const role of STORE_ROLE_NAMES) {
      if (role === "owner") continue;
      const client = apiClient(ctx.app);
      const email = uniqueEmail(role);
      assert.equal(
        (
          await client.POST("/api/v1/dashboard/auth/signup", {
            body: { email, password: PASSWORD, name: role },
          })
        ).response.status,
        201,
      );
      const invited = await owner.client.POST("/api/v1/dashboard/stores/{slug}/staff/invitations", {
        params: { path: { slug: owner.slug } },
        body: { email, role: role as StaffRole },
      });
      assert.equal(invited.response.status, 201, text(invited));
      const token = new URL(invited.data!.data.acceptUrl).hash.replace("#token=", "");
      const accepted = await client.POST("/api/v1/dashboard/invitations/accept", { body: { token } });
      assert.equal(accepted.response.status, 200, text(accepted));
      clients.set(role, client);
    }

    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    const problems: string[] = [];
    const tally = { operations: 0, refusals: 0, refusalsAfterValidation: 0, served: 0 };
    const operations = operationsOf(spec.doc).filter((o) => o.path.startsWith(STORE));
    for (const o of operations) {
      tally.operations++;
      const scope = o.op["x-required-scope"] as string | null;
      if (scope !== null && !(STORE_SCOPE_NAMES as readonly string[]).includes(scope)) {
        problems.push(`${o.name}: ${scope} is not a store scope`);
        continue;
      }
      let url = o.path.replace("{slug}", owner.slug);
      for (const p of ((o.op.parameters ?? []) as Json[]).filter((p) => p.in === "path" && p.name !== "slug"))
        url = url.replace(`{${p.name}}`, madeUpId(inlineRefs(spec.doc, p.schema) as Json));
      const bodySchema = o.op.requestBody?.content?.["application/json"]?.schema;
      let body: unknown;
      let validBody = true;
      if (bodySchema) {
        const schema = inlineRefs(spec.doc, bodySchema) as object;
        const example = exampleOf(bodySchema, spec.doc);
        body = ajv.validate(schema, example) ? example : ajv.validate(schema, {}) ? {} : example;
        validBody = ajv.validate(schema, body);
      }
      const streaming = Object.values(o.op.responses as Json).some(
        (r) => (r as Json).content?.["text/event-stream"],
      );
      const call = async (role: StoreRole) => {
        const headers = {
          cookie: clients.get(role)!.jar.cookie ?? "",
          ...(o.method !== "get" ? { "content-type": "application/json" } : {}),
        };
        if (streaming) {
          const res = await injectAny(ctx.app, { method: o.method.toUpperCase(), url, headers });
          return { status: res.statusCode, body: (res.body ? res.json() : {}) as Json };
        }
        const res = await ctx.app.inject({
          method: o.method.toUpperCase() as "GET",
          url,
          headers,
          ...(o.method !== "get" ? { payload: JSON.stringify(body ?? {}) } : {}),
        });
        let parsed: Json;
        try {
          parsed = res.json();
        } catch {
          parsed = { text: res.body };
        }
        spec.check(o.method, o.path, { status: res.statusCode, body: parsed });
        return { status: res.statusCode, body: parsed };
      };
      const answered = (res: { status: number; body: Json }) =>
        `${res.status} ${res.body.error?.code ?? ""} ${res.body.error?.message ?? ""}`.trim();

      // Refusals first, then the roles served (whose writes may change the store).
      const holds = (role: StoreRole) =>
        scope === null || (STORE_ROLES[role].scopes as readonly string[]).includes(scope);
      const order = [...STORE_ROLE_NAMES].sort((a, b) => Number(holds(a)) - Number(holds(b)));
      for (const role of order) {
        const res = await call(role);
        if (!holds(role)) {
          if (!validBody) {
            tally.refusalsAfterValidation++;
            if (res.status !== 400)
              problems.push(`${o.name} as ${role} (invalid body): ${answered(res)}, not 400`);
            continue;
          }
          tally.refusals++;
          if (res.status !== 403 || res.body.error?.code !== "INSUFFICIENT_SCOPE")
            problems.push(`${o.name} needs ${scope}: ${role} got ${answered(res)}, not 403`);
          else if (res.body.error.details?.requiredScope !== scope)
            problems.push(`${o.name}: the 403 names ${res.body.error.details?.requiredScope}, not ${scope}`);
          continue;
        }
        tally.served++;
        if (
          res.status >= 500 ||
          res.status === 401 ||
          res.body.error?.code === "INSUFFICIENT_SCOPE" ||
          res.body.error?.message === "Store not found."
        )
          problems.push(`${o.name} (${scope ?? "no scope"}): ${role} holds it but got ${answered(res)}`);
      }
    }
    assert.deepEqual(problems, [], `${problems.length} problems:\n  ${problems.join("\n  ")}`);
    // Most refusals are checked past validation; the rest are bodies no example satisfies.
    assert.ok(tally.operations >= 75, `only ${tally.operations} operations`);
    assert.ok(
      tally.refusals > 3 * tally.refusalsAfterValidation,
      `too few refusals checked past validation: ${JSON.stringify(tally)}`,
    );
    console.log(`roles: ${JSON.stringify(tally)}`);
  });
});
