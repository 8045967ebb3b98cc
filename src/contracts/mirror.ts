/**
 * `{ a: "a", b: "b" }` from a list of names: the value side of an enumeration, so code writes
 * `OrderStatus.paid` (checked by the compiler, found by "go to definition") instead of restating
 * the string.
 */
export function mirror<const K extends string>(names: readonly K[]): { readonly [P in K]: P } {
  return Object.freeze(Object.fromEntries(names.map((n) => [n, n]))) as { readonly [P in K]: P };
}

/** The keys of a declaration object, typed. */
export function keysOf<T extends object>(o: T): Array<keyof T & string> {
  return Object.keys(o) as Array<keyof T & string>;
}
