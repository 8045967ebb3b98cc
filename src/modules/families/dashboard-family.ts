import type { FastifyReply, FastifyRequest } from "fastify";
import type { TProperties } from "typebox";
import { STORE_SCOPE_NAMES, type StoreScope } from "../../contracts/scopes.ts";
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
  // The store's owner holds every scope; the one the route needs is in its description and config.
  security: () => [{ sessionCookie: [] }],
  authErrors: ["UNAUTHENTICATED", "NOT_FOUND"],
  scopeHolder: "the store's owner holds every scope of the store",
  anyCredential: "the store's owner, signed in",
});

/** Path parameters of a store's route: the store's `slug`. */
export const StoreParams = Params({ slug: StoreSlug });

/** Path parameters of a route under a store: `slug`, then the route's own. */
export function storeParams<P extends TProperties>(properties: P) {
  return Params({ slug: StoreSlug, ...properties });
}

/**
 * The dashboard's guard for a store's routes: a live session (401), a store the account owns (404
 * otherwise, never 403), then the route's scope. It runs after validation, so `slug` is well-formed.
 */
export function createDashboardGuard(deps: {
  requireSession: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** The account's store with this slug, or 404 NOT_FOUND (never 403 for another's). */
  stores: { getOwned(accountId: string, slug: string): Promise<Store> };
}): FamilyGuard {
  return {
    stage: "preHandler",
    authenticate: async (request, reply) => {
      await deps.requireSession(request, reply);
      const { slug } = request.params as { slug: string };
      request.store = await deps.stores.getOwned(currentAccount(request).id, slug);
    },
    // A store's owner holds every scope of it (there are no staff accounts yet); the routes state
    // theirs all the same, so the table reads the same in every family and the check is in place.
    granted: () => STORE_SCOPE_NAMES,
    refusal: (scope) => ({ message: `This needs the ${scope} scope on this store.` }),
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
