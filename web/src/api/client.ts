import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "../generated/api.ts";

/**
 * The API client, typed from the committed openapi.json (`npm run generate` writes
 * src/generated/api.ts). Same origin, so the session cookie goes along; every state-changing call
 * sends JSON, which is also the dashboard's CSRF rule.
 */
export const api = createClient<paths>({
  baseUrl: "/",
  credentials: "same-origin",
  // Every dashboard write must say JSON (the CSRF rule); bodiless POSTs send `{}` (see NO_BODY).
  headers: { "content-type": "application/json" },
});

/** The body of a POST that takes none: the JSON content type needs one, and `{}` is it. */
export const NO_BODY = {} as never;

/** A field the server (or the form) refused, in words. */
export interface FieldError {
  field: string;
  message: string;
}

/** The failure envelope, as the document declares it. */
type Failure = components["schemas"]["Error"];

/**
 * What an `ApiError` can say went wrong: one of the platform's closed list of codes (the document's
 * `Error` schema), or the dashboard's own when no envelope came back: `NETWORK` (no answer at all),
 * `UNKNOWN` (an answer without the envelope).
 */
export type ApiErrorCode = Failure["error"]["code"] | "NETWORK" | "UNKNOWN";

/** The failure envelope as one error: `code` to branch on, `message` to show, `fields` per field. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly fields: FieldError[];
  readonly requestId: string | null;
  constructor(
    status: number,
    code: ApiErrorCode,
    message: string,
    fields: FieldError[],
    requestId: string | null,
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
    this.requestId = requestId;
  }
}

type Envelope<T> = { success: true; data: T; meta?: unknown };

/** Signed-out handling: the app registers what to do when any call answers 401. */
let onUnauthenticated: () => void = () => {};
export function whenUnauthenticated(handler: () => void) {
  onUnauthenticated = handler;
}

const unauthenticated: Middleware = {
  onResponse({ response, request }) {
    // A 401 from the sign-in itself is a wrong password, not an expired session.
    if (response.status === 401 && !new URL(request.url).pathname.endsWith("/auth/login"))
      onUnauthenticated();
  },
};
api.use(unauthenticated);

/**
 * Unwraps an openapi-fetch result: the envelope's `data` (and `meta`), or an ApiError carrying the
 * failure envelope.
 */
export async function unwrap<T, M = unknown>(
  call: Promise<{ data?: unknown; error?: unknown; response: Response }>,
): Promise<{ data: T; meta: M }> {
  let result: Awaited<typeof call>;
  try {
    result = await call;
  } catch {
    throw new ApiError(
      0,
      "NETWORK",
      "The service cannot be reached. Check your connection and try again.",
      [],
      null,
    );
  }
  const { response } = result;
  if (result.data !== undefined && response.ok) {
    const body = result.data as Envelope<T>;
    return { data: body.data, meta: body.meta as M };
  }
  // A refusal's body as the document declares it; a body without the envelope reads as UNKNOWN.
  const failure = result.error as Partial<Failure> | undefined;
  const details = failure?.error?.details;
  const fields = Array.isArray(details)
    ? details.filter((d): d is FieldError => typeof d?.field === "string" && typeof d?.message === "string")
    : [];
  throw new ApiError(
    response.status,
    failure?.error?.code ?? "UNKNOWN",
    failure?.message ?? `The request failed (${response.status}).`,
    fields,
    response.headers.get("x-request-id"),
  );
}

/** A fresh Idempotency-Key for one create: a retry of the same submission reuses it. */
export function idempotencyKey(): string {
  return crypto.randomUUID();
}
