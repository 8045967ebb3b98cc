import { sql } from "kysely";
import type { StaffRole } from "../../contracts/index.ts";
import type { Executor } from "../../db/client.ts";

/** The SQL of a store's staff: its members (with their accounts) and its invitations. */
export function createStaffRepo(db: Executor) {
  return {
    /**
     * Serialises the staff changes of one store until the transaction ends (an invitation's seat,
     * an acceptance, a removal): a transaction-scoped advisory lock, so orders, which lock the
     * store's row, never wait on it.
     */
    async lockStaff(storeId: string, tx: Executor) {
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`staff:${storeId}`}, 0))`.execute(tx);
    },
    /** The store's owner, with the account's name and e-mail address. */
    async owner(storeId: string, tx: Executor = db) {
      return tx
        .selectFrom("stores")
        .innerJoin("accounts", "accounts.id", "stores.owner_account_id")
        .select(["accounts.id as account_id", "accounts.name", "accounts.email", "stores.created_at"])
        .where("stores.id", "=", storeId)
        .executeTakeFirstOrThrow();
    },
    /** The store's members, oldest first (at most MAX_STAFF_PER_STORE exist). */
    async members(storeId: string, tx: Executor = db) {
      return tx
        .selectFrom("store_members as m")
        .innerJoin("accounts", "accounts.id", "m.account_id")
        .select(["m.account_id", "accounts.name", "accounts.email", "m.role", "m.created_at", "m.updated_at"])
        .where("m.store_id", "=", storeId)
        .orderBy("m.created_at")
        .orderBy("m.account_id")
        .execute();
    },
    async member(storeId: string, accountId: string, tx: Executor = db) {
      return tx
        .selectFrom("store_members as m")
        .innerJoin("accounts", "accounts.id", "m.account_id")
        .select(["m.account_id", "accounts.name", "accounts.email", "m.role", "m.created_at", "m.updated_at"])
        .where("m.store_id", "=", storeId)
        .where("m.account_id", "=", accountId)
        .executeTakeFirst();
    },
    /** Whether the account with this e-mail address owns the store or works in it. */
    async hasPerson(storeId: string, email: string, tx: Executor) {
      const row = await tx
        .selectFrom("accounts")
        .leftJoin("store_members as m", (join) =>
          join.onRef("m.account_id", "=", "accounts.id").on("m.store_id", "=", storeId),
        )
        .leftJoin("stores", (join) =>
          join.onRef("stores.owner_account_id", "=", "accounts.id").on("stores.id", "=", storeId),
        )
        .select(["m.account_id as member", "stores.id as owned"])
        .where(sql<string>`lower(accounts.email)`, "=", email.toLowerCase())
        .executeTakeFirst();
      return row
        ? { member: row.member !== null, owner: row.owned !== null }
        : { member: false, owner: false };
    },
    async insertMember(
      row: {
        store_id: string;
        account_id: string;
        role: StaffRole;
        invited_by: string | null;
        created_at: Date;
      },
      tx: Executor,
    ) {
      return tx
        .insertInto("store_members")
        .values({ ...row, updated_at: row.created_at })
        .onConflict((oc) => oc.columns(["store_id", "account_id"]).doNothing())
        .returning("account_id")
        .executeTakeFirst();
    },
    async setRole(storeId: string, accountId: string, role: StaffRole, now: Date, tx: Executor) {
      return tx
        .updateTable("store_members")
        .set({ role, updated_at: now })
        .where("store_id", "=", storeId)
        .where("account_id", "=", accountId)
        .returning("account_id")
        .executeTakeFirst();
    },
    async deleteMember(storeId: string, accountId: string, tx: Executor) {
      return tx
        .deleteFrom("store_members")
        .where("store_id", "=", storeId)
        .where("account_id", "=", accountId)
        .returning("account_id")
        .executeTakeFirst();
    },
    /** Members and unexpired open invitations: the seats MAX_STAFF_PER_STORE bounds. */
    async seatsTaken(storeId: string, now: Date, tx: Executor) {
      const row = await sql<{ n: string | number }>`
        SELECT (SELECT count(*) FROM store_members WHERE store_id = ${storeId})
             + (SELECT count(*) FROM store_invitations
                 WHERE store_id = ${storeId} AND accepted_at IS NULL AND expires_at > ${now}) AS n`.execute(
        tx,
      );
      return Number(row.rows[0]?.n ?? 0);
    },
    /** The store's open invitations (expired ones included, until replaced or revoked), newest first. */
    async openInvitations(storeId: string, tx: Executor = db) {
      return tx
        .selectFrom("store_invitations as i")
        .leftJoin("accounts", "accounts.id", "i.invited_by")
        .select([
          "i.id",
          "i.email",
          "i.role",
          "i.created_at",
          "i.expires_at",
          "accounts.name as invited_by_name",
        ])
        .where("i.store_id", "=", storeId)
        .where("i.accepted_at", "is", null)
        .orderBy("i.created_at", "desc")
        .orderBy("i.id")
        .limit(500)
        .execute();
    },
    /** Removes the open invitation to this address (inviting again replaces it). */
    async deleteOpenInvitationTo(storeId: string, email: string, tx: Executor) {
      await tx
        .deleteFrom("store_invitations")
        .where("store_id", "=", storeId)
        .where(sql<string>`lower(email)`, "=", email.toLowerCase())
        .where("accepted_at", "is", null)
        .execute();
    },
    async insertInvitation(
      row: {
        store_id: string;
        id: string;
        email: string;
        role: StaffRole;
        token_hash: string;
        invited_by: string;
        created_at: Date;
        expires_at: Date;
      },
      tx: Executor,
    ) {
      await tx.insertInto("store_invitations").values(row).execute();
    },
    async deleteOpenInvitation(storeId: string, id: string, tx: Executor = db) {
      return tx
        .deleteFrom("store_invitations")
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .where("accepted_at", "is", null)
        .returning("id")
        .executeTakeFirst();
    },
    /** An open invitation by its token's hash, with its store's name and who sent it. */
    async findOpenByToken(tokenHash: string, tx: Executor = db) {
      return tx
        .selectFrom("store_invitations as i")
        .innerJoin("stores", "stores.id", "i.store_id")
        .leftJoin("accounts", "accounts.id", "i.invited_by")
        .select([
          "i.store_id",
          "i.id",
          "i.email",
          "i.role",
          "i.expires_at",
          "stores.name as store_name",
          "stores.slug as store_slug",
          "accounts.name as invited_by_name",
        ])
        .where("i.token_hash", "=", tokenHash)
        .where("i.accepted_at", "is", null)
        .executeTakeFirst();
    },
    /**
     * Uses the invitation: one statement, so of two acceptances of one token exactly one finds it
     * open (the other's UPDATE waits on the row, then sees accepted_at set and matches nothing).
     */
    async claim(tokenHash: string, accountId: string, now: Date, tx: Executor) {
      return tx
        .updateTable("store_invitations")
        .set({ accepted_at: now, accepted_by: accountId })
        .where("token_hash", "=", tokenHash)
        .where("accepted_at", "is", null)
        .where("expires_at", ">", now)
        .returning(["store_id", "id", "email", "role", "invited_by"])
        .executeTakeFirst();
    },
  };
}
export type StaffRepo = ReturnType<typeof createStaffRepo>;
