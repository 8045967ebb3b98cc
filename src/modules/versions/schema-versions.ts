import type { Json, VersionChange } from "./version-change.ts";

/**
 * A schema as an older version has it: at every subschema titled as a record a change rewrites
 * (`schemas`, by title), that change's rewrite, newest change first, after its own fields'. Used
 * for the per-version OpenAPI document and for serialising an older version's answers with that
 * version's schema. Compiled once per schema and set of changes.
 */
export function createSchemaVersions() {
  const cache = new WeakMap<object, Map<readonly VersionChange[], Json>>();

  function rewrite(node: Json, changes: readonly VersionChange[]): Json {
    if (node === null || typeof node !== "object") return node;
    // A node nothing rewrites is returned as it is (so is a schema no change touches: the
    // route's own serialiser, and its shared `$ref`s, serve it).
    if (Array.isArray(node)) {
      const items = node.map((n) => rewrite(n, changes));
      return items.some((item, i) => item !== node[i]) ? items : node;
    }
    let out: Json = node;
    for (const [k, v] of Object.entries(node)) {
      const next = rewrite(v, changes);
      if (next === v) continue;
      if (out === node) out = { ...node };
      out[k] = next;
    }
    const title = typeof node.title === "string" ? node.title : undefined;
    if (title === undefined) return out;
    let result = out;
    for (const c of changes) {
      const fn = c.schemas?.[title];
      if (fn) result = fn(result);
    }
    return result;
  }

  return {
    /** `schema` at the version before `changes` (newest first); the schema itself when none applies. */
    at(schema: object, changes: readonly VersionChange[]): Json {
      if (changes.length === 0 || !changes.some((c) => c.schemas)) return schema;
      let byChanges = cache.get(schema);
      if (!byChanges) {
        byChanges = new Map();
        cache.set(schema, byChanges);
      }
      let out = byChanges.get(changes);
      if (out === undefined) {
        out = rewrite(schema, changes);
        byChanges.set(changes, out);
      }
      return out;
    },
    /** A rewrite of one named component schema (the document's `components.schemas`). */
    component(name: string, schema: Json, changes: readonly VersionChange[]): Json {
      let result = rewrite(schema, changes);
      // The component's own name (its title may be absent once hoisted).
      if (schema?.title !== name)
        for (const c of changes) if (c.schemas?.[name]) result = c.schemas[name]!(result);
      return result;
    },
  };
}
export type SchemaVersions = ReturnType<typeof createSchemaVersions>;
