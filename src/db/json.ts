/**
 * A value as the text of a `jsonb` parameter. JSON.stringify writes a lone UTF-16 surrogate (half
 * of an emoji, which a client may send in any string) as `\ud800`, and PostgreSQL refuses that
 * escape in jsonb (22P02: the request would fail with a 500). Text columns never see one: the
 * drivers encode strings as UTF-8, where a lone surrogate becomes U+FFFD. JSON columns get the
 * same here, so a string reads back the same from either kind of column.
 */
export function jsonb(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "string" ? v.toWellFormed() : v));
}
