import { type RawBuilder, sql } from "kysely";
import type { Db } from "../../db/client.ts";

/** What is deleted, and when. */
export interface RetentionSettings {
  /** Finished deliveries (with their attempts), this long after they finished; 0 = never. */
  webhookLogDays: number;
  /** Events (the event feed), this long after they were created, unless a delivery of them is pending. */
  eventDays: number;
  /** Expired codes and tokens, and revoked token families, this long after expiry or revocation. */
  credentialGraceSeconds: number;
  /**
   * How long a disconnected listen session can be resumed. Sessions are kept longer: as part of
   * the delivery log (what each streamed is listed from them), see `run`.
   */
  listenSessionIdleSeconds: number;
  /** Rows per statement (default 1000): each batch is its own short transaction. */
  batchSize?: number;
  /** Batches per table per run at most (default 200), so one run stays bounded. */
  maxBatches?: number;
}

export type PruneCounts = {
  deliveries: number;
  events: number;
  authorizationCodes: number;
  accessTokens: number;
  refreshTokens: number;
  tokenGrants: number;
  /** `listen` sessions, as long after their last connection as the delivery log keeps deliveries. */
  listenSessions: number;
  /** Days of calls at deprecated API versions older than DEPRECATED_CALLS_DAYS (app pages list 30). */
  deprecatedCalls: number;
};

/** Days of calls at deprecated versions kept: the app page lists the last 30, and the day itself. */
export const DEPRECATED_CALLS_DAYS = 31;

// With the schema's hash as the second key: each schema on a server prunes apart (tests share one).
const RETENTION_LOCK_KEY = 7_231_020;
const DAY_MS = 24 * 3600 * 1000;

/**
 * Retention of the tables that grow without bound: the webhook delivery log, the outbox, and
 * spent credentials. Deletes in batches of `batchSize` rows, oldest first through an index, each
 * batch one short transaction whose rows are picked with SKIP LOCKED (nothing waits on a row in
 * use, and nothing in use waits long on us). Each batch first takes a transaction-level advisory
 * lock without waiting: while one worker prunes, the others skip their turn.
 */
export function createRetention(db: Db, settings: RetentionSettings) {
  const batchSize = settings.batchSize ?? 1000;
  const maxBatches = settings.maxBatches ?? 200;

  /** One batch; null when another worker holds the retention lock. */
  async function batch(statement: RawBuilder<unknown>): Promise<number | null> {
    return db.transaction().execute(async (tx) => {
      const { rows } = await sql<{ locked: boolean }>`
        SELECT pg_try_advisory_xact_lock(${RETENTION_LOCK_KEY}, hashtext(current_schema())) AS locked`.execute(
        tx,
      );
      if (!rows[0]?.locked) return null;
      const result = await statement.execute(tx);
      return Number(result.numAffectedRows ?? 0);
    });
  }

  /** Batches until one comes back short (caught up) or the run's bound; null when locked out. */
  async function drain(statement: RawBuilder<unknown>): Promise<number | null> {
    let total = 0;
    for (let i = 0; i < maxBatches; i++) {
      const n = await batch(statement);
      if (n === null) return i === 0 ? null : total;
      total += n;
      if (n < batchSize) break;
    }
    return total;
  }

  return {
    /**
     * One pass over every table, as of `now`. Answers what was deleted, or null when another
     * worker was pruning (it will have done the work).
     */
    async run(now: Date): Promise<PruneCounts | null> {
      const counts: PruneCounts = {
        deliveries: 0,
        events: 0,
        authorizationCodes: 0,
        accessTokens: 0,
        refreshTokens: 0,
        tokenGrants: 0,
        listenSessions: 0,
        deprecatedCalls: 0,
      };
      const steps: Array<[keyof PruneCounts, RawBuilder<unknown>]> = [];
      if (settings.webhookLogDays > 0) {
        const logCutoff = new Date(now.getTime() - settings.webhookLogDays * DAY_MS);
        steps.push(
          // Attempts go with their delivery (ON DELETE CASCADE, by the attempts' primary key).
          [
            "deliveries",
            sql`DELETE FROM webhook_deliveries d USING (
                  SELECT store_id, id FROM webhook_deliveries
                   WHERE status <> 'pending' AND completed_at < ${logCutoff}
                   ORDER BY completed_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED) old
                WHERE d.store_id = old.store_id AND d.id = old.id`,
          ],
        );
      }
      const eventCutoff = new Date(now.getTime() - settings.eventDays * DAY_MS);
      steps.push([
        // The event feed's retention (EVENT_RETENTION_DAYS). Events are dispatched right after
        // they commit, so the dispatched_at index finds the old ones; an event with a pending
        // delivery (a retry, a recovery) stays until it is done.
        "events",
        sql`DELETE FROM events e USING (
              SELECT seq FROM events o
               WHERE o.dispatched_at < ${eventCutoff} AND o.created_at < ${eventCutoff}
                 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                                  WHERE d.store_id = o.store_id AND d.event_id = o.id AND d.status = 'pending')
               ORDER BY o.dispatched_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED) old
            WHERE e.seq = old.seq`,
      ]);
      const cutoff = new Date(now.getTime() - settings.credentialGraceSeconds * 1000);
      // A session is the delivery log's record of what `listen` streamed (the events of its
      // range of the feed), so it stays as long as deliveries do, or as events do when the log
      // is kept for ever (without its events it lists nothing); never less than it can be resumed.
      const logDays =
        settings.webhookLogDays > 0
          ? Math.min(settings.webhookLogDays, settings.eventDays)
          : settings.eventDays;
      const sessionCutoff = new Date(
        now.getTime() - Math.max(logDays * DAY_MS, settings.listenSessionIdleSeconds * 1000),
      );
      steps.push(
        [
          "listenSessions",
          sql`DELETE FROM webhook_listen_sessions s USING (
                SELECT store_id, id FROM webhook_listen_sessions WHERE seen_at < ${sessionCutoff}
                 ORDER BY seen_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED) old
              WHERE s.store_id = old.store_id AND s.id = old.id`,
        ],
        [
          "authorizationCodes",
          sql`DELETE FROM authorization_codes c USING (
                SELECT code_hash FROM authorization_codes WHERE expires_at < ${cutoff}
                 ORDER BY expires_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED) old
              WHERE c.code_hash = old.code_hash`,
        ],
        [
          "accessTokens",
          sql`DELETE FROM access_tokens t USING (
                SELECT token_hash FROM access_tokens WHERE expires_at < ${cutoff}
                 ORDER BY expires_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED) old
              WHERE t.token_hash = old.token_hash`,
        ],
        [
          "accessTokens",
          sql`DELETE FROM access_tokens t USING (
                SELECT t.token_hash FROM token_grants g
                  JOIN access_tokens t ON t.store_id = g.store_id AND t.grant_id = g.id
                 WHERE g.revoked_at < ${cutoff}
                 LIMIT ${batchSize} FOR UPDATE OF t SKIP LOCKED) old
              WHERE t.token_hash = old.token_hash`,
        ],
        [
          "refreshTokens",
          sql`DELETE FROM refresh_tokens t USING (
                SELECT token_hash FROM refresh_tokens WHERE expires_at < ${cutoff}
                 ORDER BY expires_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED) old
              WHERE t.token_hash = old.token_hash`,
        ],
        [
          "refreshTokens",
          sql`DELETE FROM refresh_tokens t USING (
                SELECT t.token_hash FROM token_grants g
                  JOIN refresh_tokens t ON t.store_id = g.store_id AND t.grant_id = g.id
                 WHERE g.revoked_at < ${cutoff}
                 LIMIT ${batchSize} FOR UPDATE OF t SKIP LOCKED) old
              WHERE t.token_hash = old.token_hash`,
        ],
        // A family with no token left can issue nothing: its grant goes too (after the tokens
        // above, so a revoked family's grant never takes a long cascade with it). A grant gets
        // its first tokens in the transaction that creates it, so "no tokens" is never a family
        // being born.
        [
          "tokenGrants",
          sql`DELETE FROM token_grants g USING (
                SELECT store_id, id FROM token_grants g
                 WHERE g.created_at < ${cutoff}
                   AND NOT EXISTS (SELECT 1 FROM access_tokens t WHERE t.store_id = g.store_id AND t.grant_id = g.id)
                   AND NOT EXISTS (SELECT 1 FROM refresh_tokens t WHERE t.store_id = g.store_id AND t.grant_id = g.id)
                 ORDER BY g.created_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED) old
              WHERE g.store_id = old.store_id AND g.id = old.id`,
        ],
      );
      const callsCutoff = new Date(now.getTime() - DEPRECATED_CALLS_DAYS * DAY_MS).toISOString().slice(0, 10);
      steps.push([
        "deprecatedCalls",
        sql`DELETE FROM deprecated_api_calls c USING (
              SELECT app_id, day, api_version, operation_id FROM deprecated_api_calls WHERE day < ${callsCutoff}::date
               ORDER BY day LIMIT ${batchSize} FOR UPDATE SKIP LOCKED) old
            WHERE c.app_id = old.app_id AND c.day = old.day AND c.api_version = old.api_version
              AND c.operation_id = old.operation_id`,
      ]);
      for (const [name, statement] of steps) {
        const n = await drain(statement);
        if (n === null) return null;
        counts[name] += n;
      }
      return counts;
    },
  };
}
export type Retention = ReturnType<typeof createRetention>;
