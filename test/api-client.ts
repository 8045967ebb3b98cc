import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import createClient, { type Client as FetchClient } from "openapi-fetch";
import type { App } from "../src/lib/http/types.ts";
import type { components, paths, webhooks } from "./generated/api.ts";

/**
 * The typed client the tests (and the benchmarks' setup) call the platform through, and what reads
 * its answers: openapi-fetch's client typed by the `paths` generated from the committed openapi.json
 * (`npm run generate:test`), over `app.inject` or real HTTP. Nothing here imports the application:
 * a benchmark's process can use it against a running service.
 */

/**
 * Plain JSON, for what the document does not describe and a test sends or reads on purpose: a body
 * the document refuses, an unknown field, the document itself, a stream's messages, the fuzzer's
 * values. Every use says why next to it; an answer the document describes is read typed instead.
 */
// biome-ignore lint/suspicious/noExplicitAny: plain JSON of unknown shape, read on purpose (see above).
export type Json = Record<string, any>;

/**
 * A value the document does not allow, sent on purpose to see it refused (a wrong type, an unknown
 * or a missing field): it takes the type the call expects. Each use says why next to it.
 */
export function offDocument(value: unknown): never {
  return value as never;
}

/**
 * Sends a call's body form-encoded, as the standard OAuth endpoints take it (RFC 6749):
 * `client.POST("/api/v1/oauth/token", { body: { grant_type, ... }, ...asForm })`.
 */
export const asForm = {
  bodySerializer: (body: unknown) =>
    new URLSearchParams(
      Object.entries(body as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]): [string, string] => [k, String(v)]),
    ).toString(),
  headers: { "content-type": "application/x-www-form-urlencoded" },
};

/**
 * Sends `text` as a call's body byte for byte, whatever the operation takes (malformed JSON, a form
 * where JSON belongs): `client.POST(path, { params, ...rawBody('{"name": '), headers })`.
 */
export function rawBody(text: string): { body: never; bodySerializer: (body: unknown) => string } {
  return { body: text as never, bodySerializer: () => text };
}

/**
 * Serializes a call's query as a browser's form does (`+` for a space, URLSearchParams), where a test
 * compares the query the server echoes with the one it sent:
 * `client.GET(path, { params: { query }, querySerializer: formQuery })`.
 */
export function formQuery(query: Record<string, unknown>): string {
  return new URLSearchParams(
    Object.entries(query)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
}

/** A session cookie kept between requests, like a browser's: shared by clients made with the same jar. */
export interface CookieJar {
  cookie: string | undefined;
}

/**
 * The typed client the tests call the application through: openapi-fetch's client typed by the
 * `paths` generated from the committed openapi.json (`npm run generate:test` writes
 * test/generated/api.ts, as the dashboard and the SDK generate theirs), so a test that reads a
 * field the document does not have fails the type check. `target` is the application (each
 * request through `app.inject`, no port) or a base URL (real HTTP to a running process).
 *
 * It behaves as a browser would for the dashboard: the session cookie set by sign-up or login
 * (`mp_session`) is kept in `jar` and sent on later requests; every request that is not a GET says
 * `Content-Type: application/json` (the dashboard's CSRF rule) and a POST without a body sends
 * `{}`, as the dashboard does. `headers` go on every request (a bearer token, an API key pair);
 * a call's own `headers` (an Idempotency-Key) win over them, and both over the jar's cookie.
 *
 *   const c = apiClient(ctx.app);
 *   const res = await c.GET("/api/v1/dashboard/stores/{slug}/products/{id}", { params: { path: { slug, id } } });
 *   ok(res).data.title;                       // asserts 200 and returns the typed body
 *   res.response.status; res.response.headers.get("etag"); text(res);   // status, headers, raw text
 */
export type Api = FetchClient<paths> & { readonly jar: CookieJar };

export function apiClient(
  target: App | string,
  options: {
    headers?: Record<string, string>;
    jar?: CookieJar;
    /** The client's address as the application sees it (through `app.inject` only). */
    remoteAddress?: string;
  } = {},
): Api {
  const jar = options.jar ?? { cookie: undefined };
  const client = createClient<paths>({
    baseUrl: typeof target === "string" ? target : "http://localhost",
    fetch:
      typeof target === "string" ? httpTransport(jar) : injectTransport(target, jar, options.remoteAddress),
    headers: options.headers ?? {},
  });
  return Object.assign(client, { jar });
}

/**
 * A request the document does not describe (an unknown route, a method a path does not take), sent
 * through the client's transport like any other call; its answer is read untyped.
 */
export function offDocumentRequest(
  client: Api,
  method: string,
  url: string,
  init: { headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  // openapi-fetch's own untyped entry: `request` takes any method and URL at run time.
  const request = client.request as unknown as (method: string, url: string, init: object) => Promise<Answer>;
  // Read as text: what answers there need not be JSON (a page, a redirect); `text()` has it.
  return request(method, url, {
    headers: init.headers,
    parseAs: "text",
    ...(init.body !== undefined ? rawBody(init.body) : {}),
  });
}

/** A cookie an answer sets, with the attributes a test checks. */
export interface SetCookie {
  name: string;
  value: string;
  httpOnly: boolean;
  secure: boolean;
  sameSite?: string;
  path?: string;
  maxAge?: number;
  expires?: Date;
}

/** The cookies an answer sets (its `Set-Cookie` headers, parsed). */
export function setCookies(res: Answer): SetCookie[] {
  return res.response.headers.getSetCookie().map((header) => {
    const [pair = "", ...attributes] = header.split(";").map((part) => part.trim());
    const at = pair.indexOf("=");
    const cookie: SetCookie = {
      name: pair.slice(0, at),
      value: decodeURIComponent(pair.slice(at + 1)),
      httpOnly: false,
      secure: false,
    };
    for (const attribute of attributes) {
      const [key = "", value = ""] = attribute.split("=", 2);
      switch (key.toLowerCase()) {
        case "httponly":
          cookie.httpOnly = true;
          break;
        case "secure":
          cookie.secure = true;
          break;
        case "samesite":
          cookie.sameSite = value;
          break;
        case "path":
          cookie.path = value;
          break;
        case "max-age":
          cookie.maxAge = Number(value);
          break;
        case "expires":
          cookie.expires = new Date(value);
          break;
      }
    }
    return cookie;
  });
}

/** The raw text of every answer the typed clients received, by its Response. */
const rawText = new WeakMap<Response, string>();

/** The body of an answer as the server wrote it: what a test prints, or reads when it is not JSON. */
export function text(res: { response: Response } | Response): string {
  const response = res instanceof Response ? res : res.response;
  return rawText.get(response) ?? "";
}

/** The request as the browser-like client sends it: the jar's cookie, JSON writes, `{}` for a bodiless POST. */
async function outgoing(request: Request, jar: CookieJar) {
  const headers = new Headers(request.headers);
  if (jar.cookie && !headers.has("cookie")) headers.set("cookie", jar.cookie);
  if (request.method !== "GET" && !headers.has("content-type"))
    headers.set("content-type", "application/json");
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  return { headers, body: body ?? (request.method === "POST" ? Buffer.from("{}") : undefined) };
}

/** Keeps the session cookie an answer sets (an expired one clears the jar, as logout does). */
function keepCookie(jar: CookieJar, setCookies: string[]) {
  for (const cookie of setCookies) {
    const [pair = ""] = cookie.split(";");
    if (pair.startsWith("mp_session=")) jar.cookie = pair.length > "mp_session=".length ? pair : undefined;
  }
}

/** A Response for openapi-fetch, its raw text kept for `text()`. */
function answerOf(status: number, headers: Headers, body: Buffer | string): Response {
  // A 204 or 304 has no body: Response refuses one.
  const response = new Response(status === 204 || status === 304 ? null : body, { status, headers });
  rawText.set(response, typeof body === "string" ? body : body.toString("utf8"));
  return response;
}

/** The Response of an `app.inject` answer, its raw text kept for `text()`. */
function responseOf(res: LightMyRequestResponse): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, String(v));
  }
  return answerOf(res.statusCode, headers, res.rawPayload);
}

/**
 * An answer `app.inject` got directly, for what the typed client cannot send (a header value with
 * surrounding spaces, which the Fetch API trims), in the typed client's shape: its body, parsed
 * when it is JSON, as `data` or `error` by its status; untyped.
 */
export function injected(res: LightMyRequestResponse): Answer {
  let body: unknown = res.body;
  try {
    body = res.json();
  } catch {
    // not JSON: the text, as openapi-fetch leaves a refusal it cannot parse
  }
  const response = responseOf(res);
  return response.ok ? { data: body, response } : { error: body, response };
}

function injectTransport(app: App, jar: CookieJar, remoteAddress?: string) {
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const { headers, body } = await outgoing(request, jar);
    const res = await app.inject({
      method: request.method as "GET",
      url: url.pathname + url.search,
      headers: Object.fromEntries(headers),
      ...(body ? { payload: body } : {}),
      ...(remoteAddress ? { remoteAddress } : {}),
    });
    const response = responseOf(res);
    keepCookie(jar, response.headers.getSetCookie());
    return response;
  };
}

function httpTransport(jar: CookieJar) {
  return async (request: Request): Promise<Response> => {
    const { headers, body } = await outgoing(request, jar);
    const res = await fetch(request.url, {
      method: request.method,
      headers,
      ...(body ? { body } : {}),
      redirect: "manual",
      // An upper bound far above any answer of a working service on a loaded machine.
      signal: AbortSignal.timeout(60_000),
    });
    keepCookie(jar, res.headers.getSetCookie());
    return answerOf(res.status, res.headers, Buffer.from(await res.arrayBuffer()));
  };
}

/** What every typed call answers (openapi-fetch's result): the parsed body as `data` or `error`, and the Response. */
export type Answer = { data?: unknown; error?: unknown; response: Response };

/** Asserts the answer's status (200 unless told) and returns its success body, typed by the operation. */
export function ok<A extends Answer>(res: A, status = 200): NonNullable<A["data"]> {
  assert.equal(res.response.status, status, text(res).slice(0, 1000));
  return res.data as NonNullable<A["data"]>;
}

/** The request body of an operation (JSON, or a form for the standard OAuth endpoints), as the document types it. */
export type RequestBody<P extends keyof paths, M extends keyof paths[P]> = BodyOf<paths[P][M]>;
type BodyOf<Op> = Op extends { requestBody?: { content: infer C } }
  ? C extends { "application/json": infer B }
    ? B
    : C extends { "application/x-www-form-urlencoded": infer F }
      ? F
      : never
  : never;

/** The `data` of an operation's success answer (its 200 or 201), as the document types it. */
export type ResponseData<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: infer R;
}
  ? R extends { 200: { content: { "application/json": { data: infer D } } } }
    ? D
    : R extends { 201: { content: { "application/json": { data: infer D } } } }
      ? D
      : never
  : never;

/** The member of a union (an event feed's items) whose `type` can be `K`. */
export type OfType<T, K> = T extends { type: infer U } ? (K extends U ? T : never) : never;

/** Asserts that a feed item is of `type` and narrows it to that member of the document's union. */
export function ofType<T extends { type: string }, K extends T["type"]>(item: T, type: K): OfType<T, K> {
  assert.equal(item.type, type);
  return item as OfType<T, K>;
}

/** A webhook event's name, from the document's `webhooks` section. */
export type EventName = keyof webhooks;

/** A webhook's body as the document's `webhooks` section declares it (any event's, by default). */
export type EventBody<E extends EventName = EventName> = BodyOf<webhooks[E]["post"]>;

/** A webhook event's `data` as the document's `webhooks` section declares it (the outbox's payload). */
export type EventData<E extends EventName> =
  BodyOf<webhooks[E]["post"]> extends { data: infer D } ? D : never;

/** The query of an operation (a GET unless told), as the document types it. */
export type QueryOf<
  P extends keyof paths,
  M extends keyof paths[P] = "get" & keyof paths[P],
> = paths[P][M] extends {
  parameters: { query?: infer Q };
}
  ? NonNullable<Q>
  : never;

/** A scope a developer key pair can hold, from the document's closed list. */
export type KeyScope = RequestBody<"/api/v1/dashboard/stores/{slug}/api-keys", "post">["scopes"][number];

/** A scope an app asks for, from the document's closed list. */
export type Scope = RequestBody<"/api/v1/dashboard/apps", "post">["scopes"][number];

/** The platform's failure envelope, as the document declares it. */
export type ErrorBody = components["schemas"]["Error"];

/** The platform's error codes, from the document's closed list (`Error.error.code`). */
export type ErrorCode = ErrorBody["error"]["code"];

/** Asserts the failure envelope's shape and returns its error code. */
export function errorCode(res: Answer): ErrorCode {
  const b = res.error as Partial<ErrorBody> | undefined;
  if (
    b?.success !== false ||
    typeof b.message !== "string" ||
    typeof b.error?.code !== "string" ||
    typeof b.error?.message !== "string"
  ) {
    throw new Error(`not a failure envelope (${res.response.status}): ${text(res).slice(0, 300)}`);
  }
  return b.error.code;
}

/** The fields a refusal names (its `error.details`, a list of `{ field, message }`); asserts that it is that list. */
export function fieldErrors(res: Answer): Array<{ field: string; message: string }> {
  const details = (res.error as Partial<ErrorBody> | undefined)?.error?.details;
  assert.ok(Array.isArray(details), `no list of fields in ${text(res).slice(0, 300)}`);
  return details;
}

/** A refusal's `details` when they are an object (`{ requiredScope }`, `{ limit }`); asserts that they are. */
export function detailsOf(res: Answer): Record<string, unknown> {
  const details = (res.error as Partial<ErrorBody> | undefined)?.error?.details;
  assert.ok(details && typeof details === "object" && !Array.isArray(details), `no details in ${text(res)}`);
  return details;
}

/** The body without the request's own id (`error.requestId`): what two answers compare on. */
export function answer(res: Answer): unknown {
  const body = res.data ?? res.error;
  if (
    !body ||
    typeof body !== "object" ||
    !("error" in body) ||
    !body.error ||
    typeof body.error !== "object"
  )
    return body;
  const { requestId: _id, ...error } = body.error as { requestId?: unknown };
  return { ...body, error };
}
