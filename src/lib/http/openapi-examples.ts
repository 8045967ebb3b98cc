/**
 * An example value for a JSON schema of the OpenAPI document, built from what the schema says:
 * its own `examples`, `const`, `default` or first `enum` value; formats get a well-formed value;
 * objects get every property (required or not), arrays one item. The contract's fields carry
 * `examples` (`src/contracts/fields.ts`, ids from `exampleId`), so most leaves are real values.
 * Tests check every example against its schema.
 */

type Json = Record<string, any>;

const FORMATS: Record<string, string> = {
  "date-time": "2026-11-22T10:00:00.000Z",
  date: "2026-11-22",
  email: "merchant@example.com",
  uri: "https://app.example.com/",
  url: "https://app.example.com/",
};

function resolve(schema: Json, doc: Json): Json {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
  const target = name ? doc.components?.schemas?.[name] : undefined;
  if (!target) throw new Error(`unresolvable $ref ${ref}`);
  const { $ref: _ref, ...rest } = schema;
  return { ...target, ...rest };
}

export function exampleOf(input: unknown, doc: Json, depth = 0): unknown {
  if (!input || typeof input !== "object" || depth > 20) return null;
  const schema = resolve(input as Json, doc);
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const alternatives = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (alternatives?.length) {
    // The first alternative that is not null: an example shows the value, not its absence.
    const chosen = alternatives.find((a) => resolve(a, doc).type !== "null") ?? alternatives[0];
    return exampleOf(chosen, doc, depth + 1);
  }
  if (Array.isArray(schema.allOf))
    return Object.assign({}, ...schema.allOf.map((s: Json) => exampleOf(s, doc, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  switch (type) {
    case "object": {
      const out: Json = {};
      for (const [key, value] of Object.entries((schema.properties ?? {}) as Json))
        out[key] = exampleOf(value, doc, depth + 1);
      return out;
    }
    case "array": {
      const item = exampleOf(schema.items, doc, depth + 1);
      return item === null && !schema.items
        ? []
        : Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => item);
    }
    case "string": {
      if (schema.format && FORMATS[schema.format]) return FORMATS[schema.format];
      const length = Math.max(schema.minLength ?? 0, 6);
      return "string".padEnd(Math.min(length, schema.maxLength ?? length), "x");
    }
    case "integer":
      return schema.minimum ?? 1;
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return null;
  }
}
