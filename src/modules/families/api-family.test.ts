import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify from "fastify";
import Type from "typebox";
import type { StoreScope } from "../../contracts/scopes.ts";
import { AppError } from "../../lib/errors.ts";
import { installErrorHandling } from "../../lib/http/error-handler.ts";
import { Envelope, ErrorEnvelope } from "../../lib/http/schemas.ts";
import { type FamilyGuard, familyRoute, installFamilyGuard } from "./api-family.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Another hook's route config, as another module would add it. */
    testMarker?: boolean;
  }
}

/** A family whose credential is the `x-scopes` header: the scopes it holds, comma-separated. */
const route = familyRoute<StoreScope>({
  security: (scopes) => [{ testKey: scopes }],
  authErrors: ["UNAUTHENTICATED"],
  scopeHolder: "held by the test key",
  anyCredential: "any test key",
});

const guard: FamilyGuard = {
  stage: "onRequest",
  authenticate: async (request) => {
    if (typeof request.headers["x-scopes"] !== "string") throw new AppError("UNAUTHENTICATED");
  },
  granted: (request) => String(request.headers["x-scopes"]).split(",") as StoreScope[],
  refusal: (scope) => ({ message: `needs ${scope}`, headers: { "x-needs": scope } }),
};

async function appWith(register: (app: ReturnType<typeof newApp>) => void) {
  const app = newApp();
  app.addSchema(ErrorEnvelope); // what the error responses refer to
  installErrorHandling(app);
  await app.register(async (scope) => {
    const family = scope.withTypeProvider<TypeBoxTypeProvider>();
    installFamilyGuard(family, guard);
    register(family);
  });
  await app.ready();
  return app;
}
const newApp = () => Fastify().withTypeProvider<TypeBoxTypeProvider>();
const ok = { 200: Envelope(Type.String()) };

describe("API families: a route's declared scope is the one checked", () => {
  it("checks exactly the scope the route declares, and nothing for an `authenticated` route", async () => {
    const app = await appWith((family) => {
      const handler = async () => ({ success: true as const, data: "done" });
      family.post(
        "/orders",
        route({ operationId: "createOrder", scope: "write_orders", tags: ["t"], summary: "s", response: ok }),
        handler,
      );
      family.get(
        "/store",
        route({ operationId: "getStore", scope: "authenticated", tags: ["t"], summary: "s", response: ok }),
        handler,
      );
    });
    const call = (method: "GET" | "POST", url: string, scopes?: string) =>
      app.inject({ method, url, headers: scopes === undefined ? {} : { "x-scopes": scopes } });

    const refused = await call("POST", "/orders", "read_orders,read_products");
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error.code, "INSUFFICIENT_SCOPE");
    assert.deepEqual(refused.json().error.details, {
      requiredScope: "write_orders",
      grantedScopes: ["read_orders", "read_products"],
    });
    assert.equal(refused.headers["x-needs"], "write_orders");
    assert.equal((await call("POST", "/orders", "write_orders")).statusCode, 200);
    assert.equal((await call("POST", "/orders")).statusCode, 401, "authentication comes first");
    assert.equal((await call("GET", "/store", "read_orders")).statusCode, 200);
    assert.equal((await call("GET", "/store")).statusCode, 401);
    await app.close();
  });

  it("runs the route's authorize step on the validated body, after the scope and before the route's own preHandlers", async () => {
    const seen: string[] = [];
    const app = await appWith((family) => {
      family.post(
        "/subscriptions",
        {
          ...route({
            operationId: "subscribe",
            scope: "read_orders",
            tags: ["t"],
            summary: "s",
            body: Type.Object({ event: Type.String({ maxLength: 20 }) }),
            response: ok,
            authorize: (request) => {
              seen.push(`authorize:${request.body.event}`);
              if (request.body.event === "customer.created")
                throw new AppError("INSUFFICIENT_SCOPE", { details: { requiredScope: "read_customers" } });
            },
          }),
          // Where the idempotency key is looked up: a route-level preHandler, appended last.
          preHandler: async () => void seen.push("route preHandler"),
        },
        async () => {
          seen.push("handler");
          return { success: true as const, data: "done" };
        },
      );
    });
    const post = (scopes: string, body: unknown) =>
      app.inject({
        method: "POST",
        url: "/subscriptions",
        headers: { "x-scopes": scopes },
        payload: body as object,
      });

    assert.equal((await post("read_orders", { event: "order.created" })).statusCode, 200);
    assert.deepEqual(seen.splice(0), ["authorize:order.created", "route preHandler", "handler"]);
    const refused = await post("read_orders", { event: "customer.created" });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error.code, "INSUFFICIENT_SCOPE");
    assert.deepEqual(seen.splice(0), ["authorize:customer.created"], "nothing after a refusal");
    assert.equal((await post("write_orders", { event: "order.created" })).statusCode, 403);
    assert.equal((await post("read_orders", {})).statusCode, 400);
    assert.deepEqual(seen, [], "the step sees only a request with the route's scope and a valid body");
    await app.close();
  });

  it("refuses to register a route of the family that declares no scope", async () => {
    await assert.rejects(
      appWith((family) => {
        family.get("/naked", { schema: { response: ok } }, async () => ({
          success: true as const,
          data: "x",
        }));
      }),
      /GET \/naked declares no scope/,
    );
  });

  it("documents the scope in the security requirement, the description and the 403 response", () => {
    const scoped = route({
      operationId: "createOrder",
      scope: "write_orders",
      tags: ["t"],
      summary: "s",
      description: "Makes an order.",
      response: ok,
      errors: ["CONFLICT"],
      config: { testMarker: true },
    });
    assert.deepEqual(scoped.config, { testMarker: true, scope: "write_orders" });
    assert.deepEqual(scoped.schema.security, [{ testKey: ["write_orders"] }]);
    assert.equal(
      scoped.schema.description,
      "Makes an order.\n\n**Required scope:** `write_orders` (held by the test key).",
    );
    assert.deepEqual(Object.keys(scoped.schema.response).sort(), [
      "200",
      "400",
      "401",
      "403",
      "409",
      "429",
      "500",
    ]);

    const open = route({
      operationId: "getStore",
      scope: "authenticated",
      tags: ["t"],
      summary: "s",
      response: ok,
    });
    assert.deepEqual(open.schema.security, [{ testKey: [] }]);
    assert.equal(open.schema.description, "**Required scope:** none; any test key.");
    assert.equal((open.schema.response as Record<number, unknown>)[403], undefined);
  });
});
