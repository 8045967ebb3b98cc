import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../../lib/errors.ts";
import type { ApiFamily, Scope } from "../../lib/http/api-family.ts";
import { rateLimitHandler } from "../../lib/http/rate-limit.ts";
import type { RateLimiter } from "../../lib/rate-limit/limiters.ts";
import type { AccessContext, TokenService } from "../oauth/token-service.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the Admin API guard: the installation and scopes behind the bearer token. */
    access: AccessContext | null;
  }
}

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== "string") return null;
  const match = /^Bearer +([^\s]+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * The Admin API family: a bearer access token names one installation (store + app + scopes).
 * Order of checks: token (401), then the installation's rate limit (429, counted for every
 * authenticated call), then scope (403).
 */
export function createAdminFamily(deps: {
  tokens: Pick<TokenService, "authenticate">;
  limiter: RateLimiter;
}): ApiFamily {
  const rateLimit = rateLimitHandler(deps.limiter, (request) => `install:${request.access!.installationId}`);
  return {
    tag: "Admin API",
    operation: "admin",
    security: [{ bearerAuth: [] }],
    params: {},
    storePath: "",
    authErrors: ["INVALID_TOKEN", "INSUFFICIENT_SCOPE"],
    guard: (scope: Scope) => async (request: FastifyRequest, reply: FastifyReply) => {
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
      if (!request.access.scopes.includes(scope)) {
        throw new AppError("INSUFFICIENT_SCOPE", {
          message: `This call needs the ${scope} scope, which the merchant has not approved for this app.`,
          details: { requiredScope: scope, grantedScopes: request.access.scopes },
          headers: {
            "www-authenticate": `Bearer realm="merchant-platform", error="insufficient_scope", scope="${scope}"`,
          },
        });
      }
    },
  };
}
