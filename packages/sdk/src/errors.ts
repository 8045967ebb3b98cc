/**
 * The one error the SDK throws for an answer the platform refused, and for a request it could not
 * complete. `code` is the platform's `error.code` (its closed list, in the OpenAPI document's
 * `Error` schema), or `NETWORK_ERROR` / `INVALID_RESPONSE` when no envelope came back.
 */
export class PlatformError extends Error {
  readonly code: string;
  /** HTTP status; 0 when the request never got an answer. */
  readonly status: number;
  /** The platform's request id (`error.requestId` or `X-Request-Id`): quote it to support. */
  readonly requestId: string | null;
  readonly details: unknown;
  /** Seconds the platform asked to wait (`Retry-After`), when it did. */
  readonly retryAfterSeconds: number | null;

  constructor(input: {
    code: string;
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
  const envelope = body as {
    message?: string;
    error?: { code?: string; message?: string; details?: unknown; requestId?: string };
  } | null;
  const rfc = body as { error?: unknown; error_description?: string } | null;
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
      code: rfc.error.toUpperCase(),
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
