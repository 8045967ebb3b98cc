import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../../lib/errors.ts";
import type { ApiFamily, Scope } from "../../lib/http/api-family.ts";
import { rateLimitHandler } from "../../lib/http/rate-limit.ts";
import type { RateLimiter } from "../../lib/rate-limit/limiters.ts";
import type { ApiKeyService, KeyContext } from "../api-keys/api-keys-service.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the developer API guard. */
    apiKey: KeyContext | null;
  }
}

/**
 * The developer API family: `x-api-key` + `x-api-secret` name one key pair of one store. Checks:
 * both headers (401 UNAUTHENTICATED), the pair (401 INVALID_CREDENTIALS, throttled), the key's
 * rate limit (429), the scope (403).
 */
export function createDeveloperFamily(deps: {
  keys: Pick<ApiKeyService, "authenticate">;
  limiter: RateLimiter;
}): ApiFamily {
  const rateLimit = rateLimitHandler(deps.limiter, (request) => `apikey:${request.apiKey!.keyId}`);
  return {
    tag: "Developer API",
    operation: "developer",
    security: [{ developerKey: [], developerSecret: [] }],
    params: {},
    storePath: "",
    authErrors: ["UNAUTHENTICATED", "INVALID_CREDENTIALS", "INSUFFICIENT_SCOPE"],
    guard: (scope: Scope) => async (request: FastifyRequest, reply: FastifyReply) => {
      const keyId = request.headers["x-api-key"];
      const secret = request.headers["x-api-secret"];
      if (typeof keyId !== "string" || typeof secret !== "string" || !keyId || !secret) {
        throw new AppError("UNAUTHENTICATED", {
          message: "Send both the x-api-key and x-api-secret headers.",
        });
      }
      request.apiKey = await deps.keys.authenticate(keyId, secret, request.ip);
      request.store = request.apiKey.store;
      await rateLimit(request, reply);
      if (!request.apiKey.scopes.includes(scope)) {
        throw new AppError("INSUFFICIENT_SCOPE", {
          message: `This call needs the ${scope} scope, which this key does not have.`,
          details: { requiredScope: scope, grantedScopes: request.apiKey.scopes },
        });
      }
    },
  };
}
