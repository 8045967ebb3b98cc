import { SUBSCRIPTION_FILTER_LIMITS as FILTER_LIMITS } from "../../../contracts/index.ts";

/**
 * Subscription filters (issue 21): a small expression over an event's `data`, in the spirit of
 * Shopify's webhook `filter` and its search syntax.
 *
 *   status:paid AND total:>100
 *   status:[paid,confirmed] OR (currency:EUR AND total:>=50)
 *   customer.email:"a b@example.com"      (a dotted path reaches nested objects)
 *
 * - `field:value` is equality; `field:>v`, `>=`, `<`, `<=` compare numbers (amounts are decimal
 *   strings and compare as numbers); `field:!=v` is inequality; `field:[a,b]` is "in".
 * - `AND` binds tighter than `OR`; parentheses group. Words are case-sensitive except the
 *   operators `AND` / `OR`, which must be upper case (so a value "and" stays a value).
 * - A value is a bare word (`[A-Za-z0-9_.@+-]`) or a double-quoted string (`\"` and `\\` escape).
 * - Comparing a field that is missing or not a number with `>` and the like is false, never an
 *   error: an event cannot make a delivery fail.
 *
 * Validated against the event's payload schema when the subscription is created: a field the
 * event does not carry is a 400 naming it (subscription-view.ts). Bounded by the contract's
 * SUBSCRIPTION_FILTER_LIMITS: 500 characters, 20 comparisons, paths of 4 steps.
 */

export type Comparison = "=" | "!=" | ">" | ">=" | "<" | "<=" | "in";

export type FilterNode =
  | { kind: "and" | "or"; items: FilterNode[] }
  | { kind: "compare"; path: string[]; op: Comparison; values: string[] };

export class FilterError extends Error {
  /** Where in the text the problem is (0-based), for the 400's details. */
  readonly at: number;
  constructor(message: string, at: number) {
    super(message);
    this.at = at;
  }
}

type Token =
  | { t: "word" | "string"; v: string; at: number }
  | { t: "(" | ")" | "[" | "]" | "," | ":" | "and" | "or"; at: number }
  | { t: "op"; v: ">" | ">=" | "<" | "<=" | "!="; at: number };

const WORD = /[A-Za-z0-9_.@+-]/;

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "\t") {
      i++;
      continue;
    }
    if ("()[],:".includes(c)) {
      out.push({ t: c as "(" | ")" | "[" | "]" | "," | ":", at: i });
      i++;
      continue;
    }
    if (c === ">" || c === "<" || c === "!") {
      const two = text.slice(i, i + 2);
      if (two === ">=" || two === "<=" || two === "!=") {
        out.push({ t: "op", v: two, at: i });
        i += 2;
      } else if (c !== "!") {
        out.push({ t: "op", v: c as ">" | "<", at: i });
        i++;
      } else throw new FilterError("`!` must be followed by `=`", i);
      continue;
    }
    if (c === '"') {
      let v = "";
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === "\\" && j + 1 < text.length) j++;
        v += text[j];
      }
      if (j >= text.length) throw new FilterError("a quoted value is not closed", i);
      out.push({ t: "string", v, at: i });
      i = j + 1;
      continue;
    }
    if (WORD.test(c)) {
      let j = i;
      while (j < text.length && WORD.test(text[j]!)) j++;
      const v = text.slice(i, j);
      if (v === "AND") out.push({ t: "and", at: i });
      else if (v === "OR") out.push({ t: "or", at: i });
      else out.push({ t: "word", v, at: i });
      i = j;
      continue;
    }
    throw new FilterError(`unexpected character ${JSON.stringify(c)}`, i);
  }
  return out;
}

/** Parses a filter; throws FilterError naming the problem and where. */
export function parseFilter(text: string): FilterNode {
  if (text.length > FILTER_LIMITS.length)
    throw new FilterError(`longer than ${FILTER_LIMITS.length} characters`, FILTER_LIMITS.length);
  const tokens = tokenize(text);
  let pos = 0;
  let comparisons = 0;
  const peek = () => tokens[pos];
  const end = () => text.length;
  const expect = (t: Token["t"], what: string) => {
    const token = tokens[pos];
    if (!token || token.t !== t) throw new FilterError(`expected ${what}`, token?.at ?? end());
    pos++;
    return token;
  };
  const value = (): string => {
    const token = tokens[pos];
    if (token && (token.t === "word" || token.t === "string")) {
      pos++;
      return token.v;
    }
    throw new FilterError("expected a value", token?.at ?? end());
  };

  const comparison = (): FilterNode => {
    const field = expect("word", "a field name") as { v: string; at: number };
    const path = field.v.split(".");
    if (path.some((p) => !p) || path.length > FILTER_LIMITS.pathDepth)
      throw new FilterError(`"${field.v}" is not a field path`, field.at);
    expect(":", "`:` after the field name");
    if (++comparisons > FILTER_LIMITS.comparisons)
      throw new FilterError(`more than ${FILTER_LIMITS.comparisons} comparisons`, field.at);
    const next = peek();
    if (next?.t === "[") {
      pos++;
      const values = [value()];
      while (peek()?.t === ",") {
        pos++;
        values.push(value());
      }
      expect("]", "`]` closing the list");
      return { kind: "compare", path, op: "in", values };
    }
    if (next?.t === "op") {
      pos++;
      const v = value();
      if (next.v !== "!=" && !Number.isFinite(Number(v)))
        throw new FilterError(`${next.v} compares numbers; "${v}" is not one`, next.at);
      return { kind: "compare", path, op: next.v, values: [v] };
    }
    return { kind: "compare", path, op: "=", values: [value()] };
  };

  const factor = (): FilterNode => {
    if (peek()?.t === "(") {
      pos++;
      const inner = or();
      expect(")", "`)`");
      return inner;
    }
    return comparison();
  };
  const and = (): FilterNode => {
    const items = [factor()];
    while (peek()?.t === "and") {
      pos++;
      items.push(factor());
    }
    return items.length === 1 ? items[0]! : { kind: "and", items };
  };
  const or = (): FilterNode => {
    const items = [and()];
    while (peek()?.t === "or") {
      pos++;
      items.push(and());
    }
    return items.length === 1 ? items[0]! : { kind: "or", items };
  };

  if (!tokens.length) throw new FilterError("the filter is empty", 0);
  const tree = or();
  const rest = peek();
  if (rest) throw new FilterError("expected AND, OR or the end", rest.at);
  return tree;
}

/** The field paths a filter reads (to check them against the event's payload schema). */
export function filterPaths(node: FilterNode): string[][] {
  return node.kind === "compare" ? [node.path] : node.items.flatMap(filterPaths);
}

function at(data: unknown, path: string[]): unknown {
  let value = data;
  for (const step of path) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

/** The text a value is compared as: strings as they are, numbers and booleans written out, null as "null". */
function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null) return "null";
  return undefined;
}

/** Whether `data` (an event's payload) matches the filter. */
export function matchesFilter(node: FilterNode, data: unknown): boolean {
  switch (node.kind) {
    case "and":
      return node.items.every((n) => matchesFilter(n, data));
    case "or":
      return node.items.some((n) => matchesFilter(n, data));
    case "compare": {
      const text = asText(at(data, node.path));
      if (node.op === "=") return text === node.values[0];
      if (node.op === "!=") return text !== node.values[0];
      if (node.op === "in") return text !== undefined && node.values.includes(text);
      const n = typeof text === "string" && text.trim() !== "" ? Number(text) : Number.NaN;
      const v = Number(node.values[0]);
      if (!Number.isFinite(n)) return false;
      return node.op === ">" ? n > v : node.op === ">=" ? n >= v : node.op === "<" ? n < v : n <= v;
    }
  }
}

/** `data` with only `fields` (top-level names) and always `id`, in the payload's own key order. */
export function projectFields(data: unknown, fields: readonly string[]): unknown {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return data;
  const keep = new Set(["id", ...fields]);
  return Object.fromEntries(Object.entries(data).filter(([k]) => keep.has(k)));
}
