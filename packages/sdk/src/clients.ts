import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import { errorFromResponse, PlatformError } from "./errors.ts";
import { type EventFeed, eventFeed } from "./events.ts";
import { type ExportOptions, type ExportRecord, type ExportResource, exportRecords } from "./export.ts";
import type { paths } from "./generated/api.ts";
import { API_VERSION } from "./generated/api-version.ts";
import { type Fetch, type RetryOptions, retryingFetch } from "./http.ts";
import type { TokenManager } from "./oauth.ts";

/** The operations of one API family, by path prefix, as the committed OpenAPI document types them. */
type PathsUnder<Prefix extends string> = {
  [P in keyof paths as P extends `${Prefix}${string}` ? P : never]: paths[P];
};
export type AdminPaths = PathsUnder<"/api/v1/apps/api/">;
export type DeveloperPaths = PathsUnder<"/api/v1/developer/">;

/**
 * Every record of a bulk export as an async iterator (export.ts):
 *
 *   for await (const product of admin.exportAll("products", { updatedSince })) { ... }
 */
export type ExportAll = <R extends ExportResource>(
  resource: R,
  options?: ExportOptions,
) => AsyncGenerator<ExportRecord<R>>;

/** The typed Admin API, with `events` (the event feed as iterators, events.ts) and `exportAll`. */
export type AdminClient = Client<AdminPaths> & { events: EventFeed; exportAll: ExportAll };
/** The typed developer API, with `exportAll`. */
export type DeveloperClient = Client<DeveloperPaths> & { exportAll: ExportAll };

/** `exportAll` on a typed client of the family under `prefix`. */
function exportAllOf(client: Client<AdminPaths> | Client<DeveloperPaths>, prefix: string): ExportAll {
  // The export paths are typed by resource at the ExportAll signature; the call itself is by name.
  const get = (path: string, init: object) =>
    (client.GET as unknown as (p: string, i: object) => Promise<{ data?: unknown; response: Response }>)(
      path,
      init,
    );
  return (resource, options) => exportRecords(get, prefix, resource, options);
}

interface CommonOptions {
  /** The platform's origin, e.g. `https://platform.example.com`. */
  baseUrl: string;
  retry?: RetryOptions;
  /** The transport (tests, proxies); the SDK's retries wrap it. */
  fetch?: Fetch;
  /** Sent as `User-Agent` (server side) so the platform's logs name your app. */
  userAgent?: string;
  /**
   * Sent as `Api-Version` on every call: by default `API_VERSION`, the version this SDK was
   * generated for and its types describe. Another version is served at that version's shape,
   * which these types may not match; upgrade the SDK instead.
   */
  apiVersion?: string;
}

/** Client options where every refusal is thrown as a `PlatformError` before openapi-fetch sees it. */
function throwingFetch(send: Fetch): Fetch {
  return async (request) => {
    const response = await send(request);
    if (!response.ok) throw await errorFromResponse(response);
    return response;
  };
}

function options(common: CommonOptions, send: Fetch): ClientOptions {
  return {
    baseUrl: common.baseUrl.replace(/\/+$/, ""),
    fetch: throwingFetch(send),
    headers: {
      "api-version": common.apiVersion ?? API_VERSION,
      ...(common.userAgent ? { "user-agent": common.userAgent } : {}),
    },
  };
}

/**
 * The Admin API (`/api/v1/apps/api/...`) as one installation: `tokens` (a token manager: refreshed
 * before expiry and once more on a 401) or a fixed `accessToken`. Calls are typed by path:
 *
 *   const products = await unwrap(admin.GET("/api/v1/apps/api/products", { params: { query: { limit: 50 } } }));
 *
 * Every refusal throws `PlatformError` (`code`, `status`, `requestId`); 429s are waited out and
 * idempotent requests retried (see `RetryOptions`); POSTs carry an `Idempotency-Key`.
 */
export function createAdminClient(
  input: CommonOptions & ({ tokens: TokenManager } | { accessToken: string }),
): AdminClient {
  const send = retryingFetch({ ...input.retry, ...(input.fetch ? { fetch: input.fetch } : {}) });
  const authorized: Fetch = async (request) => {
    const token = "tokens" in input ? await input.tokens.accessToken() : input.accessToken;
    const first = await send(withBearer(request.clone(), token));
    if (first.status !== 401 || !("tokens" in input)) return first;
    // Revoked or expired early (a clock ahead of ours): one refresh, shared with concurrent callers.
    await first.body?.cancel();
    const next = await input.tokens.refresh(token);
    return send(withBearer(request, next.accessToken));
  };
  const client = createClient<AdminPaths>(options(input, authorized));
  return Object.assign(client, {
    events: eventFeed(client as AdminClient),
    exportAll: exportAllOf(client, "/api/v1/apps/api"),
  });
}

/** The developer API (`/api/v1/developer/...`) with a key pair from the dashboard. */
export function createDeveloperClient(
  input: CommonOptions & { apiKey: string; apiSecret: string },
): DeveloperClient {
  const send = retryingFetch({ ...input.retry, ...(input.fetch ? { fetch: input.fetch } : {}) });
  const keyed: Fetch = (request) => {
    const headers = new Headers(request.headers);
    headers.set("x-api-key", input.apiKey);
    headers.set("x-api-secret", input.apiSecret);
    return send(new Request(request, { headers }));
  };
  const client = createClient<DeveloperPaths>(options(input, keyed));
  return Object.assign(client, { exportAll: exportAllOf(client, "/api/v1/developer") });
}

function withBearer(request: Request, token: string): Request {
  const headers = new Headers(request.headers);
  headers.set("authorization", `Bearer ${token}`);
  return new Request(request, { headers });
}

/**
 * The envelope's `data` of a call: `await unwrap(admin.GET(...))`. Refusals were already thrown as
 * `PlatformError`; a success without an envelope is `INVALID_RESPONSE`.
 */
export async function unwrap<D extends { data: unknown }>(
  call: Promise<{ data?: D; error?: unknown; response: Response }>,
): Promise<D["data"]> {
  const { data, response } = await call;
  if (!data || typeof data !== "object" || !("data" in data))
    throw new PlatformError({
      code: "INVALID_RESPONSE",
      message: `Expected an envelope, got HTTP ${response.status}.`,
      status: response.status,
      requestId: response.headers.get("x-request-id"),
    });
  return data.data;
}

/**
 * Every item of a cursor-paginated list, page after page:
 *
 *   for await (const order of paginate((cursor) =>
 *     admin.GET("/api/v1/apps/api/orders", { params: { query: { cursor, limit: 100 } } }))) { ... }
 */
export async function* paginate<T>(
  page: (
    cursor: string | undefined,
  ) => Promise<{ data?: { data: T[]; meta: { nextCursor: string | null } }; response: Response }>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const { data } = await page(cursor);
    if (!data) return;
    yield* data.data;
    cursor = data.meta.nextCursor ?? undefined;
  } while (cursor);
}
