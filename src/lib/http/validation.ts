import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import type { FastifyInstance } from "fastify";
import { isDateTime } from "../../contracts/date-time.ts";

/**
 * Two validators: bodies are checked exactly as sent (a number where a string belongs is an error,
 * unknown fields are errors), while path and query strings are coerced, since they are text on the wire.
 */
export function installValidators(app: FastifyInstance): void {
  // verbose: each issue carries its schema, so a failed pattern is explained with the field's
  // `x-hint` (contracts/fields.ts) instead of the regular expression.
  const common = {
    allErrors: true,
    strict: false,
    removeAdditional: false,
    useDefaults: true,
    verbose: true,
  } as const;
  const bodyAjv = new Ajv({ ...common, coerceTypes: false });
  const textAjv = new Ajv({ ...common, coerceTypes: "array" });
  for (const ajv of [bodyAjv, textAjv]) {
    addFormats.default(ajv);
    // Every `date-time` the API accepts (bodies, query parameters) is one both databases store
    // and read back: years 1-9999 once in UTC, no leap second (contracts/date-time.ts). Replaces
    // ajv-formats' syntax-only check, so a route cannot forget the bound.
    ajv.addFormat("date-time", { type: "string", validate: isDateTime });
  }
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === "body" ? bodyAjv : textAjv;
    return ajv.compile(schema);
  });
}
