import type { Json, VersionChange } from "./version-change.ts";

/** A JSON schema as the routes declare it (TypeBox) or the document holds it. */
interface SchemaNode {
  title?: string;
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  allOf?: SchemaNode[];
}

type Transform = (value: Json) => Json;

/**
 * Serving an older version of a value described by a schema: at every record whose schema is
 * titled as a record a change transforms (`resources`), its transforms, newest change first, after
 * its own fields' records. The walk is compiled once per schema and set of changes and visits only
 * where such a record can be: an answer of the current version costs nothing, and one version
 * behind costs the walk of the records that changed.
 *
 * One walk over the newest schema: a change that moves a record to another place in its parent
 * transforms the moved record itself.
 */
export function createRenderer() {
  const compiled = new WeakMap<object, Map<readonly VersionChange[], Transform | null>>();

  /** The transforms of `title`, newest change first; null when no change touches it. */
  function transformsOf(title: string | undefined, changes: readonly VersionChange[]): Transform[] | null {
    if (title === undefined) return null;
    const fns = changes.flatMap((c) => (c.resources?.[title] ? [c.resources[title]!] : []));
    return fns.length ? fns : null;
  }

  /** A transform for values of `schema`, or null when nothing under it changes. */
  function compile(
    schema: SchemaNode,
    changes: readonly VersionChange[],
    seen = new Set<object>(),
  ): Transform | null {
    if (seen.has(schema)) return null;
    seen.add(schema);
    const own = transformsOf(schema.title, changes);
    let inner: Transform | null = null;
    const alternatives = schema.anyOf ?? schema.oneOf;
    if (alternatives) {
      // A union (a nullable record, one of several kinds): each alternative that changes, tried
      // on values it could describe (objects for records, arrays for lists).
      // Object alternatives are told apart by their properties of fixed values (an event's
      // `type`, a kind's literal), so a record is transformed only by its own alternative.
      const all = alternatives.map((a) => ({
        kind: kindOf(a),
        fits: fitsOf(a),
        fn: compile(a, changes, seen),
      }));
      if (all.some((p) => p.fn !== null))
        inner = (value) => {
          const kind = Array.isArray(value)
            ? "array"
            : value !== null && typeof value === "object"
              ? "object"
              : "other";
          const part = all.find((p) => p.kind === kind && p.fits(value));
          return part?.fn ? part.fn(value) : value;
        };
    } else if (schema.allOf) {
      const parts = schema.allOf
        .map((a) => compile(a, changes, seen))
        .filter((f): f is Transform => f !== null);
      if (parts.length) inner = (value) => parts.reduce((v, f) => f(v), value);
    } else if (schema.items) {
      const item = compile(schema.items, changes, seen);
      if (item) inner = (value) => (Array.isArray(value) ? value.map(item) : value);
    } else if (schema.properties) {
      const fields = Object.entries(schema.properties)
        .map(([name, s]) => ({ name, fn: compile(s, changes, seen) }))
        .filter((f): f is { name: string; fn: Transform } => f.fn !== null);
      if (fields.length)
        inner = (value) => {
          if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
          const out = { ...value };
          for (const f of fields) if (f.name in out) out[f.name] = f.fn(out[f.name]);
          return out;
        };
    }
    seen.delete(schema);
    if (!own) return inner;
    return (value) => {
      if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
      let out = inner ? inner(value) : value;
      for (const fn of own) out = fn(out);
      return out;
    };
  }

  return {
    /** `value` as described by `schema`, served before `changes` (newest first); as it is when none applies. */
    render(schema: object, value: Json, changes: readonly VersionChange[]): Json {
      if (changes.length === 0) return value;
      let bySchema = compiled.get(schema);
      if (!bySchema) {
        bySchema = new Map();
        compiled.set(schema, bySchema);
      }
      let fn = bySchema.get(changes);
      if (fn === undefined) {
        fn = compile(schema as SchemaNode, changes);
        bySchema.set(changes, fn);
      }
      return fn ? fn(value) : value;
    },
  };
}
export type Renderer = ReturnType<typeof createRenderer>;

/** The fixed values a schema allows (`const`, a one-level `enum`, a union of consts); null: any. */
function fixedValues(schema: SchemaNode & { const?: unknown; enum?: unknown[] }): unknown[] | null {
  if ("const" in schema) return [schema.const];
  if (Array.isArray(schema.enum)) return schema.enum;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.every((a) => "const" in a))
    return alternatives.map((a) => (a as { const: unknown }).const);
  return null;
}

/** Whether a value can be this alternative: its properties of fixed values hold one of them. */
function fitsOf(schema: SchemaNode): (value: Json) => boolean {
  const fixed = Object.entries(schema.properties ?? {})
    .map(([name, s]) => ({ name, values: fixedValues(s) }))
    .filter((f): f is { name: string; values: unknown[] } => f.values !== null);
  if (fixed.length === 0) return () => true;
  return (value) => fixed.every((f) => f.values.includes(value?.[f.name]));
}

function kindOf(schema: SchemaNode): string {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "array" || schema.items) return "array";
  if (type === "object" || schema.properties || schema.title) return "object";
  return "other";
}

/** A request body sent at `version`, brought up to the newest shape: each change's transform, oldest first. */
export function upgradeRequest(
  operationId: string,
  body: Json,
  changesNewestFirst: readonly VersionChange[],
): Json {
  let out = body;
  for (let i = changesNewestFirst.length - 1; i >= 0; i--) {
    const fn = changesNewestFirst[i]!.requests?.[operationId];
    if (fn) out = fn(out);
  }
  return out;
}
