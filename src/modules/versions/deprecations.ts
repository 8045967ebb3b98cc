import type { TSchema } from "typebox";
import { dateOf } from "./api-versions.ts";

/**
 * A deprecated operation or request field (issue 29, part 3): when it was deprecated, when it will
 * stop working (never before), and what to use instead. A request that uses it answers
 * `Deprecation`, `Sunset` and `Link` as a request at a deprecated version does, and is counted
 * for the app's developer like one.
 */
export interface Deprecation {
  /** The day it was deprecated (`YYYY-MM-DD`). */
  at: string;
  /** The day it stops working (`YYYY-MM-DD`), at least 12 months after `at`. */
  sunset: string;
  /** What to use instead, for the document and the developer. */
  use: string;
}

/** What a request used that is deprecated: its version, its operation, or a field of its body. */
export type DeprecatedUsage = "version" | "operation" | `field:${string}`;

/** Checks a deprecation's dates once, where it is declared (the policy of API versions too). */
export function checkDeprecation(deprecation: Deprecation, what: string): Deprecation {
  const at = dateOf(deprecation.at);
  const sunset = dateOf(deprecation.sunset);
  if (!at || !sunset) throw new Error(`${what}: a deprecation's dates are days, YYYY-MM-DD`);
  const year = new Date(at);
  year.setUTCFullYear(year.getUTCFullYear() + 1);
  if (sunset < year)
    throw new Error(
      `${what}: a sunset is at least 12 months after the deprecation (docs/decisions.md, "API versions")`,
    );
  return deprecation;
}

/** The sentence the document adds to a deprecated operation's or field's description. */
export function deprecationNote(deprecation: Deprecation): string {
  return `**Deprecated** since ${deprecation.at}; stops working on ${deprecation.sunset}. ${deprecation.use}`;
}

/**
 * A request body field marked deprecated: `deprecated: true` in the document, the dates in
 * `x-deprecation`, and the note in its description. Only a body's top-level fields are watched.
 */
export function deprecatedField<T extends TSchema>(schema: T, deprecation: Deprecation): T {
  checkDeprecation(deprecation, "a deprecated field");
  const description = (schema as { description?: string }).description;
  return {
    ...schema,
    deprecated: true,
    "x-deprecation": deprecation,
    description: description
      ? `${description} ${deprecationNote(deprecation)}`
      : deprecationNote(deprecation),
  };
}

const fieldsOf = new WeakMap<object, ReadonlyArray<readonly [string, Deprecation]>>();

/** The deprecated top-level fields of a body schema, found once per schema. */
export function deprecatedFields(body: object): ReadonlyArray<readonly [string, Deprecation]> {
  let found = fieldsOf.get(body);
  if (!found) {
    const properties =
      (body as { properties?: Record<string, { "x-deprecation"?: Deprecation }> }).properties ?? {};
    found = Object.entries(properties).flatMap(([name, schema]) =>
      schema["x-deprecation"] ? [[name, schema["x-deprecation"]] as const] : [],
    );
    fieldsOf.set(body, found);
  }
  return found;
}
