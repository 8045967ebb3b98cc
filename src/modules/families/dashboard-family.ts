import type { FastifyReply, FastifyRequest } from "fastify";
import type { TProperties } from "typebox";
import { roleScopes, STORE_ROLE_NAMES, type StoreRole } from "../../contracts/roles.ts";
import { type StoreScope, scopeLabel } from "../../contracts/scopes.ts";
import type { Store } from "../../db/schema.ts";
import { AppError } from "../../lib/errors.ts";
import { Params, StoreSlug } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { currentAccount } from "../accounts/session-auth.ts";
import { type FamilyGuard, familyRoute } from "./api-family.ts";
import type { Family } from "./operation.ts";

/**
 * Route options of a dashboard route acting on one of the merchant's stores
 * (`/stores/:slug/...`): the scope it needs goes into the session scheme's scope list, the
 * description and the route config the guard checks, as in the Admin API.
 */
export const dashboardRoute = familyRoute<StoreScope>({
  // The signed-in account's role in the store holds a set of its scopes (contracts/roles.ts); the
  // one the route needs is in its description and config.
  security: () => [{ sessionCookie: [] }],
  authErrors: ["UNAUTHENTICATED", "NOT_FOUND"],
  scopeHolder: (scope) =>
    `held by the roles ${rolesHolding(scope)}; 403 \`INSUFFICIENT_SCOPE\` for the others`,
  anyCredential: "the store's owner or any of its staff, signed in",
});

declare module "fastify" {
  interface FastifyRequest {
    /** The signed-in account's role in the store of a dashboard store route, set by its guard. */
    storeRole: StoreRole | null;
  }
}

/** The roles holding a scope, for a route's description: "`owner`, `admin`, `orders`". */
function rolesHolding(scope: StoreScope): string {
  return STORE_ROLE_NAMES.filter((role) => roleScopes(role).includes(scope))
    .map((role) => `\`${role}\``)
    .join(", ");
}

/** Path parameters of a store's route: the store's `slug`. */
export const StoreParams = Params({ slug: StoreSlug });

/** Path parameters of a route under a store: `slug`, then the route's own. */
export function storeParams<P extends TProperties>(properties: P) {
  return Params({ slug: StoreSlug, ...properties });
}

/**
 * The dashboard's guard for a store's routes: a live session (401), a store the account owns or is
 * staff of (404 otherwise, never 403), then the route's scope among its role's (403). The role is
 * read on every request, so a role change or a removal counts from the next one. It runs after
 * validation, so `slug` is well-formed.
 */
export function createDashboardGuard(deps: {
  requireSession: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** The store with this slug and the account's role in it, or 404 NOT_FOUND (never 403 for another's). */
  stores: { getForAccount(accountId: string, slug: string): Promise<{ store: Store; role: StoreRole }> };
}): FamilyGuard {
  return {
    stage: "preHandler",
    authenticate: async (request, reply) => {
      await deps.requireSession(request, reply);
      const { slug } = request.params as { slug: string };
      const { store, role } = await deps.stores.getForAccount(currentAccount(request).id, slug);
      request.store = store;
      request.storeRole = role;
    },
    granted: (request) => (request.storeRole ? roleScopes(request.storeRole) : []),
    refusal: (scope) => ({
      message: `Your role in this store does not allow this: it needs the ${scope} scope (${scopeLabel(scope)}), which the roles ${rolesHolding(scope)} hold.`,
    }),
  };
}

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The dashboard's CSRF rule, on its whole scope (`/api/v1/dashboard`, a store's routes included):
 * with SameSite=Lax cookies, a cross-site page can still POST a form; it cannot send
 * application/json without a CORS preflight, which this service never grants.
 */
export function requireJsonWrites(app: App) {
  app.addHook("onRequest", async (request) => {
    if (!STATE_CHANGING.has(request.method)) return;
    const type = request.headers["content-type"] ?? "";
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      throw new AppError("UNSUPPORTED_MEDIA_TYPE", {
        message: "State-changing dashboard requests must send Content-Type: application/json.",
      });
    }
  });
}

/** A store's routes of the dashboard as a family operations are mounted in (operation.ts). */
export const DASHBOARD: Family<StoreScope> = {
  // The store itself (`/store` in the APIs) is the store's own address here.
  url: (path) => (path === "/store" ? "/stores/:slug" : `/stores/:slug${path}`),
  params: (properties) => (properties ? storeParams(properties) : StoreParams),
  route: dashboardRoute,
  principal: (request) => {
    const account = currentAccount(request);
    return { kind: "account", id: account.id, name: account.name };
  },
  viewer: () => undefined,
};
