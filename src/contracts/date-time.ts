/**
 * The instants the API accepts: RFC 3339 date-times whose UTC instant lies in years 1 to 9999.
 *
 * Both databases store far more (PostgreSQL's timestamptz spans 4713 BC to 294276 AD), but not
 * everything outside that range survives the way back: the embedded database refuses a year-0
 * date JavaScript sends, and node-postgres reads a year above 9999 back as an invalid Date, so a
 * row holding one could no longer be answered. Years 1-9999 are what both databases, JavaScript
 * and the ISO strings the API answers with all agree on. The bound applies to the instant once
 * normalised to UTC: `9999-12-31T23:59:59-23:59` is in year 10000.
 *
 * One parser for the validator's `date-time` format (lib/http/validation.ts), the services that
 * turn the text into a Date and the cursors that carry one, so what passes validation is exactly
 * what the code can use.
 */

export const EARLIEST_INSTANT = "0001-01-01T00:00:00.000Z";
export const LATEST_INSTANT = "9999-12-31T23:59:59.999Z";
export const EARLIEST_INSTANT_MS = Date.parse(EARLIEST_INSTANT);
export const LATEST_INSTANT_MS = Date.parse(LATEST_INSTANT);

/** Longest accepted text: a date-time with nanoseconds and an offset is 35 characters. */
export const DATE_TIME_MAX_LENGTH = 40;

// RFC 3339 section 5.6: `T` (or `t`, or a space, which its note allows), seconds, an optional
// fraction, and `Z` or a `±hh:mm` offset (the colon is required: `+0100` is ISO 8601 basic form).
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,30}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

const isLeapYear = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether `ms` (milliseconds since the epoch) is an instant the API accepts and stores. */
export function isStorableInstant(ms: number): boolean {
  return Number.isInteger(ms) && ms >= EARLIEST_INSTANT_MS && ms <= LATEST_INSTANT_MS;
}

/**
 * The instant an RFC 3339 date-time names, to the millisecond (further digits are dropped, as the
 * databases keep milliseconds); null when the text is not one or lies outside years 1-9999 in
 * UTC. A leap second (`:60`) is refused: a JavaScript Date cannot hold it.
 */
export function parseDateTime(text: string): Date | null {
  if (text.length > DATE_TIME_MAX_LENGTH) return null;
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1) return null;
  if (day > (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const offsetHours = m[9] === undefined ? 0 : Number(m[9]);
  const offsetMinutes = m[10] === undefined ? 0 : Number(m[10]);
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const millis = Number((m[7] ?? "").padEnd(3, "0").slice(0, 3));
  // Date.UTC reads years 0-99 as 1900-1999; setUTCFullYear takes the year as written.
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, millis);
  const sign = m[8] === "-" ? -1 : 1;
  const ms = local.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
  return isStorableInstant(ms) ? new Date(ms) : null;
}

/** The validator's `date-time` format. */
export function isDateTime(text: string): boolean {
  return parseDateTime(text) !== null;
}
