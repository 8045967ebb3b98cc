import type { FastifyContextConfig, FastifyReply, FastifyRequest } from "fastify";
import type { Static, TSchema } from "typebox";
import type { StoreScope } from "../../contracts/scopes.ts";
import type { Store } from "../../db/schema.ts";
import { AppError, type ErrorCode } from "../../lib/errors.ts";
import { errorResponses } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { checkDeprecation, type Deprecation, deprecationNote } from "../versions/deprecations.ts";

/**
 * A route's required scope when any valid credential of the store will do (the developer API's
 * `GET /store`, a store's own page in the dashboard). Written out at the route like any scope.
 */
export const AUTHENTICATED = "authenticated";

/** What a store-scoped route requires: one scope, or explicitly none beyond authentication. */
export type RouteScope = StoreScope | typeof AUTHENTICATED;

declare module "fastify" {
  interface FastifyRequest {
    /** The store a store-scoped request acts on, set by the family's guard. */
    store: Store | null;
    /**
     * Throws once the credential that authenticated this request may no longer act (revoked,
     * expired, uninstalled): what a long response (an export, a stream) checks as it goes. Set by
     * the family's guard; null in a family that has no such check.
     */
    credentialCheck: (() => Promise<void>) | null;
  }
  interface FastifyContextConfig {
    /**
     * The scope the route requires, set by its family's route helper (which also writes it into
     * the operation's security requirement) and checked by the family's guard on every request.
     */
    scope?: RouteScope;
    /**
     * The rest of the route's authorisation: what depends on the validated request (the event a
     * subscription names needs that event's scope). Set by the family's route helper and run by
     * the family's guard after validation, before the idempotency key is looked up (a replay
     * skips the handler) and before the handler. A method, so that a route's own typed function
     * can be stored here.
     */
    authorize?(request: FastifyRequest): void | Promise<void>;
  }
}

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export function storeOf(request: FastifyRequest): Store {
  if (!request.store) throw new AppError("INTERNAL", { message: "Store not resolved." });
  return request.store;
}

/**
 * The shared parts of one API family's routes (dashboard stores, Admin API, developer API): how a
 * route's scope appears in its security requirement and description, and the errors its guard can
 * answer. Each route states its own method, path, operationId and scope.
 */
export interface FamilyDocs<S extends StoreScope> {
  /** The security requirement of a route; `scopes` is `[scope]`, or `[]` for AUTHENTICATED. */
  security(scopes: S[]): Array<Record<string, string[]>>;
  /** Error codes the guard can answer besides INSUFFICIENT_SCOPE (added when a scope is required). */
  authErrors: readonly ErrorCode[];
  /** Who holds a route's scope, for the description: "carried by the key pair; 403 ... otherwise". */
  scopeHolder: string | ((scope: S) => string);
  /** What AUTHENTICATED means in this family, for the description: "any valid key pair of the store". */
  anyCredential: string;
}

/** Everything a route of a family declares; the helper adds security, scope and error responses. */
export interface RouteSpec<S extends StoreScope> {
  operationId: string;
  /** Required: a scope of the family, or AUTHENTICATED to say that none is needed. */
  scope: S | typeof AUTHENTICATED;
  tags: string[];
  summary: string;
  description?: string;
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  /** Success responses (and any the route documents itself); error responses come from `errors`. */
  response: Record<number, TSchema>;
  /** The route's own error codes, besides its family's authentication and scope errors. */
  errors?: ErrorCode[];
  /** More route config for other hooks; `scope` and `authorize` are always the fields here. */
  config?: Omit<FastifyContextConfig, "scope" | "authorize" | "deprecation">;
  /**
   * The operation is deprecated: documented so (`deprecated`, the note), and its answers carry
   * the deprecation headers (modules/versions/versioning.ts).
   */
  deprecated?: Deprecation;
}

/** What a schema validates to; undefined where the route has none. */
type Validated<X extends TSchema | undefined> = X extends TSchema ? Static<X> : undefined;

/**
 * Authorisation that needs the validated request (body `B`, path parameters `P`, query `Q`),
 * beyond the route's scope. Never in a handler: an idempotent replay answers without running the
 * handler, so a check there would be skipped.
 */
export type Authorize<
  B extends TSchema | undefined,
  P extends TSchema | undefined,
  Q extends TSchema | undefined,
> = (
  request: FastifyRequest & { body: Validated<B>; params: Validated<P>; query: Validated<Q> },
) => void | Promise<void>;

type RouteOptions<T extends RouteSpec<StoreScope>> = {
  config: FastifyContextConfig & { scope: RouteScope };
  schema: Omit<T, "scope" | "errors" | "config" | "response" | "description" | "deprecated"> & {
    description: string;
    deprecated?: true;
    security: Array<Record<string, string[]>>;
    /** The scope, machine-readable in the OpenAPI document (null: any valid credential of the store). */
    "x-required-scope": string | null;
    /** Typed as the route's own responses: the error responses carry no body a handler sends. */
    response: T["response"];
  };
};

/**
 * The route helper of a family: `app.get(path, adminRoute({ operationId, scope, ... }), handler)`.
 * The scope lands in four places from the one literal: the route config (what the guard checks),
 * `x-required-scope`, the description and, for the OAuth family, the security requirement's scope
 * list (what the OpenAPI document shows; API key and cookie schemes carry no scopes in OpenAPI).
 */
export function familyRoute<S extends StoreScope>(family: FamilyDocs<S>) {
  return function route<
    T extends RouteSpec<S>,
    B extends TSchema | undefined = undefined,
    P extends TSchema | undefined = undefined,
    Q extends TSchema | undefined = undefined,
  >(
    spec: T & {
      body?: B;
      params?: P;
      querystring?: Q;
      /** The rest of the route's authorisation, on the validated request (see FastifyContextConfig). */
      authorize?: Authorize<B, P, Q>;
    },
  ): RouteOptions<T> {
    const { scope, errors = [], config = {}, response, description, authorize, deprecated, ...schema } = spec;
    const scoped = scope !== AUTHENTICATED;
    const scopeNote = scoped
      ? `**Required scope:** \`${scope}\` (${typeof family.scopeHolder === "function" ? family.scopeHolder(scope as S) : family.scopeHolder}).`
      : `**Required scope:** none; ${family.anyCredential}.`;
    const note = deprecated
      ? `${deprecationNote(checkDeprecation(deprecated, spec.operationId))}\n\n${scopeNote}`
      : scopeNote;
    return {
      config: {
        ...config,
        scope,
        ...(authorize ? { authorize } : {}),
        ...(deprecated ? { deprecation: deprecated } : {}),
      },
      schema: {
        ...(schema as Omit<T, "scope" | "errors" | "config" | "response" | "description" | "deprecated">),
        ...(deprecated ? { deprecated: true } : {}),
        description: description ? `${description}\n\n${note}` : note,
        security: family.security(scoped ? [scope as S] : []),
        "x-required-scope": scoped ? scope : null,
        response: {
          ...response,
          ...errorResponses(
            ...family.authErrors,
            ...(scoped ? (["INSUFFICIENT_SCOPE"] as const) : []),
            ...errors,
          ),
        } as T["response"],
      },
    };
  };
}

/** How a family authenticates a request and which scopes the credential holds. */
export interface FamilyGuard {
  /**
   * When the guard runs: "onRequest" answers 401/403 before the body is parsed or validated;
   * "preHandler" runs after validation, for a guard that needs validated path parameters.
   */
  stage: "onRequest" | "preHandler";
  /** Authenticates the request and sets request.store; 401 (or 404, 429) when it cannot. */
  authenticate: Hook;
  /** The scopes the authenticated request holds. */
  granted(request: FastifyRequest): readonly StoreScope[];
  /** The 403's message and headers for a missing scope. */
  refusal(scope: StoreScope): { message: string; headers?: Record<string, string> };
  /** Checks again, later, that the credential the request was authenticated with may still act. */
  recheck?(request: FastifyRequest): Promise<void>;
}

/**
 * Installs a family's guard on the Fastify scope holding its routes: every request is authenticated
 * and then needs exactly the scope its route declares (route config `scope`, set by the family's
 * route helper), then passes the route's `authorize` step if it declares one. A route registered
 * in the scope without a declared scope stops the app at start.
 */
export function installFamilyGuard(app: App, guard: FamilyGuard): void {
  app.addHook("onRoute", (route) => {
    if (route.config?.scope === undefined)
      throw new Error(
        `${route.method} ${route.url} declares no scope: declare it with its family's route helper (scope: "${AUTHENTICATED}" when none is needed)`,
      );
  });
  app.addHook(guard.stage, async (request, reply) => {
    const scope = request.routeOptions.config.scope;
    if (scope === undefined) {
      // Only the not-found handler has no declared scope (onRoute above refuses such routes).
      if (request.is404) return;
      throw new AppError("INTERNAL", { message: "The route declares no scope." });
    }
    await guard.authenticate(request, reply);
    if (guard.recheck) {
      const recheck = guard.recheck;
      request.credentialCheck = () => recheck(request);
    }
    if (scope === AUTHENTICATED) return;
    const granted = guard.granted(request);
    // Exact match: write_products does not imply read_products.
    if (granted.includes(scope)) return;
    const { message, headers = {} } = guard.refusal(scope);
    throw new AppError("INSUFFICIENT_SCOPE", {
      message,
      details: { requiredScope: scope, grantedScopes: [...granted] },
      headers,
    });
  });
  // The route's own step, once the request is validated (after the guard's hook when both are
  // preHandlers: hooks run in the order they were added). Hooks of the family's scope run before
  // any route-level preHandler, and the idempotency key is looked up in one of those
  // (lib/http/idempotency.ts): a stored answer is replayed only to a request that passed all this.
  app.addHook("preHandler", async (request) => {
    await request.routeOptions.config.authorize?.(request);
  });
}
