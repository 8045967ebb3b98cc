import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { check, contractNames, excluded, findLiterals } from "./check-contract-literals.ts";

describe("contract literal check", () => {
  const names = contractNames();

  it("flags a scope, a status or an event name written out, in value and type position", () => {
    const text = [
      'const a = "read_orders";',
      "type T = 'paid' | 'retry';",
      "const b = `order.created`;",
      'db.where("status", "=", "active");',
    ].join("\n");
    assert.deepEqual(
      findLiterals("src/x.ts", text, names).map((f) => [f.line, f.literal]),
      [
        [1, "read_orders"],
        [2, "paid"],
        [3, "order.created"],
        [4, "active"],
      ],
    );
  });

  it("ignores comments, longer text, substitutions and import paths", () => {
    const text = [
      '// scope "read_orders" is needed',
      "/* status 'paid' */",
      "const sqlText = `WHERE status = 'pending'`;",
      'const message = "order.created arrived";',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a template with a substitution, on purpose
      "const t = `${x}paid`;",
      'import { y } from "paid";',
    ].join("\n");
    assert.deepEqual(findLiterals("src/x.ts", text, names), []);
  });

  it("leaves the contract module, tests and generated files alone", () => {
    assert.ok(excluded("src/contracts/statuses.ts"));
    assert.ok(excluded("test/webhooks.test.ts"));
    assert.ok(excluded("src/lib/money.test.ts"));
    assert.ok(excluded("web/src/generated/api.d.ts"));
    assert.ok(!excluded("src/modules/orders/orders-service.ts"));
  });

  it("finds none in the repository", () => {
    assert.deepEqual(check(), []);
  });
});
