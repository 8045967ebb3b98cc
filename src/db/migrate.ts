import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import type { DatabaseHandle } from "./client.ts";

const MIGRATIONS_DIR = join(import.meta.dirname, "migrations");
// Any constant shared by every instance: the advisory lock serialises concurrent starts on one server.
const MIGRATION_LOCK_KEY = 7_231_004;

export function listMigrations(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith(".sql"))
    .sort();
}

/** Applies, in name order, every migration not yet recorded; each in its own transaction. Returns the names applied. */
export async function migrate(handle: DatabaseHandle): Promise<string[]> {
  const { db } = handle;
  await handle.execScript(
    "CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
  );
  const run = async (): Promise<string[]> => {
    const applied = new Set(
      (await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(db)).rows.map((r) => r.name),
    );
    const done: string[] = [];
    for (const name of listMigrations()) {
      if (applied.has(name)) continue;
      const text = readFileSync(join(MIGRATIONS_DIR, name), "utf8");
      const escaped = name.replaceAll("'", "''");
      await handle.execScript(
        `BEGIN;\n${text}\n;INSERT INTO schema_migrations (name) VALUES ('${escaped}');\nCOMMIT;`,
      );
      done.push(name);
    }
    return done;
  };
  if (handle.kind === "pglite") return run();
  const client = await handle.pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    return await run();
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => {});
    client.release();
  }
}
