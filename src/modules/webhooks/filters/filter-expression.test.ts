import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FilterError, filterPaths, matchesFilter, parseFilter, projectFields } from "./filter-expression.ts";

const order = (over: Record<string, unknown> = {}) => ({
  id: "ord_1",
  status: "paid",
  total: "120.50",
  currency: "EUR",
  number: 1042,
  note: "",
  customer: { email: "a b@example.com", tags: null },
  ...over,
});

const matches = (filter: string, data: unknown) => matchesFilter(parseFilter(filter), data);

describe("subscription filters", () => {
  it("equality, inequality, comparisons and in", () => {
    assert.equal(matches("status:paid", order()), true);
    assert.equal(matches("status:pending", order()), false);
    assert.equal(matches("status:!=pending", order()), true);
    assert.equal(matches("total:>100", order()), true, "amounts compare as numbers, not text");
    assert.equal(matches("total:>=120.50", order()), true);
    assert.equal(matches("total:<120.5", order()), false);
    assert.equal(matches("total:<=120.5", order()), true);
    assert.equal(matches("number:1042", order()), true, "a number equals its written form");
    assert.equal(matches("status:[pending,paid]", order()), true);
    assert.equal(matches("status:[pending,cancelled]", order()), false);
    assert.equal(matches('customer.email:"a b@example.com"', order()), true, "quoted, nested");
    assert.equal(matches("customer.tags:null", order()), true);
  });

  it("AND binds tighter than OR, parentheses group", () => {
    const o = order({ status: "pending", total: "5.00" });
    assert.equal(matches("status:paid AND total:>100 OR currency:EUR", o), true);
    assert.equal(matches("status:paid AND (total:>100 OR currency:EUR)", o), false);
    assert.equal(matches("(status:pending OR status:paid) AND total:<10", o), true);
  });

  it("a missing field, or a text compared as a number, never matches and never throws", () => {
    assert.equal(matches("missing:x", order()), false);
    assert.equal(matches("missing:!=x", order()), true);
    assert.equal(matches("status:>1", order()), false);
    assert.equal(matches("customer.email.host:x", order()), false);
    assert.equal(matches("status:paid", null), false);
  });

  it("refuses what it cannot read, saying where", () => {
    const refuse = (filter: string, message: RegExp) =>
      assert.throws(
        () => parseFilter(filter),
        (e: unknown) => e instanceof FilterError && message.test(e.message),
        filter,
      );
    refuse("", /empty/);
    refuse("status", /`:`/);
    refuse("status:", /value/);
    refuse("status:paid AND", /field name/);
    refuse("status:paid total:>1", /AND, OR or the end/);
    refuse("(status:paid", /`\)`/);
    refuse("total:>abc", /compares numbers/);
    refuse('note:"open', /not closed/);
    refuse("status:[paid", /`]`/);
    refuse("a.b.c.d.e:1", /field path/);
    refuse("status:paid;drop", /unexpected character/);
    refuse(Array.from({ length: 21 }, (_, i) => `f${i}:1`).join(" AND "), /more than 20/);
    refuse(`note:"${"x".repeat(600)}"`, /longer than 500/);
    assert.throws(
      () => parseFilter("status:paid AND total:>x"),
      (e: unknown) => e instanceof FilterError && e.at === 22,
      "the position of the problem",
    );
  });

  it("lists the paths it reads, and projects a payload to the chosen fields plus id", () => {
    assert.deepEqual(filterPaths(parseFilter("status:paid AND (customer.email:x OR total:>1)")), [
      ["status"],
      ["customer", "email"],
      ["total"],
    ]);
    assert.deepEqual(projectFields(order(), ["total", "status"]), {
      id: "ord_1",
      status: "paid",
      total: "120.50",
    });
  });
});
