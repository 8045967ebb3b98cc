/**
 * A `timestamptz` as PostgreSQL sends it in text with the ISO DateStyle (its default):
 * `2026-11-26 14:30:07.241+00`, `…+05:30`, `…-03`. Parsed with arithmetic on character codes
 * rather than node-postgres's regular expressions: two timestamps a row made date parsing about a
 * tenth of a bulk export's CPU (and the largest single item of a list's, docs/performance.md).
 * Anything else (BC dates, years before 100 or past 9999, `infinity`, an offset with seconds)
 * goes to `fallback`, the parser node-postgres would have used.
 */
export function parseTimestamptz(text: string, fallback: (text: string) => unknown): unknown {
  const n = text.length;
  // The shortest form: "YYYY-MM-DD HH:MM:SS+HH" (22 characters).
  if (n < 22 || n > 35 || text.charCodeAt(4) !== 45 || text.charCodeAt(10) !== 32) return fallback(text);
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  let at = 19;
  let ms = 0;
  if (text.charCodeAt(at) === 46) {
    // Fraction: milliseconds from its first three digits (a Date holds no more), as node-postgres.
    at++;
    let count = 0;
    for (let c = text.charCodeAt(at) - 48; c >= 0 && c <= 9; c = text.charCodeAt(at) - 48) {
      if (count < 3) ms = ms * 10 + c;
      count++;
      at++;
    }
    if (count === 0) return fallback(text);
    for (let k = count; k < 3; k++) ms *= 10;
  }
  const sign = text.charCodeAt(at);
  if (sign !== 43 && sign !== 45) return fallback(text);
  const offsetHours = digits(text, at + 1, 2);
  let offsetMinutes = 0;
  at += 3;
  if (at < n && text.charCodeAt(at) === 58) {
    offsetMinutes = digits(text, at + 1, 2);
    at += 3;
  }
  if (at !== n || year < 100) return fallback(text);
  const time = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // NaN when a field was not digits.
  if (Number.isNaN(time + offsetHours + offsetMinutes)) return fallback(text);
  const offset = (offsetHours * 60 + offsetMinutes) * 60_000;
  return new Date(sign === 43 ? time - offset : time + offset);
}

/** The decimal number of `length` digits at `at`; NaN when one is not a digit. */
function digits(text: string, at: number, length: number): number {
  let value = 0;
  for (let i = at; i < at + length; i++) {
    const c = text.charCodeAt(i) - 48;
    if (!(c >= 0 && c <= 9)) return Number.NaN;
    value = value * 10 + c;
  }
  return value;
}
