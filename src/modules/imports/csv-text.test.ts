import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse } from "csv-parse/sync";
import { AppError } from "../../lib/errors.ts";
import { CSV_LIMITS, parseCsv, safeCell, unguardCell, writeCsv } from "./csv-text.ts";

const detail = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError);
    return (error.details as Array<{ message: string }>)[0]!.message;
  }
  assert.fail("expected a refusal");
};

describe("csv-text", () => {
  it("guards every cell a spreadsheet would run as a formula, and reads it back as written", () => {
    for (const danger of ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"]) {
      assert.equal(safeCell(danger), `'${danger}`);
      assert.equal(unguardCell(safeCell(danger)), danger);
    }
    for (const plain of ["Linen shirt", "19.99", "'quoted", "a=b"]) assert.equal(safeCell(plain), plain);
    assert.equal(unguardCell("'plain"), "'plain", "an apostrophe before ordinary text stays");
    assert.equal(safeCell(-5), "-5", "numbers are written as numbers");
    assert.equal(safeCell(null), "");
    const text = writeCsv([
      ["Title", "Note"],
      ['Shirt, "linen"', '=HYPERLINK("http://x")'],
    ]);
    assert.ok(text.endsWith("\r\n"));
    assert.deepEqual(parse(text), [
      ["Title", "Note"],
      ['Shirt, "linen"', '\'=HYPERLINK("http://x")'],
    ]);
  });

  it("parses quoted cells, a byte-order mark and blank lines; refuses what is past a bound", () => {
    const table = parseCsv('\uFEFFHandle, Title \n\na,"multi\nline, with ""quotes"""\n');
    assert.deepEqual(table.header, ["Handle", "Title"]);
    assert.deepEqual(table.rows, [["a", 'multi\nline, with "quotes"']]);
    assert.match(
      detail(() => parseCsv("")),
      /no header/,
    );
    assert.match(
      detail(() => parseCsv("A,B\n")),
      /no rows/,
    );
    assert.match(
      detail(() => parseCsv('A\n"open')),
      /not readable CSV/,
    );
    assert.match(
      detail(() => parseCsv("x".repeat(CSV_LIMITS.chars + 1))),
      /longer than/,
    );
    assert.match(
      detail(() => parseCsv(`${"c,".repeat(CSV_LIMITS.columns)}c\n1`)),
      /columns/,
    );
    assert.match(
      detail(() => parseCsv(`A\n${"1\n".repeat(CSV_LIMITS.rows + 1)}`)),
      /more than 20,000 rows/,
    );
    assert.equal(parseCsv(`A\n${"1\n".repeat(CSV_LIMITS.rows)}`).rows.length, CSV_LIMITS.rows);
  });
});
