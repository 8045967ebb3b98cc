import type { Executor } from "../../db/client.ts";

/** Password-reset links and pending e-mail changes (20261129_0070_mail_and_password_resets.sql). */
export function createAccountLinksRepo(db: Executor) {
  return {
    async insertReset(
      row: { id: string; account_id: string; secret_hash: string; created_at: Date; expires_at: Date },
      tx: Executor = db,
    ) {
      await tx.insertInto("password_resets").values(row).execute();
    },
    async findReset(id: string, tx: Executor = db) {
      return tx.selectFrom("password_resets").selectAll().where("id", "=", id).executeTakeFirst();
    },
    /**
     * Uses a reset link: one statement, so of two concurrent uses only one finds it unused and
     * unexpired. Every other open link of the account is used up with it (a reset ends them all).
     * Answers the account id, or undefined when the link was already used or has expired.
     */
    async useReset(id: string, now: Date, tx: Executor = db) {
      const row = await tx
        .updateTable("password_resets")
        .set({ used_at: now })
        .where("id", "=", id)
        .where("used_at", "is", null)
        .where("expires_at", ">", now)
        .returning("account_id")
        .executeTakeFirst();
      if (!row) return undefined;
      await tx
        .updateTable("password_resets")
        .set({ used_at: now })
        .where("account_id", "=", row.account_id)
        .where("used_at", "is", null)
        .execute();
      return row.account_id;
    },
    async insertEmailChange(
      row: {
        id: string;
        account_id: string;
        new_email: string;
        secret_hash: string;
        created_at: Date;
        expires_at: Date;
      },
      tx: Executor = db,
    ) {
      // One pending change per account: a new request replaces the links sent before.
      await tx
        .updateTable("email_changes")
        .set({ used_at: row.created_at })
        .where("account_id", "=", row.account_id)
        .where("used_at", "is", null)
        .execute();
      await tx.insertInto("email_changes").values(row).execute();
    },
    async findEmailChange(id: string, tx: Executor = db) {
      return tx.selectFrom("email_changes").selectAll().where("id", "=", id).executeTakeFirst();
    },
    /** The account's change waiting for its confirmation, if any. */
    async pendingEmailChange(accountId: string, now: Date, tx: Executor = db) {
      return tx
        .selectFrom("email_changes")
        .select(["new_email", "expires_at"])
        .where("account_id", "=", accountId)
        .where("used_at", "is", null)
        .where("expires_at", ">", now)
        .orderBy("created_at", "desc")
        .limit(1)
        .executeTakeFirst();
    },
    /** Uses a confirmation link, as useReset: one winner. Answers the row, or undefined. */
    async useEmailChange(id: string, now: Date, tx: Executor = db) {
      return tx
        .updateTable("email_changes")
        .set({ used_at: now })
        .where("id", "=", id)
        .where("used_at", "is", null)
        .where("expires_at", ">", now)
        .returning(["account_id", "new_email"])
        .executeTakeFirst();
    },
    /** Deletes links that expired before `cutoff`. */
    async deleteExpired(cutoff: Date) {
      await db.deleteFrom("password_resets").where("expires_at", "<", cutoff).execute();
      await db.deleteFrom("email_changes").where("expires_at", "<", cutoff).execute();
    },
  };
}
export type AccountLinksRepo = ReturnType<typeof createAccountLinksRepo>;
