import type { KeyScope, Scope } from "../../contracts/scopes.ts";
import type { Store } from "../../db/schema.ts";
import { AppError } from "../../lib/errors.ts";
import { rateLimitHandler } from "../../lib/http/rate-limit.ts";
import { Params } from "../../lib/http/schemas.ts";
import type { RateLimiter } from "../../lib/rate-limit/limiters.ts";
import { type FamilyGuard, familyRoute } from "./api-family.ts";
import type { Family } from "./operation.ts";

/** A key pair as the developer API's guard knows it: its store, id and scopes. */
export interface KeyContext {
  store: Store;
  keyId: string;
  scopes: Scope[];
  /** The key pair's pinned API version: what a request without Api-Version is served at. */
  apiVersion: string;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the developer API's authentication. */
    apiKey: KeyContext | null;
  }
}

/**
 * Route options of a developer API route: the scope (one a key pair can carry) goes into the key
 * scheme's scope list, the description and the route config the guard checks.
 */
export const developerRoute = familyRoute<KeyScope>({
  // API key schemes carry no scopes in OpenAPI: the scope is in the description and the route config.
  security: () => [{ developerKey: [], developerSecret: [] }],
  authErrors: ["UNAUTHENTICATED", "INVALID_CREDENTIALS"],
  scopeHolder: "carried by the key pair; 403 `INSUFFICIENT_SCOPE` otherwise",
  anyCredential: "any valid key pair of the store",
});

/**
 * The developer API guard: `x-api-key` + `x-api-secret` name one key pair of one store. Order of
 * checks, all before the body is parsed: both headers (401 UNAUTHENTICATED), the pair (401
 * INVALID_CREDENTIALS; 429 once failures are throttled), the key's rate limit (429), the route's
 * scope (403); then validation (400).
 */
export function createDeveloperGuard(deps: {
  keys: {
    /** The pair, or 401 INVALID_CREDENTIALS (throttled per key id and IP). */
    authenticate(keyId: string, secret: string, ip: string): Promise<KeyContext>;
    /** Throws INVALID_CREDENTIALS once the pair is revoked or expired. */
    assertStillUsable(keyId: string): Promise<void>;
  };
  limiter: RateLimiter;
}): FamilyGuard {
  const rateLimit = rateLimitHandler(deps.limiter, (request) => `apikey:${request.apiKey!.keyId}`);
  return {
    stage: "onRequest",
    authenticate: async (request, reply) => {
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
    },
    recheck: async (request) => {
      if (!request.apiKey) throw new AppError("INTERNAL", { message: "Key pair not resolved." });
      await deps.keys.assertStillUsable(request.apiKey.keyId);
    },
    granted: (request) => request.apiKey?.scopes ?? [],
    refusal: (scope) => ({ message: `This call needs the ${scope} scope, which this key does not have.` }),
  };
}

/** The developer API as a family operations are mounted in (operation.ts). */
export const DEVELOPER_API: Family<KeyScope> = {
  url: (path) => path,
  params: (properties) => (properties ? Params(properties) : undefined),
  route: developerRoute,
  principal: (request) => {
    if (!request.apiKey) throw new AppError("INTERNAL", { message: "Key pair not resolved." });
    return { kind: "key", keyId: request.apiKey.keyId };
  },
  viewer: () => undefined,
};
