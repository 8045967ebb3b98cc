import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { FastifyInstance, FastifyServerOptions } from "fastify";
import { isDateTime } from "../../contracts/date-time.ts";

/**
 * Schema compilers, built lazily and once per process.
 *
 * Fastify compiles every route's validators (Ajv) and response serializers (fast-json-stringify)
 * when the application starts: about 5 s of CPU for this API, paid by every start of the process
 * (and by every test context), and held in memory for routes a process may never serve. Here a
 * route's compiled function is made on its first request instead, and kept per schema object for
 * the process's life, so a second application built on the same schemas (tests, a worker that
 * also serves) compiles nothing again. A compile costs a few milliseconds on that first request.
 */

/** A function compiled on its first call; `errors` (Ajv's result) is copied to the wrapper. */
function lazily<F extends (data: unknown) => unknown>(
  cache: WeakMap<object, F>,
  schema: object,
  compile: () => F,
): F {
  const wrapper = ((data: unknown) => {
    let compiled = cache.get(schema);
    if (!compiled) {
      compiled = compile();
      cache.set(schema, compiled);
    }
    const result = compiled(data);
    (wrapper as { errors?: unknown }).errors = (compiled as { errors?: unknown }).errors;
    return result;
  }) as F;
  return wrapper;
}

// verbose: each issue carries its schema, so a failed pattern is explained with the field's
// `x-hint` (contracts/fields.ts) instead of the regular expression.
const common = {
  allErrors: true,
  strict: false,
  removeAdditional: false,
  useDefaults: true,
  verbose: true,
} as const;

/**
 * Two validators: bodies are checked exactly as sent (a number where a string belongs is an error,
 * unknown fields are errors), while path and query strings are coerced, since they are text on the wire.
 */
const bodyAjv = new Ajv({ ...common, coerceTypes: false });
const textAjv = new Ajv({ ...common, coerceTypes: "array" });
for (const ajv of [bodyAjv, textAjv]) {
  addFormats.default(ajv);
  // Every `date-time` the API accepts (bodies, query parameters) is one both databases store
  // and read back: years 1-9999 once in UTC, no leap second (contracts/date-time.ts). Replaces
  // ajv-formats' syntax-only check, so a route cannot forget the bound.
  ajv.addFormat("date-time", { type: "string", validate: isDateTime });
}
const validators = {
  body: new WeakMap<object, ValidateFunction>(),
  text: new WeakMap<object, ValidateFunction>(),
};

/** The body validator of `schema`, compiled once (a version's older request body, for one). */
export function bodyValidator(schema: object): ValidateFunction {
  let compiled = validators.body.get(schema);
  if (!compiled) {
    compiled = bodyAjv.compile(schema);
    validators.body.set(schema, compiled);
  }
  return compiled;
}

/** An error Fastify's own validation would give (400, the issues in `validation`). */
export function bodyValidationError(issues: unknown): Error {
  return Object.assign(new Error("body is not valid"), {
    statusCode: 400,
    validation: issues,
    validationContext: "body",
  });
}

export function installValidators(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const body = httpPart === "body";
    return lazily(body ? validators.body : validators.text, schema, () =>
      (body ? bodyAjv : textAjv).compile(schema),
    );
  });
}

type SerializerFactory = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]>["buildSerializer"]
>;
const serializers = new WeakMap<object, (data: unknown) => string>();
const fastJsonStringify = SerializerSelector();

/**
 * Fastify's own response serializer (fast-json-stringify with the shared schemas), compiled on a
 * route's first response and kept per schema. Passed as `schemaController.compilersFactory`.
 */
export const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = fastJsonStringify(externalSchemas, options);
  return (route) =>
    lazily(serializers, route.schema as object, () => compile(route) as (data: unknown) => string);
};
