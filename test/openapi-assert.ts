import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { App } from "../src/lib/http/types.ts";
import type { Json, Response_ } from "./harness.ts";

/**
 * Checks real responses against the served OpenAPI document: the body of every response a test
 * sees must match the schema documented for that operation and status.
 */
export async function openApiChecker(app: App) {
  const doc = (await app.inject({ method: "GET", url: "/api/docs/openapi.json" })).json() as Json;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const resolve = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(resolve);
    if (node && typeof node === "object") {
      const ref = (node as { $ref?: string }).$ref;
      if (ref?.startsWith("#/components/schemas/")) return resolve(doc.components.schemas[ref.slice(21)]);
      return Object.fromEntries(
        Object.entries(node)
          .filter(([k]) => k !== "examples" && k !== "example")
          .map(([k, v]) => [k, resolve(v)]),
      );
    }
    return node;
  };
  const cache = new Map<string, ValidateFunction>();
  return {
    doc,
    /** Throws when `res` does not match the documented response of `method path` (path as in the document). */
    check(method: string, path: string, res: Response_) {
      const op = doc.paths[path]?.[method.toLowerCase()];
      if (!op) throw new Error(`no operation ${method} ${path} in the OpenAPI document`);
      const response = op.responses[String(res.status)];
      if (!response) throw new Error(`${method} ${path} answered ${res.status}, which is not documented`);
      const schema = response.content?.["application/json"]?.schema;
      if (!schema) return;
      const key = `${method} ${path} ${res.status}`;
      let validate = cache.get(key);
      if (!validate) {
        validate = ajv.compile(resolve(schema) as object);
        cache.set(key, validate);
      }
      if (!validate(res.body)) {
        throw new Error(
          `${key}: body does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body).slice(0, 400)}`,
        );
      }
    },
  };
}
