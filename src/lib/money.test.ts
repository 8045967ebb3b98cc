import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatMinorUnits, toMinorUnits } from "./money.ts";

describe("money", () => {
  it("parses decimal strings into minor units by currency exponent", () => {
    assert.equal(toMinorUnits("19.99", "USD"), 1999);
    assert.equal(toMinorUnits("19.9", "USD"), 1990);
    assert.equal(toMinorUnits("19", "USD"), 1900);
    assert.equal(toMinorUnits("1500", "JPY"), 1500);
    assert.equal(toMinorUnits("1.250", "KWD"), 1250);
    assert.equal(toMinorUnits("0.1", "USD"), 10);
  });

  it("rejects more decimals than the currency has, and junk", () => {
    assert.equal(toMinorUnits("1.999", "USD"), null);
    assert.equal(toMinorUnits("1.5", "JPY"), null);
    assert.equal(toMinorUnits("-1", "USD"), null);
    assert.equal(toMinorUnits("1e3", "USD"), null);
    assert.equal(toMinorUnits("", "USD"), null);
    assert.equal(toMinorUnits("99999999999999999", "USD"), null);
  });

  it("formats minor units back to the same text", () => {
    assert.equal(formatMinorUnits(1999, "USD"), "19.99");
    assert.equal(formatMinorUnits(5, "USD"), "0.05");
    assert.equal(formatMinorUnits(0, "USD"), "0.00");
    assert.equal(formatMinorUnits(1500, "JPY"), "1500");
    assert.equal(formatMinorUnits(1250, "KWD"), "1.250");
    for (const text of ["0.01", "123.45", "1000000.00"]) {
      assert.equal(formatMinorUnits(toMinorUnits(text, "EUR")!, "EUR"), text);
    }
  });
});
