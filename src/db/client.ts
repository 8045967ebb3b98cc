import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PostgresDialect, type Transaction } from "kysely";
import pg from "pg";
import { PGliteDialect } from "./pglite-dialect.ts";
import type { DB } from "./schema.ts";

export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;
/** Either the database or an open transaction: what repository functions run their statements on. */
export type Executor = Kysely<DB>;

export type DatabaseHandle =
  | { kind: "pglite"; db: Db; pglite: PGlite; execScript(sql: string): Promise<void>; close(): Promise<void> }
  | {
      kind: "pg";
      db: Db;
      pool: pg.Pool;
      schema: string;
      execScript(sql: string): Promise<void>;
      close(): Promise<void>;
    };

const INT8_OID = 20;

export interface DatabaseOptions {
  /** postgres:// URL of a server; unset for the embedded PGlite. */
  url?: string | undefined;
  /** Directory of the embedded database; unset keeps it in memory. */
  dataDir?: string | undefined;
  schema?: string;
  poolSize?: number;
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const schema = options.schema ?? "public";
  if (options.url) {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      options: `-c search_path=${schema}`,
      // bigint columns hold minor units and counters, all far below 2^53: read them as numbers.
      types: {
        getTypeParser: ((oid: number, format?: "text" | "binary") =>
          oid === INT8_OID
            ? (v: string) => Number(v)
            : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // An idle client that loses its server emits 'error'; without a listener that would kill the process.
    pool.on("error", () => {});
    if (schema !== "public") await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return {
      kind: "pg",
      db,
      pool,
      schema,
      execScript: async (sql) => {
        const client = await pool.connect();
        try {
          await client.query(sql);
        } catch (error) {
          // A failed multi-statement script leaves its transaction aborted; never pool such a connection.
          await client.query("ROLLBACK").catch(() => {});
          throw error;
        } finally {
          client.release();
        }
      },
      close: () => db.destroy(),
    };
  }
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const pglite = await PGlite.create(options.dataDir ? join(options.dataDir, "pgdata") : undefined);
  if (schema !== "public")
    await pglite.exec(`CREATE SCHEMA IF NOT EXISTS "${schema}"; SET search_path TO "${schema}";`);
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    kind: "pglite",
    db,
    pglite,
    execScript: async (sql) => {
      await pglite.exec(sql);
    },
    close: () => db.destroy(),
  };
}
