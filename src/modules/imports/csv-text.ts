import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { AppError } from "../../lib/errors.ts";

/** The bounds of an uploaded CSV file: each is checked before anything is kept. */
export const CSV_LIMITS = {
  /** Characters of the whole file (about its bytes for the Latin text most catalogues are). */
  chars: 5_000_000,
  /** Data rows, the header aside. */
  rows: 20_000,
  columns: 60,
  /** Characters of one cell (a product's description holds at most 10,000). */
  cell: 10_000,
} as const;

/** A parsed file: its header (as written, trimmed) and its data rows, each as long as the header. */
export interface CsvTable {
  header: string[];
  rows: string[][];
}

const tooLarge = (message: string) =>
  new AppError("VALIDATION_FAILED", { details: [{ field: "csv", message }] });

/**
 * Parses an uploaded CSV file (RFC 4180, with csv-parse): a byte-order mark is dropped, quoted
 * cells may hold commas, quotes and line breaks, blank lines are skipped. A file past a bound is
 * refused whole (400), naming the bound; a row with fewer or more cells than the header is kept
 * and reported by the caller as that row's error, so one bad line does not hide the others.
 */
export function parseCsv(text: string): CsvTable {
  if (text.length > CSV_LIMITS.chars)
    throw tooLarge(`is longer than ${CSV_LIMITS.chars.toLocaleString("en")} characters: split the file`);
  let records: string[][];
  try {
    records = parse(text, {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      // A cell (or a record) past this is a broken quote or a file that is not CSV.
      max_record_size: CSV_LIMITS.cell * 4,
      // One more than the bound: enough to know the file is past it without reading all of it.
      to: CSV_LIMITS.rows + 2,
    }) as string[][];
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new AppError("VALIDATION_FAILED", {
      details: [
        {
          field: "csv",
          message: `is not readable CSV${line ? ` near line ${line}` : ""}: check the quotes (a quote inside a quoted cell is written twice)`,
        },
      ],
    });
  }
  const [rawHeader, ...rows] = records;
  if (!rawHeader || rawHeader.every((h) => h.trim() === ""))
    throw tooLarge("has no header row: the first line names the columns");
  if (rawHeader.length > CSV_LIMITS.columns)
    throw tooLarge(`has ${rawHeader.length} columns; at most ${CSV_LIMITS.columns}`);
  if (rows.length > CSV_LIMITS.rows)
    throw tooLarge(`has more than ${CSV_LIMITS.rows.toLocaleString("en")} rows: split the file`);
  if (rows.length === 0) throw tooLarge("has a header but no rows");
  return { header: rawHeader.map((h) => h.trim()), rows };
}

/** What a spreadsheet would run as a formula (OWASP, CSV injection): = + - @, tab and carriage return. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A cell as it is safe to open in a spreadsheet: text that would start a formula gets a leading
 * apostrophe (OWASP's advice), which spreadsheets show as text. Numbers are written as they are.
 */
export function safeCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value !== "string") return String(value);
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/**
 * Reading back what safeCell wrote: an apostrophe before a formula's first character is dropped,
 * so a file exported here imports with the text it had.
 */
export function unguardCell(value: string): string {
  return value.length > 1 && value[0] === "'" && FORMULA_START.test(value.slice(1)) ? value.slice(1) : value;
}

/** CSV text of `rows` (with csv-stringify), every cell through safeCell; CRLF line ends, as RFC 4180. */
export function writeCsv(
  rows: ReadonlyArray<ReadonlyArray<string | number | boolean | null | undefined>>,
): string {
  return stringify(
    rows.map((row) => row.map(safeCell)),
    { record_delimiter: "windows" },
  );
}
