import Type from "typebox";

/**
 * A subscription's `filter` and `fields` (issue 21, part 2; Shopify's `filter` and
 * `includeFields`): which events of its type it receives, and which fields of their `data`. The
 * bounds are here, once: the route schemas, the parser (modules/webhooks/filters) and the
 * documents use them.
 */
export const SUBSCRIPTION_FILTER_LIMITS = {
  /** Characters of a filter. */
  length: 500,
  /** Comparisons (`field:value`) in one filter. */
  comparisons: 20,
  /** Steps of a dotted field path in a filter (`shippingAddress.country` is 2). */
  pathDepth: 4,
  /** Names in `fields`. */
  fields: 30,
  /** Characters of one name in `fields`. */
  fieldNameLength: 64,
} as const;

const L = SUBSCRIPTION_FILTER_LIMITS;

/** The grammar in words, said once: the operation's schema, its errors and docs/app-developers.md agree with it. */
export const FILTER_GRAMMAR =
  "`field:value` is equality; `field:!=value` inequality; `field:>n`, `>=`, `<`, `<=` compare numbers (amounts are decimal strings and compare as numbers); `field:[a,b,c]` is one of. Join with `AND` and `OR` (upper case; `AND` binds tighter), group with parentheses. A value is a word of letters, digits and `_ . @ + -`, or a double-quoted string (`\\\"` and `\\\\` escape); `null` matches a null field. A dotted path reaches into objects (`shippingAddress.country:DE`, `metadata.erpId:X1`), never into lists (`tags`, `lineItems`). Every field must be one the event's `data` carries, and a value of a field with a fixed set of values (`status`) one of them: otherwise 400 naming it. A comparison with a field that is missing or not a number is false, never an error.";

export const SubscriptionFilter = Type.String({
  minLength: 1,
  maxLength: L.length,
  description: `Deliver only the events whose \`data\` matches this expression; the others make no delivery at all (nothing in the delivery log, nothing counted as a failure; the event feed still has them). ${FILTER_GRAMMAR} At most ${L.length} characters and ${L.comparisons} comparisons, paths of ${L.pathDepth} steps. Not applied to test events (\`POST /webhooks/test\`), which are always sent.`,
  examples: ["status:paid AND total:>100"],
  "x-hint": "an expression such as status:paid AND total:>100",
});

export const SubscriptionFieldName = Type.String({
  minLength: 1,
  maxLength: L.fieldNameLength,
  pattern: "^[A-Za-z_][A-Za-z0-9_.]*$",
  examples: ["total"],
  "x-hint": "the name of a field of the event's data, such as total",
});

export const SubscriptionFields = Type.Array(SubscriptionFieldName, {
  minItems: 1,
  maxItems: L.fields,
  uniqueItems: true,
  description: `Send only these fields of \`data\` (\`id\` always, when the event's data has one), in the payload's own order. Top-level names only: \`shippingAddress\` sends the whole address, \`shippingAddress.country\` is a 400. Each must be a field the event's \`data\` carries. The signatures cover the body as sent. Applied to test events too. At most ${L.fields} names.`,
  examples: [["status", "total", "currency"]],
});
