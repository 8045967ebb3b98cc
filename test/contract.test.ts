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
 * constraints allow exactly the contract's values, every status the SQL compares (in the code's
 * SQL texts and in the live schema's index predicates, functions and views) is one the contract
 * declares for that column, and every operation of the served document is declared by a literal
 * operationId in the source (searchable, never built from strings).
 */
const ROOT = join(import.meta.dirname, "..");

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (entry.endsWith(".ts") && !entry.endsWith(".test.ts")) yield path;
  }
}

/** The SQL texts of a source file: its template literals that hold SQL (tagged `sql` or not). */
function sqlTexts(source: string): string[] {
  return [...source.matchAll(/`([^`]*)`/g)]
    .map((m) => m[1]!)
    .filter((t) => /\b(SELECT|UPDATE|INSERT|DELETE|WHERE|CASE)\b/.test(t));
}

const STATUS_TABLES = Object.keys(STATUS_COLUMNS).map((c) => c.split(".") as [string, string]);

/**
 * Each status literal `text` compares with a contract column (`status = 'x'`, `<>`, `IN (…)`,
 * PostgreSQL's `= ANY (ARRAY[…])`) that the contract does not allow for that column in any of the
 * tables `text` names. A column no named table has in the contract is reported too: the check must
 * know what it is comparing.
 */
export function unknownStatuses(text: string, where: string): string[] {
  const named = STATUS_TABLES.filter(([table]) => new RegExp(`\\b${table}\\b`).test(text));
  const columns = new Set(STATUS_TABLES.map(([, column]) => column));
  const problems: string[] = [];
  const comparison =
    /\b(?:\w+\.)?(\w+)\)?\s*(?:=|<>|!=|\bNOT IN\b|\bIN\b|= ANY|<> ALL)\s*\(?\s*(?:ARRAY\s*\[)?((?:'[^']*'(?:::\w+)?\s*,?\s*)+)/gi;
  for (const m of text.matchAll(comparison)) {
    const column = m[1]!;
    if (!columns.has(column)) continue;
    const literals = [...m[2]!.matchAll(/'([^']*)'/g)].map((l) => l[1]!);
    const allowed = new Set(
      named
        .filter(([, c]) => c === column)
        .flatMap(([t, c]) => STATUS_COLUMNS[`${t}.${c}` as keyof typeof STATUS_COLUMNS] as readonly string[]),
    );
    if (allowed.size === 0) {
      problems.push(`${where}: compares ${column} with ${literals.join(", ")} but names no table with it`);
      continue;
    }
    for (const literal of literals) {
      if (!allowed.has(literal)) problems.push(`${where}: ${column} = '${literal}' is not a contract value`);
    }
  }
  return problems;
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
      const mentions = rows.map((r) => r.def).filter((def) => new RegExp(`\\b${name}\\b`).test(def));
      // The list of the column's values (`status IN (…)`, which PostgreSQL prints as = ANY (ARRAY[…])).
      const lists = mentions.filter((def) => new RegExp(`\\b${name} = ANY \\(ARRAY\\[`).test(def));
      assert.equal(
        lists.length,
        1,
        `${column}: one CHECK constraint listing its values (found ${lists.length})`,
      );
      const allowed = [...lists[0]!.matchAll(/'([^']*)'/g)].map((m) => m[1]).sort();
      assert.deepEqual(allowed, [...values].sort(), `${column}: ${lists[0]}`);
      // Other rules about the column (only a pending delivery holds a lease) name contract values only.
      for (const def of mentions.filter((d) => !lists.includes(d)))
        for (const [, literal] of def.matchAll(new RegExp(`\\b${name} = '([^']*)'`, "g")))
          assert.ok(
            (values as readonly string[]).includes(literal!),
            `${column}: ${def} compares with '${literal}', not a contract value`,
          );
    }
  });

  it("every status compared in the code's SQL is one the contract declares for its column", () => {
    const problems: string[] = [];
    let compared = 0;
    for (const file of sources(join(ROOT, "src"))) {
      for (const text of sqlTexts(readFileSync(file, "utf8"))) {
        if (/status\w*\s*(=|<>|IN)/i.test(text)) compared++;
        problems.push(...unknownStatuses(text, file.slice(ROOT.length + 1)));
      }
    }
    assert.ok(compared > 5, `the scan finds the SQL that compares statuses (${compared} texts)`);
    assert.deepEqual(problems, []);
  });

  it("every status compared in the live schema (index predicates, functions, views) is the contract's", async () => {
    // This schema's relations first (MATERIALIZED: pg_get_indexdef and pg_get_viewdef must never
    // run on another test's relations, which a concurrent DROP SCHEMA may be removing).
    const { rows } = await sql<{ kind: string; name: string; text: string }>`
      WITH ours AS MATERIALIZED (
        SELECT c.oid, c.relname, c.relkind FROM pg_class c
         WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('i', 'v')
      )
      SELECT 'index' AS kind, o.relname AS name, pg_get_indexdef(o.oid) AS text
        FROM ours o JOIN pg_index x ON x.indexrelid = o.oid
       WHERE o.relkind = 'i' AND x.indpred IS NOT NULL
      UNION ALL
      SELECT 'function', p.proname, p.prosrc FROM pg_proc p
       WHERE p.pronamespace = current_schema()::regnamespace
      UNION ALL
      SELECT 'view', o.relname, pg_get_viewdef(o.oid) FROM ours o WHERE o.relkind = 'v'`.execute(
      ctx.platform.db,
    );
    const withStatus = rows.filter((r) => /status/.test(r.text));
    assert.ok(withStatus.length > 3, `the schema compares statuses somewhere (${withStatus.length})`);
    assert.deepEqual(
      rows.flatMap((r) => unknownStatuses(r.text, `${r.kind} ${r.name}`)),
      [],
    );
  });

  it("the status check catches a value the contract lacks, and a comparison on a table it cannot place", () => {
    assert.deepEqual(
      unknownStatuses("UPDATE webhook_deliveries SET x = 1 WHERE status = 'pending'", "t"),
      [],
    );
    assert.equal(
      unknownStatuses("SELECT 1 FROM webhook_deliveries WHERE status IN ('pending', 'sent')", "t").length,
      1,
    );
    assert.equal(
      unknownStatuses("SELECT 1 FROM orders WHERE (status = ANY (ARRAY['paid'::text, 'lost'::text]))", "t")
        .length,
      1,
    );
    assert.equal(unknownStatuses("SELECT 1 FROM orders o WHERE o.status <> 'pending'", "t").length, 0);
    assert.equal(unknownStatuses("SELECT 1 FROM elsewhere WHERE status = 'pending'", "t").length, 1);
  });

  it("every operationId of the served document is a literal in src/", async () => {
    const text = [...sources(join(ROOT, "src"))].map((f) => readFileSync(f, "utf8")).join("\n");
    const ids = operationsOf(await fetchDocument(ctx.app)).map((op) => op.op.operationId as string);
    assert.ok(ids.length > 50, `the document has its operations (${ids.length})`);
    const missing = ids.filter((id) => !text.includes(`"${id}"`));
    assert.deepEqual(missing, [], "operationIds not written out as a literal in src/");
  });
});
