import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../errors.ts";
import type { RateLimiter } from "../rate-limit/limiters.ts";

/** Headers every rate-limited response carries, documented once for the OpenAPI document. */
export const RATE_LIMIT_HEADERS = {
  "X-RateLimit-Limit": {
    description: "Requests allowed in any 60-second window.",
    schema: { type: "integer" },
  },
  "X-RateLimit-Remaining": {
    description: "Requests left in the current window.",
    schema: { type: "integer" },
  },
  "X-RateLimit-Reset": {
    description:
      "Seconds until a request will be accepted again: 0 while requests remain, otherwise the seconds until the oldest counted request leaves the window.",
    schema: { type: "integer" },
  },
} as const;

/**
 * preHandler enforcing a quota keyed by `keyOf(request)` (an installation, an API key). Sets the
 * X-RateLimit-* headers on every answer, and answers 429 RATE_LIMITED with Retry-After when over.
 * Runs after authentication, so one client's quota is never spent by another's requests.
 */
export function rateLimitHandler(limiter: RateLimiter, keyOf: (request: FastifyRequest) => string) {
  return async function rateLimit(request: FastifyRequest, reply: FastifyReply) {
    const decision = await limiter.consume(keyOf(request));
    reply.header("x-ratelimit-limit", String(decision.limit));
    reply.header("x-ratelimit-remaining", String(decision.remaining));
    reply.header("x-ratelimit-reset", String(decision.resetSeconds));
    if (!decision.allowed) {
      throw new AppError("RATE_LIMITED", {
        message: `Rate limit of ${decision.limit} requests per minute exceeded.`,
        headers: { "retry-after": String(Math.max(1, decision.resetSeconds)) },
      });
    }
  };
}
