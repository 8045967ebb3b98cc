import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../../lib/errors.ts";
import { type ApiFamily, requireScope, type Scope } from "../../lib/http/api-family.ts";
import { rateLimitHandler } from "../../lib/http/rate-limit.ts";
import type { RateLimiter } from "../../lib/rate-limit/limiters.ts";
import type { ApiKeyService, KeyContext } from "../api-keys/api-keys-service.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the developer API's authentication. */
    apiKey: KeyContext | null;
  }
}

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** Authenticates the key pair, sets request.store and spends one request of the key's quota. */
export interface DeveloperFamily extends ApiFamily {
  authenticate: Hook;
}

/**
 * The developer API family: `x-api-key` + `x-api-secret` name one key pair of one store. Order of
 * checks: both headers (401 UNAUTHENTICATED), the pair (401 INVALID_CREDENTIALS; 429 once failures
 * are throttled), the key's rate limit (429), then — after validation (400) — the scope (403).
 */
export function createDeveloperFamily(deps: {
  keys: Pick<ApiKeyService, "authenticate">;
  limiter: RateLimiter;
}): DeveloperFamily {
  const rateLimit = rateLimitHandler(deps.limiter, (request) => `apikey:${request.apiKey!.keyId}`);

  const authenticate: Hook = async (request, reply) => {
    if (request.apiKey) return;
    const keyId = request.headers["x-api-key"];
    const secret = request.headers["x-api-secret"];
    if (typeof keyId !== "string" || typeof secret !== "string" || !keyId || !secret) {
      throw new AppError("UNAUTHENTICATED", {
        message: "Send both the x-api-key and x-api-secret headers.",
      });
    }
    request.apiKey = await deps.keys.authenticate(keyId, secret, request.ip);
    request.store = request.apiKey.store;
    // Every authenticated request counts, 400s and 403s included, like the Admin API.
    await rateLimit(request, reply);
  };

  return {
    tag: "Developer API",
    operation: "developer",
    security: [{ developerKey: [], developerSecret: [] }],
    params: {},
    storePath: "",
    authErrors: ["UNAUTHENTICATED", "INVALID_CREDENTIALS", "INSUFFICIENT_SCOPE"],
    authenticate,
    guard: (scope: Scope) => async (request: FastifyRequest, reply: FastifyReply) => {
      await authenticate(request, reply);
      // Exact match, as in the Admin API: write_products does not imply read_products.
      requireScope(
        request.apiKey!.scopes,
        scope,
        `This call needs the ${scope} scope, which this key does not have.`,
      );
    },
  };
}
