import { DEFAULT_MESSAGES, ERROR_CODES, type ErrorCode } from "../errors.ts";
import { exampleOf } from "./openapi-examples.ts";

/**
 * The last step of the OpenAPI document, after @fastify/swagger has collected every route's schema:
 * what generators and linters need that is a rule of the whole API rather than of one route.
 *
 * - Named schemas: every object schema with a `title` (the contract's `Product`, `Order`, each
 *   event payload, ...) becomes `components.schemas.<title>`, referenced by `$ref` wherever it
 *   appears, so generated clients get one importable type per resource. Two different schemas under
 *   one title stop the generation.
 * - Every operation declares `security` (`[]` when public): a route without it stops the generation.
 * - A parameter with a default is not required (the server fills the default in).
 * - The response headers the server sends, by rule: `X-Request-Id` on every response,
 *   `X-RateLimit-*` on the rate-limited families' answers, `Retry-After` on 429, 503 and the
 *   idempotency 409, `WWW-Authenticate` on the bearer families' 401 and 403, `Location` on a 201
 *   whose resource can be read at `<path>/{id}`, `Idempotency-Replayed` on idempotent creates.
 * - An example of each operation's success and of its main error (of one line, for JSON Lines).
 */

type Json = Record<string, any>;

const METHODS = ["get", "put", "post", "delete", "patch"] as const;

/** Security schemes whose requests are counted by a rate limiter (they send `X-RateLimit-*`). */
const RATE_LIMITED_SCHEMES = ["appOAuth", "developerKey"];
/** Security schemes whose 401 and 403 carry `WWW-Authenticate` (RFC 6750). */
const BEARER_SCHEMES = ["appOAuth"];

export const RESPONSE_HEADERS: Record<string, Json> = {
  "X-Request-Id": {
    description:
      "The request's id (the one the client sent in `X-Request-Id`, or a new one). Error bodies carry it as `error.requestId`; quote it when asking for support.",
    schema: { type: "string" },
  },
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
  "Retry-After": {
    description: "Seconds to wait before retrying.",
    schema: { type: "integer" },
  },
  "WWW-Authenticate": {
    description:
      'The bearer challenge (RFC 6750): `error="invalid_token"` for an unknown, expired or revoked token, `error="insufficient_scope", scope="..."` for a missing scope.',
    schema: { type: "string" },
  },
  Location: {
    description: "The URL of the created resource.",
    schema: { type: "string" },
  },
  "Idempotency-Replayed": {
    description:
      "`true` when this is the stored answer to an earlier request with the same `Idempotency-Key` (nothing was created again).",
    schema: { type: "string", enum: ["true"] },
  },
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Moves titled object schemas into components.schemas, replacing them with `$ref`s (post-order). */
function hoistNamedSchemas(doc: Json): void {
  const named: Record<string, Json> = { ...(doc.components?.schemas ?? {}) };
  const seen = new Map<string, string>();
  for (const [name, schema] of Object.entries(named)) seen.set(name, JSON.stringify(schema));
  const visit = (node: unknown, inComponent: string | null): unknown => {
    if (Array.isArray(node)) return node.map((n) => visit(n, null));
    if (!node || typeof node !== "object") return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) out[k] = visit(v, null);
    const title = out.title;
    if (typeof title !== "string" || out.type !== "object" || title === inComponent) return out;
    if (!/^[A-Z][A-Za-z0-9]*$/.test(title)) throw new Error(`schema title "${title}" is not a type name`);
    const { description, ...schema } = out;
    const text = JSON.stringify(schema);
    const before = seen.get(title);
    if (before === undefined) {
      seen.set(title, text);
      named[title] = schema;
    } else if (before !== text) {
      throw new Error(`two different schemas are titled "${title}": give one another title`);
    }
    return description === undefined
      ? { $ref: `#/components/schemas/${title}` }
      : { $ref: `#/components/schemas/${title}`, description };
  };
  doc.paths = visit(doc.paths, null) as Json;
  if (doc.webhooks) doc.webhooks = visit(doc.webhooks, null) as Json;
  for (const [name, schema] of Object.entries(named)) named[name] = visit(schema, name) as Json;
  doc.components.schemas = Object.fromEntries(Object.entries(named).sort(([a], [b]) => a.localeCompare(b)));
}

function schemesOf(op: Json): Set<string> {
  return new Set(((op.security ?? []) as Json[]).flatMap((r) => Object.keys(r)));
}

function codesOf(response: Json): ErrorCode[] {
  const text = String(response.description ?? "");
  return (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => text.includes(`\`${code}\``));
}

/** The error a client meets first when it calls the operation wrongly: its most specific 4xx. */
function mainError(op: Json): { status: string; code: ErrorCode | null } | null {
  const statuses = Object.keys(op.responses).filter((s) => /^4/.test(s));
  for (const status of ["404", "409", "422", "403", "400", "401", "429"]) {
    if (!statuses.includes(status)) continue;
    const codes = codesOf(op.responses[status]);
    const code = codes.find((c) => c !== "VALIDATION_FAILED" && c !== "RATE_LIMITED") ?? codes[0] ?? null;
    return { status, code };
  }
  return null;
}

function addExamples(doc: Json, op: Json): void {
  const success = Object.keys(op.responses)
    .filter((s) => /^2/.test(s))
    .sort()[0];
  const media = success && op.responses[success].content?.["application/json"];
  if (media && media.example === undefined && media.examples === undefined)
    media.example = exampleOf(media.schema, doc);
  // A JSON Lines body (bulk export): its schema is one line's, and so is the example.
  const lines = success && op.responses[success].content?.["application/x-ndjson"];
  if (lines && lines.example === undefined && lines.examples === undefined)
    lines.example = exampleOf(lines.schema, doc);
  const main = mainError(op);
  const errorMedia = main && op.responses[main.status].content?.["application/json"];
  if (!errorMedia || errorMedia.example !== undefined || errorMedia.examples !== undefined) return;
  if (errorMedia.schema?.$ref === "#/components/schemas/Error" && main.code) {
    const message = DEFAULT_MESSAGES[main.code];
    errorMedia.example = {
      success: false,
      message,
      error: {
        code: main.code,
        message,
        ...(main.code === "VALIDATION_FAILED"
          ? { details: [{ field: "title", message: "must NOT have fewer than 1 characters" }] }
          : {}),
        requestId: "3f2b8c1e-9a4d-4e7b-8c21-5d6f7a8b9c0d",
      },
    };
  } else {
    errorMedia.example = exampleOf(errorMedia.schema, doc);
  }
}

function addHeaders(path: string, method: string, op: Json, doc: Json): void {
  const schemes = schemesOf(op);
  const limited = RATE_LIMITED_SCHEMES.some((s) => schemes.has(s));
  const bearer = BEARER_SCHEMES.some((s) => schemes.has(s));
  const idempotent = ((op.parameters ?? []) as Json[]).some(
    (p) => p.in === "header" && String(p.name).toLowerCase() === "idempotency-key",
  );
  const readable = `${path}/{id}`;
  const locatable = method === "post" && Boolean(doc.paths[readable]?.get);
  for (const [status, response] of Object.entries(op.responses as Json)) {
    if (response.$ref) continue;
    const headers: Json = { ...(response.headers ?? {}), "X-Request-Id": headerRef("X-Request-Id") };
    const code = Number(status);
    if (limited && code !== 401 && code < 500)
      for (const h of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"])
        headers[h] = headerRef(h);
    if (
      code === 429 ||
      code === 503 ||
      (code === 409 && codesOf(response).includes("IDEMPOTENCY_KEY_IN_USE"))
    )
      headers["Retry-After"] = headerRef("Retry-After");
    if (bearer && (code === 401 || code === 403)) headers["WWW-Authenticate"] = headerRef("WWW-Authenticate");
    if (code === 201 && locatable) headers.Location = headerRef("Location");
    if (idempotent && code < 500 && code !== 401)
      headers["Idempotency-Replayed"] = headerRef("Idempotency-Replayed");
    response.headers = headers;
  }
}

export function finishDocument(doc: Json): Json {
  doc.components ??= {};
  hoistNamedSchemas(doc);
  doc.components.headers = RESPONSE_HEADERS;
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const method of METHODS) {
      const op = (item as Json)[method];
      if (!op) continue;
      const name = `${method.toUpperCase()} ${path}`;
      if (!Array.isArray(op.security))
        throw new Error(`${name} declares no security: say \`security: []\` for a public operation`);
      for (const p of (op.parameters ?? []) as Json[])
        if (p.schema?.default !== undefined) p.required = false;
      addHeaders(path, method, op, doc);
      addExamples(doc, op);
    }
  }
  return doc;
}
