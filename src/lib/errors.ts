/**
 * The one error type of the platform and its closed list of codes. Every failure a client can see
 * is one of these; the HTTP status follows from the code alone.
 */
export const ERROR_CODES = {
  BAD_REQUEST: { status: 400, description: "The request could not be read (malformed JSON, bad cursor)." },
  VALIDATION_FAILED: {
    status: 400,
    description: "A field or parameter is invalid; `details` names each one.",
  },
  UNSUPPORTED_API_VERSION: {
    status: 400,
    description:
      "The `Api-Version` asked for (or the credential's pinned version) is not served: malformed, unknown or retired; `details.supported` lists the versions served.",
  },
  UNAUTHENTICATED: { status: 401, description: "No session or credentials were presented." },
  INVALID_CREDENTIALS: {
    status: 401,
    description: "The e-mail/password or API key pair is wrong, revoked or expired.",
  },
  INVALID_TOKEN: {
    status: 401,
    description: "The bearer token is missing, malformed, unknown, expired or revoked.",
  },
  INVALID_CLIENT: { status: 401, description: "The app's client credentials are wrong." },
  INVALID_GRANT: {
    status: 400,
    description:
      "The authorization code or refresh token is invalid, expired, used or not bound to this client.",
  },
  INVALID_SCOPE: {
    status: 400,
    description: "The requested scope is unknown or exceeds what the grant holds.",
  },
  INSUFFICIENT_SCOPE: {
    status: 403,
    description: "The credentials lack the scope named in `details.requiredScope`.",
  },
  FORBIDDEN: { status: 403, description: "The action is not allowed for this caller." },
  NOT_FOUND: { status: 404, description: "No such resource, or it belongs to another tenant." },
  DISCOUNT_NOT_APPLICABLE: {
    status: 400,
    description:
      "A discount code was refused: each `details` entry names the code (`discountCodes.<i>`) and its `reason` (unknown, paused, not_yet_active, expired, usage_limit_reached, already_used, minimum_not_met, not_applicable, not_combinable).",
  },
  CONFLICT: { status: 409, description: "The change conflicts with the resource's current state." },
  INVENTORY_STALE: {
    status: 409,
    description:
      "A quantity set with changeFromQuantity was not what it is now: nothing changed; details.current has it.",
  },
  IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    description:
      "A request with this `Idempotency-Key` is still running; retry after `Retry-After` seconds to get its response.",
  },
  PAYLOAD_TOO_LARGE: { status: 413, description: "The request body exceeds the limit." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: "The request body must be `application/json`." },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    description:
      "The `Idempotency-Key` was already used with a different request (method, path or body) in the last 24 hours.",
  },
  RATE_LIMITED: { status: 429, description: "Too many requests; retry after `Retry-After` seconds." },
  INTERNAL: { status: 500, description: "An unexpected error; it has been logged with the request id." },
  SERVICE_UNAVAILABLE: { status: 503, description: "A dependency (database, Redis) is unavailable." },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  BAD_REQUEST: "The request could not be read.",
  VALIDATION_FAILED: "The request is invalid.",
  UNSUPPORTED_API_VERSION: "This API version is not served.",
  UNAUTHENTICATED: "Authentication is required.",
  INVALID_CREDENTIALS: "The credentials are invalid.",
  INVALID_TOKEN: "The access token is invalid or expired.",
  INVALID_CLIENT: "Client authentication failed.",
  INVALID_GRANT: "The grant is invalid, expired or already used.",
  INVALID_SCOPE: "The requested scope is unknown or exceeds the grant.",
  INSUFFICIENT_SCOPE: "The credentials do not grant the required scope.",
  FORBIDDEN: "This action is not allowed.",
  NOT_FOUND: "The resource was not found.",
  CONFLICT: "The request conflicts with the current state.",
  DISCOUNT_NOT_APPLICABLE: "A discount code cannot be applied to this order.",
  INVENTORY_STALE: "The quantity changed since it was read; nothing was written.",
  IDEMPOTENCY_KEY_IN_USE: "A request with this Idempotency-Key is still being processed.",
  PAYLOAD_TOO_LARGE: "The request body is too large.",
  UNSUPPORTED_MEDIA_TYPE: "The request body must be application/json.",
  IDEMPOTENCY_KEY_REUSED: "This Idempotency-Key was already used with a different request.",
  RATE_LIMITED: "Too many requests.",
  INTERNAL: "An internal error occurred.",
  SERVICE_UNAVAILABLE: "The service is temporarily unavailable.",
};

export type ErrorDetails =
  | Record<string, unknown>
  | Array<{ field: string; message: string; reason?: string }>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;
  /** Extra response headers, e.g. Retry-After or WWW-Authenticate. */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    options: { message?: string; details?: ErrorDetails; headers?: Record<string, string> } = {},
  ) {
    super(options.message ?? DEFAULT_MESSAGES[code]);
    this.name = "AppError";
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

export function notFound(resource: string): AppError {
  return new AppError("NOT_FOUND", { message: `${resource} not found.` });
}
