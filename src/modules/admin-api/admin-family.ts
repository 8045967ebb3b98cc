import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../../lib/errors.ts";
import { type ApiFamily, requireScope, type Scope } from "../../lib/http/api-family.ts";
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
}): ApiFamily & Required<Pick<ApiFamily, "authenticate">> {
  const rateLimit = rateLimitHandler(deps.limiter, (request) => `install:${request.access!.installationId}`);
  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
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
  };
  return {
    tag: "Admin API",
    operation: "admin",
    security: [{ bearerAuth: [] }],
    params: {},
    storePath: "",
    authErrors: ["INVALID_TOKEN", "INSUFFICIENT_SCOPE"],
    authenticate,
    guard: (scope: Scope) => async (request: FastifyRequest, reply: FastifyReply) => {
      await authenticate(request, reply);
      requireScope(
        request.access!.scopes,
        scope,
        `This call needs the ${scope} scope, which the merchant has not approved for this app.`,
        {
          "www-authenticate": `Bearer realm="merchant-platform", error="insufficient_scope", scope="${scope}"`,
        },
      );
    },
  };
}
