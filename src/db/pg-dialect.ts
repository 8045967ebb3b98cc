import { createHash } from "node:crypto";
import { PostgresDialect, type PostgresPool, type PostgresPoolClient } from "kysely";
import type pg from "pg";

/** Distinct statement texts one process prepares at most; later new texts are sent unnamed. */
export const MAX_PREPARED_STATEMENTS = 500;
/** Texts with more parameters than this are sent unnamed (long IN lists, multi-row inserts). */
export const MAX_PREPARED_PARAMETERS = 64;

/** Statements PostgreSQL plans (and so can keep a plan for); utility commands are sent as they are. */
const PLANNABLE = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * Gives each distinct SQL text a stable statement name, so node-postgres prepares it once per
 * pooled connection and PostgreSQL plans it once per connection instead of on every execution
 * (issue 10: the Admin API's token lookup ran at 5.8k/s sent unnamed and 67.9k/s prepared).
 *
 * Bounded: at most `max` distinct texts per process get a name (every server connection keeps
 * each one it has seen); beyond that, and for texts with many parameters (an IN list of variable
 * length makes a new text per length), statements go unnamed as before.
 *
 * Why this is safe here:
 * - A prepared statement binds to the tables that `search_path` resolved when it was prepared. The
 *   pool sets `search_path` (DATABASE_SCHEMA) in the connection's start-up options, before any
 *   statement, and nothing changes it later, so every statement of a connection sees one schema.
 * - A schema change under a prepared `SELECT *` makes PostgreSQL refuse it ("cached plan must not
 *   change result type"). Migrations run before the service serves (main.ts), on their own
 *   connection, and never while it runs; a deploy that migrates restarts the processes.
 * - Behind a transaction-pooling PgBouncer a named statement may land on another server
 *   connection: use PgBouncer 1.21+ with `max_prepared_statements`, or session pooling.
 */
export function namedStatements(max = MAX_PREPARED_STATEMENTS) {
  const names = new Map<string, string>();
  return function nameOf(text: string, parameterCount: number): string | undefined {
    const known = names.get(text);
    if (known !== undefined) return known;
    if (names.size >= max || parameterCount > MAX_PREPARED_PARAMETERS || !PLANNABLE.test(text))
      return undefined;
    // A short hash of the text: the same name on every connection (and every process).
    const name = `k${createHash("sha1").update(text).digest("base64url").slice(0, 16)}`;
    names.set(text, name);
    return name;
  };
}

/** Kysely's PostgresDialect on a pool whose clients send plannable statements as named (prepared) ones. */
export function preparedPostgresDialect(pool: pg.Pool, max = MAX_PREPARED_STATEMENTS): PostgresDialect {
  const nameOf = namedStatements(max);
  // One wrapper per pooled client, so Kysely (which keeps its connection object per client) sees
  // the same client each time it is checked out.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let wrapper = wrappers.get(client);
    if (!wrapper) {
      wrapper = {
        // biome-ignore lint/suspicious/noExplicitAny: Kysely's client type is a structural subset of pg's; cursors pass through.
        query: ((textOrCursor: any, values?: readonly unknown[]) =>
          typeof textOrCursor === "string"
            ? client.query({
                text: textOrCursor,
                values: values as unknown[],
                name: nameOf(textOrCursor, values?.length ?? 0),
              })
            : client.query(textOrCursor)) as PostgresPoolClient["query"],
        release: () => client.release(),
      };
      wrappers.set(client, wrapper);
    }
    return wrapper;
  };
  const wrapped: PostgresPool = {
    connect: async () => wrap(await pool.connect()),
    end: () => pool.end(),
  };
  return new PostgresDialect({ pool: wrapped });
}
