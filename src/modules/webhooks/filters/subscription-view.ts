import type { TSchema } from "typebox";
import { EVENT_BY_NAME, EVENT_PAYLOADS, type EventName } from "../../../contracts/index.ts";
import { AppError } from "../../../lib/errors.ts";
import { FilterError, type FilterNode, matchesFilter, parseFilter } from "./filter-expression.ts";

/**
 * What a subscription takes of its event (issue 21, part 2): `filter` decides whether an event
 * makes a delivery at all, `fields` which fields of `data` its body carries. Checked against the
 * event's payload schema (contracts/resources.ts EVENT_PAYLOADS) when the subscription is made;
 * applied by the delivery engine where deliveries are fanned out (dispatch, uninstall) and where
 * their body is built (webhookBody), so every kind of delivery gets the same treatment.
 */
export interface SubscriptionView {
  filter: string | null;
  fields: readonly string[] | null;
}

/** A JSON schema node as TypeBox builds it (plain JSON Schema). */
type Node = {
  type?: string | string[];
  properties?: Record<string, Node>;
  additionalProperties?: boolean | Node;
  items?: Node;
  anyOf?: Node[];
  oneOf?: Node[];
  enum?: unknown[];
  const?: unknown;
};

const SCALAR_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);

/** The alternatives of a node, unions flattened. */
function alternatives(node: Node): Node[] {
  const union = node.anyOf ?? node.oneOf;
  return union ? union.flatMap(alternatives) : [node];
}

function typesOf(node: Node): string[] {
  if (node.const !== undefined) return [node.const === null ? "null" : typeof node.const];
  return node.type === undefined ? [] : Array.isArray(node.type) ? node.type : [node.type];
}

/** The schema of `step` inside `node`'s object alternatives, or why there is none. */
function child(node: Node, step: string): Node | "list" | undefined {
  const alts = alternatives(node);
  for (const alt of alts) {
    const prop = alt.properties?.[step];
    if (prop) return prop;
    if (typeof alt.additionalProperties === "object") return alt.additionalProperties;
  }
  return alts.some((a) => typesOf(a).includes("array")) ? "list" : undefined;
}

/** The names an object node has, for the 400's hint. */
function namesOf(node: Node): string[] {
  return alternatives(node).flatMap((a) => Object.keys(a.properties ?? {}));
}

/**
 * The values a leaf may be compared with, when it has a fixed set (an enumeration, a constant,
 * null; `null` alone for an object that may be null): undefined when any text goes (a string or a
 * number without an enumeration).
 */
function fixedValues(leaf: Node): string[] | undefined {
  const out: string[] = [];
  for (const alt of alternatives(leaf)) {
    if (alt.enum) out.push(...alt.enum.map(String));
    else if (alt.const !== undefined) out.push(String(alt.const));
    else {
      const types = typesOf(alt);
      if (types.length === 1 && types[0] === "null") out.push("null");
      // An object or a list never equals a value: only its null alternative can match.
      else if (types.length === 0 || types.some((t) => t !== "object" && t !== "array")) return undefined;
    }
  }
  return out;
}

function invalid(field: string, message: string, summary: string): AppError {
  return new AppError("VALIDATION_FAILED", { message: summary, details: [{ field, message }] });
}

function list(names: readonly string[], max = 20): string {
  return names.length <= max ? names.join(", ") : `${names.slice(0, max).join(", ")}, …`;
}

/** Refuses a path the data of `eventName` does not carry, or one that leads into a list. */
function checkPath(root: Node, path: readonly string[], eventName: EventName): Node {
  let node = root;
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!;
    const here = path.slice(0, i).join(".");
    const next = child(node, step);
    if (next === "list")
      throw invalid(
        "filter",
        `"${here}" is a list: a filter compares single values and cannot look inside lists`,
        `The filter names "${path.join(".")}", inside the list "${here}".`,
      );
    if (next === undefined) {
      const where = here ? `"${here}" has` : `the data of ${eventName} has`;
      throw invalid(
        "filter",
        `"${path.slice(0, i + 1).join(".")}" is not a field of ${eventName}'s data (${where}: ${list(namesOf(node))})`,
        `The filter names "${path.join(".")}", which ${eventName} does not carry.`,
      );
    }
    node = next;
  }
  return node;
}

/** A filter node's comparisons, each with the values it compares. */
function comparisons(node: FilterNode): Array<Extract<FilterNode, { kind: "compare" }>> {
  return node.kind === "compare" ? [node] : node.items.flatMap(comparisons);
}

/**
 * Checks a subscription's `filter` and `fields` for `eventName`: the filter parses, every field it
 * names is one the event's data carries (nested through objects, never into lists) and ends at a
 * value that can be compared, a value of a field with a fixed set of values is one of them; every
 * name of `fields` is a top-level field of the data. Throws a 400 VALIDATION_FAILED naming the
 * problem (and, for a filter that does not parse, where). Answers what to store.
 */
export function checkSubscriptionView(
  eventName: EventName,
  input: { filter?: string | undefined; fields?: readonly string[] | undefined },
  /** The event's data as the subscription's API version has it (default: the newest). */
  payload: object = EVENT_PAYLOADS[EVENT_BY_NAME[eventName].data],
): SubscriptionView {
  const root = payload as TSchema as Node;
  let filter: string | null = null;
  if (input.filter !== undefined) {
    let tree: FilterNode;
    try {
      tree = parseFilter(input.filter);
    } catch (error) {
      if (!(error instanceof FilterError)) throw error;
      throw invalid(
        "filter",
        `${error.message} (at character ${error.at + 1})`,
        `The filter cannot be read at character ${error.at + 1}: ${error.message}.`,
      );
    }
    for (const c of comparisons(tree)) {
      const leaf = checkPath(root, c.path, eventName);
      const name = c.path.join(".");
      const types = alternatives(leaf).flatMap(typesOf);
      const scalar = types.some((t) => SCALAR_TYPES.has(t)) || alternatives(leaf).some((a) => a.enum);
      if (!scalar)
        throw invalid(
          "filter",
          `"${name}" is ${types.includes("array") ? "a list" : "an object"}: compare one of its fields, or a single value`,
          `The filter compares "${name}", which is not a single value.`,
        );
      const fixed = fixedValues(leaf);
      if (c.op === ">" || c.op === ">=" || c.op === "<" || c.op === "<=") {
        if (fixed)
          throw invalid(
            "filter",
            `"${name}" has a fixed set of values (${list(fixed)}): ${c.op} compares numbers`,
            `The filter compares "${name}" as a number.`,
          );
        continue;
      }
      const wrong = fixed ? c.values.find((v) => !fixed.includes(v)) : undefined;
      if (fixed && wrong !== undefined)
        throw invalid(
          "filter",
          `"${wrong}" is not a value of "${name}" (${fixed.length <= 20 ? `one of ${list(fixed)}` : `one of its ${fixed.length} values`})`,
          `The filter compares "${name}" with "${wrong}", which it never holds.`,
        );
    }
    filter = input.filter;
  }
  let fields: string[] | null = null;
  if (input.fields !== undefined) {
    const top = namesOf(root);
    for (const [i, name] of input.fields.entries()) {
      if (name.includes("."))
        throw invalid(
          `fields.${i}`,
          `"${name}" is nested: fields name top-level fields of data (ask for "${name.split(".")[0]}" to receive all of it)`,
          `fields names "${name}", a nested field.`,
        );
      if (!top.includes(name))
        throw invalid(
          `fields.${i}`,
          `"${name}" is not a field of ${eventName}'s data (${list(top)})`,
          `fields names "${name}", which ${eventName} does not carry.`,
        );
    }
    fields = [...input.fields];
  }
  return { filter, fields };
}

/**
 * Whether a subscription receives an event whose data (as its app sees it) is `data`, with the
 * parsed filters kept (a filter is parsed once per text, not per event; bounded, cleared when
 * full). A stored filter that no longer parses (the grammar narrowed after it was accepted) lets
 * every event through: a filter must never lose an event silently. Never throws.
 */
export function createFilterCache(size = 10_000) {
  const parsed = new Map<string, FilterNode | null>();
  function tree(text: string): FilterNode | null {
    let node = parsed.get(text);
    if (node === undefined) {
      if (parsed.size >= size) parsed.clear();
      try {
        node = parseFilter(text);
      } catch {
        node = null;
      }
      parsed.set(text, node);
    }
    return node;
  }
  return {
    receives(filter: string | null, data: unknown): boolean {
      if (filter === null) return true;
      const node = tree(filter);
      return node === null || matchesFilter(node, data);
    },
  };
}
export type FilterCache = ReturnType<typeof createFilterCache>;
