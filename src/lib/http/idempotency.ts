import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onSendHookHandler,
  preHandlerHookHandler,
  RouteOptions,
} from "fastify";
import Type, { type TSchema } from "typebox";
import { AppError, ERROR_CODES, type ErrorCode } from "../errors.ts";
import { errorResponses } from "./schemas.ts";

/**
 * Idempotency keys on creates (Stripe's model), applied to routes by what their contract says:
 * every POST that documents a 201 response and takes credentials accepts `Idempotency-Key`. No
 * route lists itself, so a create added later is covered by the same rule (and the OpenAPI test).
 * The key is looked up last, after the route's whole authorisation: its family's guard
 * (authentication, the route's scope, then the route's `authorize` step on the validated body and
 * path, all hooks of the family's scope) and the route's own preHandlers. So the credential the key
 * is scoped to is known, and a stored answer is replayed only to a request allowed to make it now:
 * a token narrowed since, or an account that lost the app, gets the refusal, not the stored 201
 * (which may hold a secret shown once). The rule for routes: authorisation is never in a handler,
 * which a replay does not run. The response is recorded in onSend.
 *
 * Not the `Idempotency-Key` of `/api/v1/apps/token/refresh`, which has its own rule (it answers 200
 * and takes no credentials header, so this does not apply to it).
 */

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
export const IDEMPOTENCY_REPLAYED_HEADER = "idempotency-replayed";
/** Codes a create route can answer because of its idempotency key. */
const IDEMPOTENCY_ERRORS: ErrorCode[] = ["IDEMPOTENCY_KEY_IN_USE", "IDEMPOTENCY_KEY_REUSED"];
const PRUNE_EVERY_MS = 10 * 60 * 1000;

export const IdempotencyKeySchema = Type.String({
  minLength: 1,
  maxLength: 255,
  // Printable ASCII (space to tilde), as Stripe allows, but no space first or last: HTTP removes
  // whitespace around a header value (RFC 9110 section 5.5), so `k` and `k  ` arrive as one key
  // over the wire. Where a key reaches the server with it intact, it is refused, not trimmed.
  pattern: "^[!-~]([ -~]{0,253}[!-~])?$",
  "x-hint": "1 to 255 printable ASCII characters, without a space at the start or end",
  description:
    "Makes this create safe to retry: 1-255 printable ASCII characters (no space at the start or end: HTTP drops it), a fresh random value (a UUID) per new object. Retrying with the same key and the same request within 24 hours creates nothing and returns the first response (status and body, 2xx or 4xx) with `Idempotency-Replayed: true`; a 5xx is not kept, so the retry runs again. The answer of a customer's or an order's create comes back with the customer's personal data erased once the merchant has deleted them. The same key with a different method, path or body answers 422 `IDEMPOTENCY_KEY_REUSED`; while the first request still runs, 409 `IDEMPOTENCY_KEY_IN_USE` with `Retry-After`. Keys belong to the credential (installation, API key, or merchant and store), so other clients' keys never collide with yours.",
});

/** What the store decided for a request that carries a key. */
export type IdempotencyStart =
  | { kind: "replay"; status: number; body: string }
  | {
      kind: "claimed";
      /** Records the response; `body` null when it is not text (never replayed). */
      finish(response: { status: number; body: string | null }): Promise<void>;
    };

export interface IdempotencyDeps {
  store: {
    begin(input: {
      scope: string;
      key: string;
      /** The store the request acts on (set by its family's guard), if any. */
      storeId: string | null;
      request: { method: string; route: string; params: unknown; query: unknown; body: unknown };
    }): Promise<IdempotencyStart>;
    pruneExpired(): Promise<number>;
  };
  /** The credential a key belongs to; null when the request carries none (never on a create route). */
  scopeOf(request: FastifyRequest): string | null;
}

/** A POST documenting a 201 response and requiring credentials: a create, by its contract. */
export function isIdempotentCreate(route: Pick<RouteOptions, "method" | "schema">): boolean {
  const methods = [route.method].flat();
  const schema = route.schema as { response?: Record<string, unknown>; security?: unknown[] } | undefined;
  return (
    methods.includes("POST") &&
    schema?.response?.["201"] !== undefined &&
    Array.isArray(schema.security) &&
    schema.security.length > 0
  );
}

export function installIdempotency(app: FastifyInstance, deps: IdempotencyDeps): void {
  const claims = new WeakMap<FastifyRequest, Extract<IdempotencyStart, { kind: "claimed" }>>();

  const claim: preHandlerHookHandler = async function claimIdempotencyKey(
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    const key = request.headers[IDEMPOTENCY_KEY_HEADER];
    if (typeof key !== "string") return;
    const scope = deps.scopeOf(request);
    if (!scope) throw new AppError("INTERNAL", { message: "The request's credential is not known." });
    const start = await deps.store.begin({
      scope,
      key,
      storeId: request.store?.id ?? null,
      request: {
        method: request.method,
        route: request.routeOptions.url ?? request.url,
        params: request.params,
        query: request.query,
        body: request.body,
      },
    });
    if (start.kind === "claimed") {
      claims.set(request, start);
      return;
    }
    // The stored text is sent as it is: the body the first request answered, byte for byte.
    return reply
      .code(start.status)
      .header(IDEMPOTENCY_REPLAYED_HEADER, "true")
      .type("application/json; charset=utf-8")
      .send(start.body);
  };

  const record: onSendHookHandler = async function recordIdempotentResponse(request, reply, payload) {
    const pending = claims.get(request);
    if (!pending) return payload;
    claims.delete(request);
    const body = typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString() : null;
    try {
      await pending.finish({ status: reply.statusCode, body });
    } catch (error) {
      // The create already happened: its answer must still reach the client. Unrecorded, the
      // claim is taken over once it counts as abandoned.
      request.log.error({ err: error }, "recording the idempotent response failed");
    }
    return payload;
  };

  app.addHook("onRoute", (route) => {
    if (!isIdempotentCreate(route)) return;
    const schema = route.schema as {
      headers?: TSchema & { properties?: Record<string, TSchema> };
      response: Record<string, TSchema>;
    };
    schema.headers = Type.Object(
      {
        ...(schema.headers?.properties ?? {}),
        [IDEMPOTENCY_KEY_HEADER]: Type.Optional(IdempotencyKeySchema),
      },
      { additionalProperties: true },
    );
    schema.response = withErrorCodes(schema.response, IDEMPOTENCY_ERRORS);
    schema.response["201"] = {
      ...schema.response["201"],
      // Read by the OpenAPI generator as the response's headers; ignored by the serializer.
      headers: {
        "Idempotency-Replayed": {
          type: "string",
          enum: ["true"],
          description:
            "Present when this is the stored response of an earlier request with the same Idempotency-Key.",
        },
      },
    } as TSchema;
    // Last, after the route's own preHandlers (and so after every hook of its scope): the key
    // belongs to the credential they establish, and nothing is replayed before they all passed.
    route.preHandler = [...[route.preHandler ?? []].flat(), claim];
    route.onSend = [...[route.onSend ?? []].flat(), record];
  });

  let timer: NodeJS.Timeout | undefined;
  let pruning: Promise<unknown> = Promise.resolve();
  const prune = () => {
    pruning = deps.store
      .pruneExpired()
      .catch((error) => app.log.warn({ err: error }, "pruning expired idempotency keys failed"));
  };
  app.addHook("onReady", async () => {
    prune();
    timer = setInterval(prune, PRUNE_EVERY_MS);
    timer.unref();
  });
  app.addHook("onClose", async () => {
    clearInterval(timer);
    await pruning;
  });
}

/**
 * Adds error codes to a route's documented responses: a status the route already documents
 * (409 CONFLICT) gets the code named in its description too.
 */
function withErrorCodes(response: Record<string, TSchema>, codes: ErrorCode[]): Record<string, TSchema> {
  const out = { ...response };
  for (const code of codes) {
    const status = ERROR_CODES[code].status;
    const existing = out[status] as (TSchema & { description?: string }) | undefined;
    out[status] = existing
      ? {
          ...existing,
          description: `${existing.description ?? ""} \`${code}\`: ${ERROR_CODES[code].description}`,
        }
      : errorResponses(code)[status]!;
  }
  return out;
}
