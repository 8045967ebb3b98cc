import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EARLIEST_INSTANT_MS, isDateTime, LATEST_INSTANT_MS, parseDateTime } from "./date-time.ts";

const ms = (text: string) => parseDateTime(text)?.getTime() ?? null;

describe("date-times the API accepts", () => {
  it("reads RFC 3339 date-times to the millisecond, offsets applied", () => {
    assert.equal(ms("2026-11-22T10:00:00Z"), Date.UTC(2026, 10, 22, 10));
    assert.equal(ms("2026-11-22T10:00:00.123456789Z"), Date.UTC(2026, 10, 22, 10, 0, 0, 123));
    assert.equal(ms("2026-11-22T10:00:00.5Z"), Date.UTC(2026, 10, 22, 10, 0, 0, 500));
    assert.equal(ms("2026-11-22T12:30:00+02:30"), Date.UTC(2026, 10, 22, 10));
    assert.equal(ms("2026-11-22T00:00:00-10:00"), Date.UTC(2026, 10, 22, 10));
    // RFC 3339 allows a lower-case t and z, and a space for the T.
    assert.equal(ms("2026-11-22t10:00:00z"), Date.UTC(2026, 10, 22, 10));
    assert.equal(ms("2026-11-22 10:00:00Z"), Date.UTC(2026, 10, 22, 10));
    assert.equal(ms("2024-02-29T00:00:00Z"), Date.UTC(2024, 1, 29));
  });

  it("accepts exactly the instants of years 1 to 9999 in UTC", () => {
    assert.equal(ms("0001-01-01T00:00:00Z"), EARLIEST_INSTANT_MS);
    assert.equal(ms("9999-12-31T23:59:59.999Z"), LATEST_INSTANT_MS);
    assert.equal(ms("0001-01-01T00:59:00+00:59"), EARLIEST_INSTANT_MS);
    for (const text of [
      "0000-12-31T23:59:59.999Z",
      "0000-01-01T00:00:00Z",
      // In range as written, outside once normalised to UTC.
      "0001-01-01T00:00:00+00:01",
      "0001-01-01T00:00:00+23:59",
      "9999-12-31T23:59:59-23:59",
      "9999-12-31T23:59:59.9999-00:01",
    ])
      assert.equal(parseDateTime(text), null, text);
  });

  it("refuses what is not an RFC 3339 date-time", () => {
    for (const text of [
      "",
      "yesterday",
      "2026-11-22",
      "2026-11-22T10:00:00",
      "2026-11-22T10:00Z",
      "2026-13-01T00:00:00Z",
      "2026-00-01T00:00:00Z",
      "2026-02-29T00:00:00Z",
      "2026-04-31T00:00:00Z",
      "2026-11-00T00:00:00Z",
      "2026-11-22T24:00:00Z",
      "2026-11-22T10:60:00Z",
      // A leap second: a JavaScript Date cannot hold it.
      "2016-12-31T23:59:60Z",
      "2026-11-22T10:00:00+24:00",
      "2026-11-22T10:00:00+01:60",
      "2026-11-22T10:00:00+0100",
      "2026-11-22T10:00:00+01",
      "2026-11-22\t10:00:00Z",
      "+012026-11-22T10:00:00Z",
      "-000001-01-01T00:00:00Z",
      "99999-01-01T00:00:00Z",
      "２０２６-11-22T10:00:00Z",
      " 2026-11-22T10:00:00Z",
      "2026-11-22T10:00:00Z ",
      `2026-11-22T10:00:00.${"1".repeat(40)}Z`,
    ])
      assert.equal(isDateTime(text), false, text);
  });
});
