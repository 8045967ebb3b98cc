/**
 * The database's row types, src/db/schema.ts, generated from a freshly migrated embedded database
 * (no server needed): each table and column as the catalogue describes it (SQL type, null, a
 * default, the comments of COMMENT ON), with what the catalogue cannot know from
 * src/db/schema-overrides.ts (the shape of each jsonb column, the contract's type of each
 * enumerated one, the names importers give rows). kysely-codegen maps the SQL types and writes the
 * file; Biome formats it like the rest of the code.
 *
 *   npm run db:types          writes src/db/schema.ts
 *   npm run db:types:check    exit 1 when the committed file is not what this writes (CI)
 *
 * The catalogue is read with one query per kind of fact, over the current schema only: on a shared
 * PostgreSQL server other schemas come and go (each test context has its own), and kysely-codegen's
 * own introspection reads every schema and looks relations up by name, which fails on one dropped
 * while it reads. The output is the same on PGlite and on PostgreSQL (test/db-types.test.ts).
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Kysely, sql } from "kysely";
import {
  DatabaseMetadata,
  type ExportStatementNode,
  type IdentifierNode,
  PostgresDialect,
  serializeFromMetadata,
  TypeScriptSerializer,
  toKyselyPascalCase,
} from "kysely-codegen";
import ts from "typescript";
import { openDatabase } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { COLUMN_TYPES, ROW_TYPES } from "../src/db/schema-overrides.ts";

const ROOT = join(import.meta.dirname, "..");
export const SCHEMA_FILE = "src/db/schema.ts";
const OVERRIDES_FILE = "src/db/schema-overrides.ts";

interface Column {
  table: string;
  column: string;
  type: string;
  nullable: boolean;
  has_default: boolean;
  generated: boolean;
  comment: string | null;
}

/** The tables of the current schema (the migrations' own bookkeeping aside), their columns in order. */
async function readColumns<T>(db: Kysely<T>) {
  const { rows } = await sql<Column>`
    SELECT c.relname AS "table", a.attname AS "column", t.typname AS "type",
           NOT a.attnotnull AS nullable, a.atthasdef OR a.attidentity <> '' AS has_default,
           a.attgenerated <> '' AS "generated", col_description(c.oid, a.attnum) AS "comment"
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      JOIN pg_type t ON t.oid = a.atttypid
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
       AND c.relname <> 'schema_migrations'
     ORDER BY c.relname, a.attnum`.execute(db);
  return rows;
}

async function readTableComments<T>(db: Kysely<T>) {
  const { rows } = await sql<{ table: string; comment: string }>`
    SELECT c.relname AS "table", obj_description(c.oid, 'pg_class') AS "comment"
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
       AND obj_description(c.oid, 'pg_class') IS NOT NULL`.execute(db);
  return new Map(rows.map((r) => [r.table, r.comment]));
}

/**
 * The values of each enumerated column: a CHECK on the column alone that lists them, as
 * PostgreSQL prints `status IN ('a', 'b')` (the shape test/contract.test.ts reads too).
 */
async function readEnumerations<T>(db: Kysely<T>) {
  const { rows } = await sql<{ table: string; column: string; def: string }>`
    SELECT c.relname AS "table", a.attname AS "column", pg_get_constraintdef(k.oid) AS def
      FROM pg_constraint k
      JOIN pg_class c ON c.oid = k.conrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
     WHERE k.contype = 'c' AND cardinality(k.conkey) = 1 AND n.nspname = current_schema()`.execute(db);
  const values = new Map<string, string[]>();
  for (const r of rows) {
    const list = /^CHECK \(\(\w+ = ANY \(ARRAY\[(.*)\]\)\)\)$/.exec(r.def)?.[1];
    if (list)
      values.set(
        `${r.table}.${r.column}`,
        [...list.matchAll(/'((?:[^']|'')*)'::text/g)].map((m) => m[1]!.replaceAll("''", "'")),
      );
  }
  return values;
}

/**
 * The type names src/db/schema-overrides.ts exports (what an override may name, imported from
 * there), and of them those it declares itself (the JSON shapes, which schema.ts exports too).
 */
function exportedTypes(): { all: string[]; declared: string[] } {
  const file = ts.createSourceFile(
    OVERRIDES_FILE,
    readFileSync(join(ROOT, OVERRIDES_FILE), "utf8"),
    ts.ScriptTarget.Latest,
  );
  const declared: string[] = [];
  const reexported: string[] = [];
  const exported = (s: ts.Statement) =>
    ts.canHaveModifiers(s) && ts.getModifiers(s)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const s of file.statements) {
    if ((ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) && exported(s))
      declared.push(s.name.text);
    if (ts.isExportDeclaration(s) && s.isTypeOnly && s.exportClause && ts.isNamedExports(s.exportClause))
      reexported.push(...s.exportClause.elements.map((e) => e.name.text));
  }
  return { all: [...declared, ...reexported], declared };
}

/** kysely-codegen's serializer, with each table's interface named `<Table>Table` and its comment above it. */
class SchemaSerializer extends TypeScriptSerializer {
  readonly #tableComments: Map<string, string>;
  constructor(tableComments: Map<string, string>) {
    super({ skipAutogeneratedFileComment: true });
    this.#tableComments = new Map([...tableComments].map(([t, c]) => [toKyselyPascalCase(t), c]));
  }
  override serializeIdentifier(node: IdentifierNode): string {
    return node.isTableIdentifier ? `${node.name}Table` : node.name;
  }
  override serializeExportStatement(node: ExportStatementNode): string {
    const comment =
      node.argument.type === "InterfaceDeclaration" && this.#tableComments.get(node.argument.id.name);
    if (!comment) return super.serializeExportStatement(node);
    const lines = wrap(comment).split("\n");
    const doc =
      lines.length === 1 ? `/** ${lines[0]} */` : `/**\n${lines.map((l) => ` * ${l}`).join("\n")}\n */`;
    return `${doc}\n${super.serializeExportStatement(node)}`;
  }
}

/** A comment's text in lines of at most 100 characters, for JSDoc in a file of 110. */
function wrap(text: string, width = 100): string {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = "";
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines.join("\n");
}

/** Stops the generator: something the overrides say does not match the database. */
export class OverrideError extends Error {}

/**
 * The text of src/db/schema.ts for the migrated database `db` (its current schema); throws an
 * OverrideError naming each override that does not match it.
 */
export async function generateSchemaTypes<T>(
  db: Kysely<T>,
  { columnTypes = COLUMN_TYPES, rowTypes = ROW_TYPES } = {},
): Promise<string> {
  const [columns, tableComments, enumerations] = await Promise.all([
    readColumns(db),
    readTableComments(db),
    readEnumerations(db),
  ]);
  const problems: string[] = [];
  const known = new Set(columns.map((c) => `${c.table}.${c.column}`));
  const tables = new Set(columns.map((c) => c.table));
  for (const name of Object.keys(columnTypes))
    if (!known.has(name)) problems.push(`${OVERRIDES_FILE}: COLUMN_TYPES names ${name}, which no table has`);
  for (const [alias, of] of Object.entries(rowTypes)) {
    const table = typeof of === "string" ? of : of[1];
    if (!tables.has(table))
      problems.push(`${OVERRIDES_FILE}: ROW_TYPES.${alias} names table ${table}, which does not exist`);
  }
  // The catalogue's type for everything else; an override is the column's type before null and a
  // default, which are the catalogue's to say.
  const dialect = new PostgresDialect();
  const overrides: Record<string, string> = {};
  for (const c of columns) {
    const name = `${c.table}.${c.column}`;
    const override = columnTypes[name];
    if (override === undefined) {
      const type = c.type.replace(/^_/, "");
      if (type === "jsonb" || type === "json")
        problems.push(`${name} is ${c.type}: give its shape in ${OVERRIDES_FILE} (COLUMN_TYPES)`);
      // A type of the database's own (an enum, a domain) would become `unknown` without a word.
      else if (!Object.hasOwn(dialect.adapter.scalars, type))
        problems.push(
          `${name} is of type ${c.type}, which the generator does not know: give its type in ${OVERRIDES_FILE}`,
        );
      if (c.generated)
        problems.push(`${name} is a generated column: give its type in ${OVERRIDES_FILE} (COLUMN_TYPES)`);
      continue;
    }
    overrides[name] = c.nullable ? `${override} | null` : c.has_default ? `Generated<${override}>` : override;
  }
  if (problems.length) throw new OverrideError(problems.join("\n"));

  const byTable = Map.groupBy(columns, (c) => c.table);
  const metadata = new DatabaseMetadata({
    // One schema name whatever the database's is: each test context on PostgreSQL has its own.
    tables: [...byTable].map(([name, cs]) => ({
      name,
      schema: "public",
      columns: cs.map((c) => ({
        name: c.column,
        dataType: c.type.replace(/^_/, ""),
        dataTypeSchema: "pg_catalog",
        isArray: c.type.startsWith("_"),
        isNullable: c.nullable,
        hasDefaultValue: c.has_default,
        enumValues: enumerations.get(`${c.table}.${c.column}`) ?? null,
        comment: c.comment && wrap(c.comment),
      })),
    })),
  });
  const types = exportedTypes();
  const imports = Object.fromEntries(types.all.map((n) => [n, "./schema-overrides.ts"]));
  const body = serializeFromMetadata({
    metadata,
    dialect,
    defaultSchemas: ["public"],
    serializer: new SchemaSerializer(tableComments),
    // bigint columns hold minor units and counters, read as numbers (db/client.ts).
    typeMapping: { int8: "number" },
    customImports: imports,
    overrides: { columns: overrides },
  });
  const aliases = Object.entries(rowTypes).map(([alias, of]) => {
    const [kind, table] = typeof of === "string" ? ["Selectable", of] : of;
    return `export type ${alias} = ${kind}<${toKyselyPascalCase(table)}Table>;`;
  });
  const text = `/**
 * The database's row types, generated by \`npm run db:types\` (scripts/db-types.ts) from the
 * migrated database and the overrides in ${OVERRIDES_FILE}: do not edit. A change is a migration
 * (with COMMENT ON for a column that needs explaining) or an override, then \`npm run db:types\`;
 * CI fails on a stale file (\`npm run db:types:check\`). Timestamps are read as Date and written
 * as Date or ISO text; a jsonb column is read as its shape and written as its JSON text
 * (db/json.ts \`jsonb\`).
 */
import type { Insertable, Selectable, Updateable } from "kysely";

${body}
export type { ${types.declared.join(", ")} } from "./schema-overrides.ts";

${aliases.join("\n")}
`;
  return format(text);
}

/** `text` as Biome writes it (formatting, import order), so the generated file passes `npm run lint`. */
function format(text: string): string {
  const biome = spawnSync(
    join(ROOT, "node_modules/.bin/biome"),
    ["check", "--write", `--stdin-file-path=${SCHEMA_FILE}`],
    {
      cwd: ROOT,
      input: text,
      encoding: "utf8",
    },
  );
  if (biome.status !== 0)
    throw new Error(`biome could not format the generated types:\n${biome.stderr}${biome.stdout}`);
  return biome.stdout;
}

/** The types of a freshly migrated embedded database, in memory. */
export async function generateFromMigrations(): Promise<string> {
  const database = await openDatabase({ schema: "public" });
  try {
    await migrate(database);
    return await generateSchemaTypes(database.db);
  } finally {
    await database.close();
  }
}

if (import.meta.main) {
  const check = process.argv.includes("--check");
  let text: string;
  try {
    text = await generateFromMigrations();
  } catch (error) {
    if (!(error instanceof OverrideError)) throw error;
    console.error(`${error.message}\n\nThe row types were not generated.`);
    process.exit(1);
  }
  const path = join(ROOT, SCHEMA_FILE);
  if (check) {
    if (readFileSync(path, "utf8") !== text) {
      console.error(
        `${SCHEMA_FILE} is stale (not what the migrations and ${OVERRIDES_FILE} give): run npm run db:types`,
      );
      process.exit(1);
    }
    console.log(`${SCHEMA_FILE} is up to date`);
  } else {
    writeFileSync(path, text);
    console.log(`wrote ${SCHEMA_FILE}`);
  }
}
