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
    /** A live app by its client id: a deleted app is unknown to every caller (OAuth included). */
    async findByClientId(clientId: string, tx: Executor = db) {
      return tx
        .selectFrom("apps")
        .selectAll()
        .where("client_id", "=", clientId)
        .where("deleted_at", "is", null)
        .executeTakeFirst();
    },
    async update(
      appId: string,
      changes: {
        name?: string;
        redirect_uris?: string[];
        scopes?: Scope[];
        privacy_webhook_url?: string | null;
        /** Only when the app has no privacy secret yet (its first endpoint): see setPrivacySecret. */
        privacy_secret_ciphertext?: string;
        /** A new pin, applied only while the pin is still `from` (another change meanwhile: no row). */
        pin?: { from: string; apiVersion: string; previous: string | null; changedAt: Date | null };
      },
      now: Date,
      tx: Executor = db,
    ) {
      let q = tx
        .updateTable("apps")
        .set({
          ...(changes.name !== undefined ? { name: changes.name } : {}),
          ...(changes.redirect_uris !== undefined
            ? { redirect_uris: JSON.stringify(changes.redirect_uris) }
            : {}),
          ...(changes.scopes !== undefined ? { scopes: JSON.stringify(changes.scopes) } : {}),
          ...(changes.privacy_webhook_url !== undefined
            ? { privacy_webhook_url: changes.privacy_webhook_url }
            : {}),
          ...(changes.privacy_secret_ciphertext !== undefined
            ? { privacy_secret_ciphertext: changes.privacy_secret_ciphertext }
            : {}),
          ...(changes.pin
            ? {
                api_version: changes.pin.apiVersion,
                api_version_previous: changes.pin.previous,
                api_version_changed_at: changes.pin.changedAt,
              }
            : {}),
          updated_at: now,
        })
        .where("id", "=", appId);
      // Compare and set: two changes of the pin at once cannot both read the same pin and write.
      if (changes.pin) q = q.where("api_version", "=", changes.pin.from);
      return q.returningAll().executeTakeFirst();
    },
    /**
     * Marks the app deleted and replaces its secret's hash with one no secret has, so no token
     * request (the refresh statement checks the hash itself) can succeed any more.
     */
    async markDeleted(appId: string, unusableHash: string, now: Date, tx: Executor = db) {
      await tx
        .updateTable("apps")
        .set({ deleted_at: now, client_secret_hash: unusableHash, updated_at: now })
        .where("id", "=", appId)
        .execute();
    },
    async findById(id: string, tx: Executor = db) {
      return tx.selectFrom("apps").selectAll().where("id", "=", id).executeTakeFirst();
    },
    async listByOwner(accountId: string, tx: Executor = db) {
      return tx
        .selectFrom("apps")
        .selectAll()
        .where("owner_account_id", "=", accountId)
        .where("deleted_at", "is", null)
        .orderBy("created_at")
        .orderBy("id")
        .limit(1000)
        .execute();
    },
    /**
     * Puts `sealed` in force as the app's privacy secret and keeps the one it replaces as the
     * previous one, stamped `now` (one statement: the previous is exactly the one replaced even
     * when two rotations race). Only for an app that has a privacy secret.
     */
    async rotatePrivacySecret(appId: string, sealed: string, now: Date, tx: Executor = db) {
      return tx
        .updateTable("apps")
        .set((eb) => ({
          privacy_previous_secret_ciphertext: eb.ref("privacy_secret_ciphertext"),
          privacy_secret_ciphertext: sealed,
          privacy_secret_rotated_at: now,
          updated_at: now,
        }))
        .where("id", "=", appId)
        .where("privacy_secret_ciphertext", "is not", null)
        .returningAll()
        .executeTakeFirst();
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
