import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isoString } from "./iso-string.ts";

describe("isoString", () => {
  it("writes what Date#toISOString writes, at the edges of months, years, centuries and the range", () => {
    for (const text of [
      "0000-01-01T00:00:00.000Z",
      "0000-02-29T12:00:00.000Z",
      "0001-01-01T00:00:00.000Z",
      "1899-12-31T23:59:59.999Z",
      "1900-02-28T23:59:59.999Z",
      "1900-03-01T00:00:00.000Z",
      "1969-12-31T23:59:59.999Z",
      "1970-01-01T00:00:00.000Z",
      "1970-01-01T00:00:00.001Z",
      "2000-02-29T00:00:00.010Z",
      "2026-11-26T18:01:02.100Z",
      "2100-03-01T00:00:00.000Z",
      "9999-12-31T23:59:59.999Z",
    ]) {
      assert.equal(isoString(new Date(text)), text);
    }
  });

  it("agrees with Date#toISOString on 200,000 instants spread over years 0 to 9999", () => {
    const from = Date.parse("0000-01-01T00:00:00.000Z");
    const to = Date.parse("9999-12-31T23:59:59.999Z");
    // A fixed linear congruential sequence: the same instants every run.
    let seed = 22;
    const next = () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed / 2 ** 32;
    };
    for (let i = 0; i < 200_000; i++) {
      const date = new Date(from + Math.floor(next() * (to - from)));
      assert.equal(isoString(date), date.toISOString(), String(date.getTime()));
    }
  });

  it("leaves what it does not write to the builtin: years outside 0-9999, and an invalid Date", () => {
    for (const text of [
      "-000001-12-31T23:59:59.999Z",
      "+010000-01-01T00:00:00.000Z",
      "+275760-09-13T00:00:00.000Z",
    ])
      assert.equal(isoString(new Date(text)), text);
    assert.throws(() => isoString(new Date(Number.NaN)), RangeError);
  });
});
