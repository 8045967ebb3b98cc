import { type Compilable, CompiledQuery } from "kysely";

/**
 * Hot queries built and compiled by Kysely once per shape, then executed as a `CompiledQuery` with
 * each call's values (issue 22). Building a query (immutable, frozen operation nodes) and compiling
 * it to text cost the Admin list about as much CPU as parsing its 51 rows' dates did; for a query
 * whose text depends only on which clauses it has, that work is the same on every request.
 *
 * `build(v)` builds the query from `v`'s values; the first call of a shape passes placeholders
 * (`Slot`s) instead, and the compiled parameters say which value goes in which position, so the
 * order is Kysely's own and never restated here. `shape` must name every choice `build` makes
 * about the query's clauses (which filters, the sort column, the direction); a value's content
 * must never change the text. A built query with a parameter that is not one of `v`'s values
 * (a constant, or a value computed inside `build`) is never cached: that shape is built and
 * compiled on every call, as before.
 */
export function queryShapes(maxShapes = 256) {
  const shapes = new Map<string, { sql: string; names: string[] } | null>();
  return async function run<V extends Record<string, unknown>, R>(
    db: { executeQuery<T>(query: CompiledQuery<T>): Promise<{ rows: T[] }> },
    shape: string,
    values: V,
    build: (v: V) => Compilable<R>,
  ): Promise<R[]> {
    let compiled = shapes.get(shape);
    if (compiled === undefined) {
      compiled = compileWithPlaceholders(() => build(placeholders as V));
      // Bounded: a caller that put a value in `shape` would otherwise grow it without end.
      if (shapes.size < maxShapes) shapes.set(shape, compiled);
    }
    const query = compiled
      ? (CompiledQuery.raw(
          compiled.sql,
          compiled.names.map((name) => values[name]),
        ) as CompiledQuery<R>)
      : build(values).compile();
    return (await db.executeQuery(query)).rows;
  };
}

/** A value's place in a query built once per shape: the name of the value it stands for. */
class Slot {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

/** Any property read gives the placeholder of that name. */
const placeholders = new Proxy({} as Record<string, Slot>, {
  get: (_target, name) => new Slot(String(name)),
});

/** The text and the value names of a query built from placeholders; null when it cannot be reused. */
function compileWithPlaceholders(build: () => Compilable<unknown>): { sql: string; names: string[] } | null {
  let query: CompiledQuery;
  try {
    query = build().compile();
  } catch {
    // `build` did more with a value than pass it to Kysely: built with the real values each time.
    return null;
  }
  const names: string[] = [];
  for (const parameter of query.parameters) {
    if (!(parameter instanceof Slot)) return null;
    names.push(parameter.name);
  }
  return { sql: query.sql, names };
}
