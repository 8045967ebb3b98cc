import type { FastifyRequest } from "fastify";
import type { Scope } from "../../contracts/scopes.ts";
import { AppError } from "../../lib/errors.ts";
import { rateLimitHandler } from "../../lib/http/rate-limit.ts";
import { Params } from "../../lib/http/schemas.ts";
import type { RateLimiter } from "../../lib/rate-limit/limiters.ts";
import type { AccessContext, TokenService } from "../oauth/token-service.ts";
import { type FamilyGuard, familyRoute } from "./api-family.ts";
import type { Family } from "./operation.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the Admin API guard: the installation and scopes behind the bearer token. */
    access: AccessContext | null;
  }
}

/** The installation behind an Admin API request (set by the guard, which runs before every handler). */
export function accessOf(request: FastifyRequest): AccessContext {
  if (!request.access) throw new AppError("INTERNAL", { message: "Installation not resolved." });
  return request.access;
}

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== "string") return null;
  const match = /^Bearer +([^\s]+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * Route options of an Admin API route: the scope (one the merchant can approve for an app) goes into
 * the OAuth scheme's scope list, the description and the route config the guard checks.
 */
export const adminRoute = familyRoute<Scope>({
  security: (scopes) => [{ appOAuth: scopes }],
  authErrors: ["INVALID_TOKEN"],
  scopeHolder: "approved by the merchant for the app; 403 `INSUFFICIENT_SCOPE` otherwise",
  anyCredential: "any valid access token of the store",
});

/**
 * The Admin API guard: a bearer access token names one installation (store + app + scopes). Order
 * of checks, all before the body is parsed: token (401), the installation's rate limit (429,
 * counted for every authenticated call), then the route's scope (403); then validation (400).
 */
export function createAdminGuard(deps: {
  tokens: Pick<TokenService, "authenticate">;
  limiter: RateLimiter;
}): FamilyGuard {
  const rateLimit = rateLimitHandler(deps.limiter, (request) => `install:${request.access!.installationId}`);
  return {
    stage: "onRequest",
    authenticate: async (request, reply) => {
      if (request.access) return;
      const token = bearerToken(request);
      if (!token) {
        throw new AppError("INVALID_TOKEN", {
          message: "Send the access token as `Authorization: Bearer <token>`.",
          headers: { "www-authenticate": 'Bearer realm="merchant-platform"' },
        });
      }
      request.access = await deps.tokens.authenticate(token);
      request.store = request.access.store;
      await rateLimit(request, reply);
    },
    // Through the access-token cache, whose promise is that a revocation that has answered is
    // honoured everywhere.
    recheck: async (request) => {
      await deps.tokens.authenticate(bearerToken(request) ?? "");
    },
    granted: (request) => request.access?.scopes ?? [],
    refusal: (scope) => ({
      message: `This call needs the ${scope} scope, which the merchant has not approved for this app.`,
      headers: {
        "www-authenticate": `Bearer realm="merchant-platform", error="insufficient_scope", scope="${scope}"`,
      },
    }),
  };
}

/** The Admin API as a family operations are mounted in (operation.ts): the app is the viewer. */
export const ADMIN_API: Family<Scope> = {
  url: (path) => path,
  params: (properties) => (properties ? Params(properties) : undefined),
  route: adminRoute,
  principal: (request) => {
    const access = accessOf(request);
    return { kind: "app", appId: access.appId, installationId: access.installationId };
  },
  viewer: (request) => ({ appId: accessOf(request).appId }),
};
