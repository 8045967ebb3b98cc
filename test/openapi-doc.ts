import type { App } from "../src/lib/http/types.ts";
import type { Json } from "./api-client.ts";

/**
 * Reading the served OpenAPI document: its operations and its schemas with local $refs inlined. The
 * document is read as plain JSON (`Json`): its own structure is not among the paths it describes.
 */

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** Operations that speak the OAuth RFCs (`{error, error_description}`), not the platform envelope. */
export const RFC_TAG = "OAuth 2.0 (standard)";

export interface Operation {
  method: string;
  path: string;
  op: Json;
  /** "POST /api/v1/dashboard/stores", for messages. */
  name: string;
}

/** The served document: the current version's, or `version`'s. */
export async function fetchDocument(app: App, version?: string): Promise<Json> {
  const url = `/api/docs/openapi.json${version ? `?version=${version}` : ""}`;
  const res = await app.inject({ method: "GET", url });
  if (res.statusCode !== 200) throw new Error(`GET ${url} answered ${res.statusCode}`);
  return res.json() as Json;
}

export function operationsOf(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Json)) {
    for (const method of HTTP_METHODS) {
      const op = (item as Json)[method];
      if (op) out.push({ method, path, op, name: `${method.toUpperCase()} ${path}` });
    }
  }
  return out;
}

export function isRfc(op: Json): boolean {
  return (op.tags ?? []).includes(RFC_TAG);
}

/** A copy of `node` with every `#/components/schemas/...` reference replaced by its target. */
export function inlineRefs(doc: Json, node: unknown, depth = 0): unknown {
  if (depth > 50) throw new Error("recursive $ref in the OpenAPI document");
  if (Array.isArray(node)) return node.map((n) => inlineRefs(doc, n, depth));
  if (!node || typeof node !== "object") return node;
  const ref = (node as Json).$ref;
  if (typeof ref === "string") {
    const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
    const target = match ? doc.components?.schemas?.[decodeURIComponent(match[1]!)] : undefined;
    if (!target) throw new Error(`unresolvable $ref ${ref}`);
    const { $ref: _ref, ...rest } = node as Json;
    return { ...(inlineRefs(doc, target, depth + 1) as Json), ...rest };
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inlineRefs(doc, v, depth + 1)]));
}

/** The JSON schema of a request body or response under a media type, refs inlined. */
export function schemaOf(doc: Json, holder: Json | undefined, mediaType: string): Json | undefined {
  const schema = holder?.content?.[mediaType]?.schema;
  return schema === undefined ? undefined : (inlineRefs(doc, schema) as Json);
}
