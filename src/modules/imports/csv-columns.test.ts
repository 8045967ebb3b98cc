import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { locate, planCustomer, planProducts } from "./csv-columns.ts";

describe("csv-columns", () => {
  it("groups a product's rows by handle (any order, any case), its first row carrying the product", () => {
    const { plans, errors } = planProducts([
      {
        row: 2,
        cells: {
          Handle: "shirt",
          Title: "Shirt",
          "Option1 Name": "Size",
          "Option1 Value": "S",
          "Variant Price": "10.00",
          Tags: "a, b, a",
        },
      },
      {
        row: 3,
        cells: {
          Handle: "mug",
          Title: "Mug",
          "Variant Price": "5",
          "Variant Tracked": "no",
          "Variant Grams": "abc",
        },
      },
      {
        row: 4,
        cells: { Handle: "SHIRT", "Option1 Value": "M", "Variant Price": "11.00", "Variant SKU": "S-M" },
      },
      { row: 5, cells: { Title: "Orphan", "Variant Price": "1" } },
      { row: 6, cells: { Handle: "untitled", "Variant Price": "1" } },
    ]);
    assert.deepEqual(
      errors.map((e) => [e.row, e.column]),
      [
        [5, "Handle"],
        [6, "Title"],
      ],
    );
    const shirt = plans.find((p) => p.handle === "shirt")!;
    assert.deepEqual(shirt.rows, [2, 4]);
    assert.deepEqual(shirt.input.options, [{ name: "Size", values: ["S", "M"] }]);
    assert.deepEqual(shirt.input.tags, ["a", "b"]);
    assert.deepEqual(
      shirt.input.variants.map((v) => [v.optionValues, v.price, v.sku]),
      [
        [["S"], "10.00", undefined],
        [["M"], "11.00", "S-M"],
      ],
    );
    assert.deepEqual(locate(shirt.sources, "variants.1.sku", 0), { row: 4, column: "Variant SKU" });
    assert.deepEqual(locate(shirt.sources, "options.0.values.1", 0), { row: 2, column: "Option1 Name" });
    const mug = plans.find((p) => p.handle === "mug")!;
    assert.equal(mug.input.variants[0]!.tracked, false);
    // Left as text, so the schema names the cell as not a number.
    assert.equal(mug.input.variants[0]!.weightGrams as unknown, "abc");
  });

  it("reads a customer with an address only when an address column is filled", () => {
    const plain = planCustomer({
      row: 2,
      cells: { Email: "a@b.co", "First Name": "Ada", "Tax Exempt": "yes" },
    });
    assert.deepEqual(plain.input, { email: "a@b.co", firstName: "Ada", taxExempt: true });
    const withAddress = planCustomer({
      row: 3,
      cells: {
        Email: "a@b.co",
        "First Name": "Ada",
        "Last Name": "L",
        "Address City": "Paris",
        "Address Country": "fr",
      },
    });
    assert.deepEqual(withAddress.input.addresses, [
      { name: "Ada L", line1: "", city: "Paris", country: "FR" },
    ]);
    assert.deepEqual(locate(withAddress.sources, "addresses.0.line1", 0), {
      row: 3,
      column: "Address Line 1",
    });
  });
});
