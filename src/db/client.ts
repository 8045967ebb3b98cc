import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { Kysely, type Transaction } from "kysely";
import pg from "pg";
import { preparedPostgresDialect } from "./pg-dialect.ts";
import type { DB } from "./schema.ts";
import { parseTimestamptz } from "./timestamptz.ts";

export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;
/** Either the database or an open transaction: what repository functions run their statements on. */
export type Executor = Kysely<DB>;

/**
 * An open transaction that services can take as their database: the transactions they open
 * become parts of this one. For batch writers only (the demo seed writes a quarter of orders in a
 * few commits instead of thousands); a request's service call keeps its own transaction.
 */
export function transactionAsDatabase(tx: Tx): Db {
  return new Proxy(tx, {
    get(target, property) {
      if (property === "transaction")
        return () => ({ execute: <T>(work: (inner: Tx) => Promise<T>) => work(target) });
      // Kysely keeps its state in private fields: its methods run on the transaction itself.
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as Db;
}

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
const TIMESTAMPTZ_OID = 1184;
const defaultTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID, "text") as (text: string) => unknown;
const readTimestamptz = (text: string) => parseTimestamptz(text, defaultTimestamptz);

export interface DatabaseOptions {
  /** postgres:// URL of a server; unset for the embedded PGlite. */
  url?: string | undefined;
  /** Directory of the embedded database; unset keeps it in memory. */
  dataDir?: string | undefined;
  schema?: string;
  poolSize?: number;
  /**
   * Upper bound for opening a connection and for waiting for a free one in the pool; past it the
   * query fails (and a request answers 503) instead of hanging while the server is unreachable.
   */
  connectTimeoutMs?: number;
  /** shared_buffers of the embedded database, in MB (default 16; see EMBEDDED_SHARED_BUFFERS_MB). */
  embeddedSharedBuffersMb?: number;
  /**
   * An in-memory embedded database starts as a copy of this dump (PGlite's `dumpDataDir`) instead
   * of an empty cluster: the tests migrate once and start each database from the copy.
   */
  embeddedTemplate?: Blob | undefined;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
export const DEFAULT_EMBEDDED_SHARED_BUFFERS_MB = 16;

/**
 * Takes libpq's `options` parameter (server settings for every session, e.g.
 * `?options=-c%20statement_timeout%3D5000`) out of a URL, so it is added to the pool's own
 * settings instead of replacing them (node-postgres lets the URL's value win over the pool's).
 */
export function splitServerOptions(raw: string): { url: string; serverOptions: string } {
  const url = new URL(raw);
  const serverOptions = url.searchParams.get("options") ?? "";
  url.searchParams.delete("options");
  return { url: url.toString(), serverOptions };
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const schema = options.schema ?? "public";
  if (options.url) {
    const { url, serverOptions } = splitServerOptions(options.url);
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      // TCP keep-alive, so a server that vanished without closing the socket is noticed.
      keepAlive: true,
      options: [`-c search_path=${schema}`, serverOptions].filter(Boolean).join(" "),
      // bigint columns hold minor units and counters, all far below 2^53: read them as numbers;
      // timestamps without a regular expression (timestamptz.ts).
      types: {
        getTypeParser: ((oid: number, format?: "text" | "binary") =>
          oid === INT8_OID
            ? (v: string) => Number(v)
            : oid === TIMESTAMPTZ_OID && format !== "binary"
              ? readTimestamptz
              : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // A client that loses its server emits 'error'; without a listener that would kill the process.
    // The pool listens only while a client is idle, so every client gets its own listener too: the
    // failure still reaches the query that was running, and the pool drops the broken client.
    // No statement runs here: a server that is down or starting must not fail the open
    // (migrate creates the schema, and main.ts waits for the server there).
    pool.on("error", () => {});
    pool.on("connect", (client) => client.on("error", () => {}));
    // Named (prepared) statements: each is planned once per connection, not on every execution.
    const db = new Kysely<DB>({ dialect: preparedPostgresDialect(pool) });
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
  // Loaded only here: a process on a PostgreSQL server never holds the embedded database's code.
  const [{ PGlite }, { pg_trgm }, { PGliteDialect }, { ensureEmbeddedDataDir }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite/contrib/pg_trgm"),
    import("./pglite-dialect.ts"),
    import("./pglite-init.ts"),
  ]);
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const pgdata = options.dataDir ? join(options.dataDir, "pgdata") : undefined;
  if (pgdata) await ensureEmbeddedDataDir(pgdata);
  const pglite = await PGlite.create(pgdata, {
    ...(options.embeddedTemplate && !pgdata ? { loadDataDir: options.embeddedTemplate } : {}),
    // Trigram indexes serve the lists' search (migration 20261124_0010).
    extensions: { pg_trgm },
    startParams: [
      ...PGlite.defaultStartParams,
      "-c",
      `shared_buffers=${options.embeddedSharedBuffersMb ?? DEFAULT_EMBEDDED_SHARED_BUFFERS_MB}MB`,
    ],
  });
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
