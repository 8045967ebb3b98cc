import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { App } from "../src/lib/http/types.ts";
import type { Api, Json } from "./api-client.ts";
import { fetchDocument, inlineRefs, operationsOf } from "./openapi-doc.ts";

/** An answer as the checker reads it: its status and its parsed body. */
interface Observed {
  status: number;
  body: unknown;
}

/**
 * Checks real responses against the served OpenAPI document (/api/docs/openapi.json): the body of
 * every response a test sees must match the schema documented for that operation and status, and
 * the status itself must be documented. The document and its schemas are read as plain JSON
 * (`Json`): the document's own structure is not among its paths.
 *
 *   const spec = await openApiChecker(ctx.app);
 *   const client = spec.watch(apiClient(ctx.app, { headers })); // every response it gets is checked
 *   spec.check("GET", "/api/v1/developer/store", { status, body }); // or one answer, by path template
 *
 * With `version`, against that API version's document (the client sends that version).
 */
export async function openApiChecker(app: App, options: { version?: string } = {}) {
  const doc = await fetchDocument(app, options.version);
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const cache = new Map<string, ValidateFunction>();
  const validator = (key: string, schema: unknown) => {
    let validate = cache.get(key);
    if (!validate) {
      validate = ajv.compile(inlineRefs(doc, schema) as object);
      cache.set(key, validate);
    }
    return validate;
  };

  // Path templates as patterns; a literal segment beats a parameter, so fewer parameters win.
  const templates = Object.keys(doc.paths as Json)
    .map((path) => ({
      path,
      params: (path.match(/\{/g) ?? []).length,
      pattern: new RegExp(
        `^${path
          .split(/\{[^}]+\}/)
          .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&"))
          .join("[^/]+")}$`,
      ),
    }))
    .sort((a, b) => a.params - b.params);

  const checker = {
    doc,
    /** The documented path template of a concrete URL: `/api/v1/developer/products/prod_x?a=1` -> `.../{id}`. */
    operationPath(method: string, url: string): string {
      const path = url.split("?")[0]!;
      const found = templates.find((t) => t.pattern.test(path) && doc.paths[t.path][method.toLowerCase()]);
      if (!found) throw new Error(`no operation ${method} ${path} in the OpenAPI document`);
      return found.path;
    },
    /** Throws when `res` does not match the documented response of `method path` (path as in the document). */
    check(method: string, path: string, res: Observed) {
      const op = doc.paths[path]?.[method.toLowerCase()];
      if (!op) throw new Error(`no operation ${method} ${path} in the OpenAPI document`);
      const response = op.responses[String(res.status)];
      if (!response) throw new Error(`${method} ${path} answered ${res.status}, which is not documented`);
      const schema = response.content?.["application/json"]?.schema;
      if (!schema) return;
      const key = `${method} ${path} ${res.status}`;
      const validate = validator(key, schema);
      if (!validate(res.body)) {
        throw new Error(
          `${key}: body does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body).slice(0, 400)}`,
        );
      }
    },
    /** Makes `client` check every response it receives against the document; returns it. */
    watch<C extends Api>(client: C): C {
      client.use({
        async onResponse({ request, response, schemaPath }) {
          const raw = await response.clone().text();
          let body: unknown = raw;
          try {
            body = JSON.parse(raw);
          } catch {
            // not JSON: a documented JSON answer will not match it
          }
          checker.check(request.method, schemaPath, { status: response.status, body });
        },
      });
      return client;
    },
    /**
     * The documented examples of every response (and request body) of the operations whose path
     * starts with `prefix`, each checked against its own schema. Returns the problems found and
     * how many examples were checked.
     */
    checkExamples(prefix: string): { problems: string[]; checked: number } {
      const problems: string[] = [];
      let checked = 0;
      for (const { method, path, op, name } of operationsOf(doc)) {
        if (!path.startsWith(prefix)) continue;
        const media: Array<[string, Json | undefined]> = Object.entries(op.responses as Json).map(
          ([status, r]) => [status, (r as Json).content?.["application/json"]],
        );
        media.push(["request", op.requestBody?.content?.["application/json"]]);
        for (const [where, content] of media) {
          if (!content?.schema) continue;
          // fastify-swagger hoists a schema's `examples` to the media type: one as `example`,
          // several as an `examples` map of {value}.
          const examples = [
            ...(content.example !== undefined ? [content.example] : []),
            ...Object.values((content.examples ?? {}) as Json).map((e) => (e as Json).value),
            ...(content.schema.examples ?? []),
          ];
          for (const example of examples) {
            checked++;
            const validate = validator(`example ${method} ${path} ${where}`, content.schema);
            if (!validate(example)) problems.push(`${name} ${where}: ${ajv.errorsText(validate.errors)}`);
          }
        }
      }
      return { problems, checked };
    },
  };
  return checker;
}
