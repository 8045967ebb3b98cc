import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { allocate, formatMinorUnits, formatRate, mulDiv, RATE_SCALE, toMinorUnits, toRate } from "./money.ts";

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

describe("rates, the rounding and allocation", () => {
  it("reads and writes rates as exact percentages", () => {
    assert.equal(toRate("8.875"), 88_750);
    assert.equal(toRate("20"), 200_000);
    assert.equal(toRate("0.0001"), 1);
    assert.equal(toRate("100"), 1_000_000);
    for (const bad of ["100.0001", "8.87501", "-1", "1e2", "", "abc", "1000"])
      assert.equal(toRate(bad), null, bad);
    for (const text of ["8.875", "20", "0.0001", "0", "5.5"]) assert.equal(formatRate(toRate(text)!), text);
  });

  it("rounds half up, away from zero, exactly past 2^53", () => {
    assert.equal(mulDiv(5, 1, 2), 3);
    assert.equal(mulDiv(-5, 1, 2), -3);
    assert.equal(mulDiv(4, 1, 3), 1);
    assert.equal(mulDiv(5, 1, 3), 2);
    assert.equal(mulDiv(1999, 200_000, RATE_SCALE), 400); // 399.8
    assert.equal(mulDiv(1250, 100_000, RATE_SCALE), 125);
    assert.equal(mulDiv(10 ** 15, 999_999, RATE_SCALE), 999_999 * 10 ** 9);
    assert.equal(mulDiv(10 ** 15 - 1, 500_000, RATE_SCALE), 5 * 10 ** 14); // .5 up
    assert.throws(() => mulDiv(1, 1, 0), RangeError);
  });

  it("allocates by largest remainder: the shares sum to the amount, each within a unit of its proportion", () => {
    assert.deepEqual(allocate(100, [1, 1, 1]), [34, 33, 33]);
    assert.deepEqual(allocate(-100, [1, 1, 1]), [-34, -33, -33]);
    assert.deepEqual(allocate(5, [0, 0]), [3, 2]);
    assert.deepEqual(allocate(0, [3, 4]), [0, 0]);
    assert.deepEqual(allocate(10, [0, 7]), [0, 10]);
    assert.deepEqual(allocate(0, []), []);
    assert.throws(() => allocate(7, []), RangeError);
  });
});
