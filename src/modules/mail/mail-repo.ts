import { sql } from "kysely";
import { MailStatus } from "../../contracts/index.ts";
import type { Executor } from "../../db/client.ts";

export interface NewMailRow {
  id: string;
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  created_at: Date;
  next_attempt_at: Date;
}

export function createMailRepo(db: Executor) {
  return {
    async insert(row: NewMailRow, tx: Executor = db) {
      await tx.insertInto("mail_messages").values(row).execute();
    },

    /**
     * Takes up to `limit` due messages for one attempt each. One statement: the row locks (SKIP
     * LOCKED, so two workers never take the same row) live only as long as the UPDATE, and the
     * claim itself is the message's next_attempt_at moved past the lease, so a worker that dies
     * mid-send gives its messages back when the lease ends. `attempts` is the claim's number:
     * the completion names it (complete / retry below).
     */
    async claim(now: Date, leaseMs: number, limit: number) {
      const until = new Date(now.getTime() + leaseMs);
      const result = await sql<{
        id: string;
        kind: string;
        to_address: string;
        subject: string;
        text_body: string;
        html_body: string;
        attempts: number;
      }>`
        UPDATE mail_messages m
           SET attempts = m.attempts + 1, next_attempt_at = ${until}
          FROM (SELECT id FROM mail_messages
                 WHERE status = 'pending' AND next_attempt_at <= ${now}
                 ORDER BY next_attempt_at
                 LIMIT ${limit}
                 FOR UPDATE SKIP LOCKED) due
         WHERE m.id = due.id
        RETURNING m.id, m.kind, m.to_address, m.subject, m.text_body, m.html_body, m.attempts`.execute(db);
      return result.rows;
    },

    /** Marks the claimed attempt sent; false when that claim is no longer the message's (lease lapsed, taken again). */
    async markSent(id: string, attempt: number, now: Date) {
      const result = await db
        .updateTable("mail_messages")
        .set({ status: MailStatus.sent, sent_at: now, last_error: null })
        .where("id", "=", id)
        .where("attempts", "=", attempt)
        .where("status", "=", MailStatus.pending)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** The claimed attempt failed: try again at `retryAt`, or give up (`retryAt` null). */
    async markFailed(id: string, attempt: number, error: string, retryAt: Date | null) {
      await db
        .updateTable("mail_messages")
        .set(
          retryAt
            ? { last_error: error, next_attempt_at: retryAt }
            : { last_error: error, status: MailStatus.failed },
        )
        .where("id", "=", id)
        .where("attempts", "=", attempt)
        .where("status", "=", MailStatus.pending)
        .execute();
    },

    /** The newest messages first, for the outbox page (bodies left out). */
    async list(options: { limit: number; before?: { createdAt: Date; id: string } }) {
      let q = db
        .selectFrom("mail_messages")
        .select(["id", "kind", "to_address", "subject", "status", "attempts", "created_at", "sent_at"])
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(options.limit);
      const before = options.before;
      if (before)
        q = q.where((eb) =>
          eb.or([
            eb("created_at", "<", before.createdAt),
            eb.and([eb("created_at", "=", before.createdAt), eb("id", "<", before.id)]),
          ]),
        );
      return q.execute();
    },

    async find(id: string) {
      return db.selectFrom("mail_messages").selectAll().where("id", "=", id).executeTakeFirst();
    },

    /** Deletes messages created before `cutoff` that are no longer waiting to be sent. */
    async prune(cutoff: Date) {
      const result = await db
        .deleteFrom("mail_messages")
        .where("created_at", "<", cutoff)
        .where("status", "<>", MailStatus.pending)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
export type MailRepo = ReturnType<typeof createMailRepo>;
