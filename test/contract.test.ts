import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { STATUS_COLUMNS } from "../src/contracts/index.ts";
import { createTestContext, type TestContext } from "./harness.ts";
import { fetchDocument, operationsOf } from "./openapi-doc.ts";

/**
 * The contract (src/contracts/) is what the database and the code say too: the migrations' CHECK
 * constraints allow exactly the contract's values, and every operation of the served document is
 * declared by a literal operationId in the source (searchable, never built from strings).
 */
const ROOT = join(import.meta.dirname, "..");

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (entry.endsWith(".ts") && !entry.endsWith(".test.ts")) yield path;
  }
}

describe("the contract", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => ctx?.close());

  it("each status column's CHECK constraint allows exactly the contract's values", async () => {
    for (const [column, values] of Object.entries(STATUS_COLUMNS)) {
      const [table, name] = column.split(".") as [string, string];
      const { rows } = await sql<{ def: string }>`
        SELECT pg_get_constraintdef(c.oid) AS def
          FROM pg_constraint c
         WHERE c.conrelid = to_regclass(${table}) AND c.contype = 'c'`.execute(ctx.platform.db);
      const checks = rows.map((r) => r.def).filter((def) => new RegExp(`\\b${name}\\b`).test(def));
      assert.equal(checks.length, 1, `${column}: one CHECK constraint (found ${checks.length})`);
      const allowed = [...checks[0]!.matchAll(/'([^']*)'/g)].map((m) => m[1]).sort();
      assert.deepEqual(allowed, [...values].sort(), `${column}: ${checks[0]}`);
    }
  });

  it("every operationId of the served document is a literal in src/", async () => {
    const text = [...sources(join(ROOT, "src"))].map((f) => readFileSync(f, "utf8")).join("\n");
    const ids = operationsOf(await fetchDocument(ctx.app)).map((op) => op.op.operationId as string);
    assert.ok(ids.length > 50, `the document has its operations (${ids.length})`);
    const missing = ids.filter((id) => !text.includes(`"${id}"`));
    assert.deepEqual(missing, [], "operationIds not written out as a literal in src/");
  });
});
