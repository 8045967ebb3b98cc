import type { components } from "./generated/api.ts";

/** The platform's closed list of error codes: the OpenAPI document's `Error` schema, `error.code`. */
export type ApiErrorCode = components["schemas"]["Error"]["error"]["code"];
/** The standard OAuth endpoints' errors (RFC 6749 5.2, the document's `OAuthError`), upper-cased. */
export type OAuthErrorCode = Uppercase<components["schemas"]["OAuthError"]["error"]>;
/** The errors an authorization redirect can carry back to the app (RFC 6749 4.1.2.1). */
export const AUTHORIZATION_ERRORS = [
  "invalid_request",
  "unauthorized_client",
  "access_denied",
  "unsupported_response_type",
  "invalid_scope",
  "server_error",
  "temporarily_unavailable",
] as const;
/** An authorization redirect's error, upper-cased. */
export type AuthorizationErrorCode = Uppercase<(typeof AUTHORIZATION_ERRORS)[number]>;
/**
 * The SDK's own: the platform could not be reached, answered something that is not its envelope,
 * a callback that is not the one sent (or has no code), no tokens stored for a store.
 */
export type ClientErrorCode =
  | "NETWORK_ERROR"
  | "INVALID_RESPONSE"
  | "INVALID_STATE"
  | "INVALID_CALLBACK"
  | "NO_TOKENS";
/** Every code a `PlatformError` can carry: branch on it, the compiler knows the list. */
export type PlatformErrorCode = ApiErrorCode | OAuthErrorCode | AuthorizationErrorCode | ClientErrorCode;

/** An RFC 6749 error name as the SDK reports it (upper case, like the platform's codes). */
export function upperCased<T extends string>(name: T): Uppercase<T> {
  return name.toUpperCase() as Uppercase<T>;
}

/**
 * The one error the SDK throws for an answer the platform refused, and for a request it could not
 * complete. `code` is the platform's `error.code` (its closed list, in the OpenAPI document's
 * `Error` schema), an OAuth endpoint's `error` upper-cased, or one of the SDK's own
 * (`NETWORK_ERROR`, `INVALID_RESPONSE`, ...) when no envelope came back: `PlatformErrorCode`.
 */
export class PlatformError extends Error {
  readonly code: PlatformErrorCode;
  /** HTTP status; 0 when the request never got an answer. */
  readonly status: number;
  /** The platform's request id (`error.requestId` or `X-Request-Id`): quote it to support. */
  readonly requestId: string | null;
  readonly details: unknown;
  /** Seconds the platform asked to wait (`Retry-After`), when it did. */
  readonly retryAfterSeconds: number | null;

  constructor(input: {
    code: PlatformErrorCode;
    message: string;
    status: number;
    requestId?: string | null;
    details?: unknown;
    retryAfterSeconds?: number | null;
    cause?: unknown;
  }) {
    super(input.message, input.cause === undefined ? undefined : { cause: input.cause });
    this.name = "PlatformError";
    this.code = input.code;
    this.status = input.status;
    this.requestId = input.requestId ?? null;
    this.details = input.details;
    this.retryAfterSeconds = input.retryAfterSeconds ?? null;
  }
}

/** Seconds of a `Retry-After` header (delay-seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterSeconds(headers: Headers, nowMs = Date.now()): number | null {
  const value = headers.get("retry-after");
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** A PlatformError from a non-2xx response, reading the envelope when there is one. */
export async function errorFromResponse(response: Response): Promise<PlatformError> {
  const requestId = response.headers.get("x-request-id");
  let body: unknown = null;
  try {
    body = await response.clone().json();
  } catch {
    // not JSON: described by the status alone
  }
  // The platform's answers as its document declares them: the envelope's code is from the closed
  // list, an OAuth endpoint's `error` from its own (checked to be there, trusted to be in the list).
  const envelope = body as {
    message?: string;
    error?: { code?: ApiErrorCode; message?: string; details?: unknown; requestId?: string };
  } | null;
  const rfc = body as {
    error?: components["schemas"]["OAuthError"]["error"];
    error_description?: string;
  } | null;
  if (envelope?.error && typeof envelope.error === "object" && typeof envelope.error.code === "string") {
    return new PlatformError({
      code: envelope.error.code,
      message: envelope.error.message ?? envelope.message ?? response.statusText,
      status: response.status,
      requestId: envelope.error.requestId ?? requestId,
      details: envelope.error.details,
      retryAfterSeconds: retryAfterSeconds(response.headers),
    });
  }
  if (rfc && typeof rfc.error === "string") {
    // The standard OAuth endpoints answer RFC 6749 shapes.
    return new PlatformError({
      code: upperCased(rfc.error),
      message: rfc.error_description ?? rfc.error,
      status: response.status,
      requestId,
      retryAfterSeconds: retryAfterSeconds(response.headers),
    });
  }
  return new PlatformError({
    code: response.status >= 500 ? "SERVICE_UNAVAILABLE" : "INVALID_RESPONSE",
    message: `HTTP ${response.status} ${response.statusText}`.trim(),
    status: response.status,
    requestId,
    retryAfterSeconds: retryAfterSeconds(response.headers),
  });
}
