import type { TSchema } from "typebox";
import Value from "typebox/value";
import type { FieldError } from "../api/client.ts";

/**
 * Form validation with the contract's own field schemas (the server checks the same), in words:
 * lengths and bounds are spelled out, a failed pattern or format uses the field's `x-hint`, never
 * the regular expression.
 */
/** A field's rule in words (`x-hint`), for the hint under a field and its errors. */
export function hintOf(schema: TSchema): string | undefined {
  return (schema as { "x-hint"?: string })["x-hint"];
}

export function fieldError(schema: TSchema, value: unknown): string | null {
  const [first] = Value.Errors(schema, value);
  if (!first) return null;
  const params = first.params as { limit?: number; format?: string };
  const hint = hintOf(schema);
  switch (first.keyword) {
    case "minLength":
      return params.limit === 1 ? "is required" : `must be at least ${params.limit} characters`;
    case "maxLength":
      return `must be at most ${params.limit} characters`;
    case "minimum":
      return `must be ${params.limit} or more`;
    case "maximum":
      return `must be ${params.limit} or less`;
    case "type":
      return "must be a whole number";
    case "pattern":
    case "format":
      return hint ? `must be ${hint}` : "is not in the expected format";
    default:
      return hint ? `must be ${hint}` : "is not valid";
  }
}

/** Checks several fields at once; answers the errors (empty when all are fine). */
export function validate(
  fields: ReadonlyArray<readonly [field: string, schema: TSchema, value: unknown]>,
): FieldError[] {
  const out: FieldError[] = [];
  for (const [field, schema, value] of fields) {
    const message = fieldError(schema, value);
    if (message) out.push({ field, message });
  }
  return out;
}
