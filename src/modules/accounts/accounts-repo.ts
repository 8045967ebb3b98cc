import { sql } from "kysely";
import type { Executor } from "../../db/client.ts";

export function createAccountRepo(db: Executor) {
  return {
    async insert(
      row: { id: string; email: string; name: string; password_hash: string; created_at: Date },
      tx: Executor = db,
    ) {
      return tx.insertInto("accounts").values(row).returningAll().executeTakeFirstOrThrow();
    },
    async findByEmail(email: string, tx: Executor = db) {
      return tx
        .selectFrom("accounts")
        .selectAll()
        .where(sql<string>`lower(email)`, "=", email.toLowerCase())
        .executeTakeFirst();
    },
    async findById(id: string, tx: Executor = db) {
      return tx.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
    },
    async insertSession(
      row: { token_hash: string; account_id: string; expires_at: Date },
      tx: Executor = db,
    ) {
      await tx.insertInto("sessions").values(row).execute();
    },
    /** The account behind a live session, or undefined. */
    async findSessionAccount(tokenHash: string, now: Date, tx: Executor = db) {
      return tx
        .selectFrom("sessions")
        .innerJoin("accounts", "accounts.id", "sessions.account_id")
        .select([
          "accounts.id",
          "accounts.email",
          "accounts.name",
          "accounts.created_at",
          "sessions.expires_at",
        ])
        .where("sessions.token_hash", "=", tokenHash)
        .where("sessions.expires_at", ">", now)
        .executeTakeFirst();
    },
    async deleteSession(tokenHash: string, tx: Executor = db) {
      await tx.deleteFrom("sessions").where("token_hash", "=", tokenHash).execute();
    },
    /** Ends every session of the account but `keepTokenHash` (null: every one). */
    async deleteSessionsOf(accountId: string, keepTokenHash: string | null, tx: Executor = db) {
      let q = tx.deleteFrom("sessions").where("account_id", "=", accountId);
      if (keepTokenHash) q = q.where("token_hash", "<>", keepTokenHash);
      const result = await q.executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    /**
     * Sets the password and ends the trust of every device cookie of the account, in one
     * statement. Answers the new device epoch (undefined: no such account).
     */
    async setPasswordHash(accountId: string, hash: string, tx: Executor = db) {
      const row = await tx
        .updateTable("accounts")
        .set({ password_hash: hash, device_epoch: sql<number>`device_epoch + 1` })
        .where("id", "=", accountId)
        .returning("device_epoch")
        .executeTakeFirst();
      return row?.device_epoch;
    },
    /** Ends the trust of every device cookie of the account. */
    async endDeviceTrust(accountId: string, tx: Executor = db) {
      await tx
        .updateTable("accounts")
        .set({ device_epoch: sql<number>`device_epoch + 1` })
        .where("id", "=", accountId)
        .execute();
    },
    /** Sets the name and/or e-mail address; answers the account as it is now. */
    async updateProfile(accountId: string, changes: { name?: string; email?: string }, tx: Executor = db) {
      return tx
        .updateTable("accounts")
        .set(changes)
        .where("id", "=", accountId)
        .returningAll()
        .executeTakeFirst();
    },
    async deleteExpiredSessions(now: Date, tx: Executor = db) {
      await tx.deleteFrom("sessions").where("expires_at", "<=", now).execute();
    },
  };
}
export type AccountRepo = ReturnType<typeof createAccountRepo>;
