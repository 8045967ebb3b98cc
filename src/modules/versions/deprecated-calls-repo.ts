import { sql } from "kysely";
import type { Db } from "../../db/client.ts";
import type { DeprecatedCall } from "./deprecated-calls.ts";
import type { DeprecatedUsage } from "./deprecations.ts";

/** The counts of calls that used something deprecated (deprecated_api_calls, migrations 0060 and 0070). */
export function createDeprecatedCallRepo(db: Db) {
  const text = (xs: unknown[]) => xs as unknown as string;
  return {
    /** Adds counts to what every process wrote before: one statement for the whole batch. */
    async add(calls: readonly DeprecatedCall[]): Promise<void> {
      if (calls.length === 0) return;
      await sql`
        INSERT INTO deprecated_api_calls AS c (app_id, day, api_version, operation_id, usage, calls, last_at)
        SELECT v.app_id, v.day::date, v.api_version, v.operation_id, v.usage, v.calls, v.last_at
          FROM unnest(${text(calls.map((c) => c.appId))}::text[], ${text(calls.map((c) => c.day))}::text[],
                      ${text(calls.map((c) => c.version))}::text[], ${text(calls.map((c) => c.operationId))}::text[],
                      ${text(calls.map((c) => c.usage))}::text[],
                      ${text(calls.map((c) => c.calls))}::bigint[], ${text(calls.map((c) => c.lastAt.toISOString()))}::timestamptz[])
               AS v(app_id, day, api_version, operation_id, usage, calls, last_at)
          -- An app deleted meanwhile: its counts go with it.
         WHERE EXISTS (SELECT 1 FROM apps a WHERE a.id = v.app_id)
        ON CONFLICT (app_id, day, api_version, operation_id, usage)
        DO UPDATE SET calls = c.calls + excluded.calls, last_at = greatest(c.last_at, excluded.last_at)`.execute(
        db,
      );
    },
    /**
     * An app's deprecated calls since `since` (a day), per version, operation and usage, latest
     * first.
     */
    async ofApp(appId: string, since: string) {
      const { rows } = await sql<{
        api_version: string;
        operation_id: string;
        usage: DeprecatedUsage;
        calls: string;
        last_at: Date;
      }>`
        SELECT api_version, operation_id, usage, sum(calls) AS calls, max(last_at) AS last_at
          FROM deprecated_api_calls
         WHERE app_id = ${appId} AND day >= ${since}::date
         GROUP BY api_version, operation_id, usage
         ORDER BY max(last_at) DESC, api_version, operation_id, usage
         LIMIT 200`.execute(db);
      return rows.map((r) => ({
        apiVersion: r.api_version,
        operationId: r.operation_id,
        usage: r.usage,
        calls: Number(r.calls),
        lastAt: new Date(r.last_at).toISOString(),
      }));
    },
  };
}
export type DeprecatedCallRepo = ReturnType<typeof createDeprecatedCallRepo>;
