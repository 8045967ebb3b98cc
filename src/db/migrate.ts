import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import type { DatabaseHandle } from "./client.ts";

export const MIGRATIONS_DIR = join(import.meta.dirname, "migrations");
// Any constant shared by every instance: the advisory lock serialises concurrent starts on one server.
const MIGRATION_LOCK_KEY = 7_231_004;

export function listMigrations(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith(".sql"))
    .sort();
}

/**
 * Creates the schema if missing, then applies, in name order, every migration not yet recorded;
 * each in its own transaction. Returns the names applied. `before`: only the migrations whose names
 * sort before it (a database as an earlier release left it, for a test of a migration on old rows).
 */
export async function migrate(handle: DatabaseHandle, options: { before?: string } = {}): Promise<string[]> {
  const run = async (
    exec: (script: string) => Promise<void>,
    names: () => Promise<string[]>,
  ): Promise<string[]> => {
    // Under the lock too: two processes' CREATE ... IF NOT EXISTS at once can still collide.
    if (handle.kind === "pg" && handle.schema !== "public")
      await exec(`CREATE SCHEMA IF NOT EXISTS "${handle.schema}"`);
    await exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const applied = new Set(await names());
    const done: string[] = [];
    for (const name of listMigrations()) {
      if (applied.has(name) || (options.before !== undefined && name >= options.before)) continue;
      const text = readFileSync(join(MIGRATIONS_DIR, name), "utf8");
      const escaped = name.replaceAll("'", "''");
      await exec(`BEGIN;\n${text}\n;INSERT INTO schema_migrations (name) VALUES ('${escaped}');\nCOMMIT;`);
      done.push(name);
    }
    return done;
  };
  if (handle.kind === "pglite") {
    const { db } = handle;
    return run(handle.execScript, async () =>
      (await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(db)).rows.map((r) => r.name),
    );
  }
  // Every statement on the session that holds the lock: with a pool of one connection, a second
  // connection would never come.
  const client = await handle.pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    return await run(
      async (script) => {
        try {
          await client.query(script);
        } catch (error) {
          // A failed multi-statement script leaves its transaction aborted.
          await client.query("ROLLBACK").catch(() => {});
          throw error;
        }
      },
      async () =>
        (await client.query<{ name: string }>("SELECT name FROM schema_migrations")).rows.map((r) => r.name),
    );
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => {});
    client.release();
  }
}
