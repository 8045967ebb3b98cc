import type { Scope } from "../../contracts/scopes.ts";
import type { Executor } from "../../db/client.ts";
import type { AppRow } from "../../db/schema.ts";

export function createAppRepo(db: Executor) {
  return {
    async insert(
      row: Omit<AppRow, "redirect_uris" | "scopes"> & { redirect_uris: string[]; scopes: Scope[] },
      tx: Executor = db,
    ) {
      return tx
        .insertInto("apps")
        .values({
          ...row,
          redirect_uris: JSON.stringify(row.redirect_uris),
          scopes: JSON.stringify(row.scopes),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    async findByClientId(clientId: string, tx: Executor = db) {
      return tx.selectFrom("apps").selectAll().where("client_id", "=", clientId).executeTakeFirst();
    },
    async findById(id: string, tx: Executor = db) {
      return tx.selectFrom("apps").selectAll().where("id", "=", id).executeTakeFirst();
    },
    async listByOwner(accountId: string, tx: Executor = db) {
      return tx
        .selectFrom("apps")
        .selectAll()
        .where("owner_account_id", "=", accountId)
        .orderBy("created_at")
        .orderBy("id")
        .limit(1000)
        .execute();
    },
    async setSecretHash(appId: string, hash: string, now: Date, tx: Executor = db) {
      return tx
        .updateTable("apps")
        .set({ client_secret_hash: hash, secret_rotated_at: now, updated_at: now })
        .where("id", "=", appId)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
  };
}
export type AppRepo = ReturnType<typeof createAppRepo>;
