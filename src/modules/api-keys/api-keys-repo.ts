import { sql } from "kysely";
import type { Executor } from "../../db/client.ts";
import type { ApiKey } from "../../db/schema.ts";

const LIST_LIMIT = 1000;

export function createApiKeyRepo(db: Executor) {
  return {
    async insert(row: ApiKey, tx: Executor = db) {
      return tx
        .insertInto("api_keys")
        .values({ ...row, scopes: JSON.stringify(row.scopes) })
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    /**
     * Usable keys first (at most MAX_ACTIVE_KEYS_PER_STORE of them), then revoked and expired ones,
     * newest first within each group: the bound can only ever drop old, dead keys from the list.
     */
    async listByStore(storeId: string, now: Date, tx: Executor = db) {
      return tx
        .selectFrom("api_keys")
        .selectAll()
        .where("store_id", "=", storeId)
        .orderBy(sql`(revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now}))`, "desc")
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(LIST_LIMIT)
        .execute();
    },
    async countActive(storeId: string, now: Date, tx: Executor = db) {
      const row = await tx
        .selectFrom("api_keys")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("store_id", "=", storeId)
        .where("revoked_at", "is", null)
        .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /**
     * Serialises key creation per store until the transaction ends, so the active-key cap holds
     * under concurrent creates. NO KEY UPDATE: it does not block inserts into tenant tables, whose
     * foreign-key checks take KEY SHARE on the store row.
     */
    async lockStore(storeId: string, tx: Executor) {
      await tx.selectFrom("stores").select("id").where("id", "=", storeId).forNoKeyUpdate().execute();
    },
    /** The key with its store, for authentication. */
    async findWithStore(id: string, tx: Executor = db) {
      return tx
        .selectFrom("api_keys as k")
        .innerJoin("stores as s", "s.id", "k.store_id")
        .selectAll("s")
        .select([
          "k.id as key_id",
          "k.secret_hash",
          "k.scopes",
          "k.expires_at",
          "k.revoked_at",
          "k.last_used_at",
          "k.api_version",
        ])
        .where("k.id", "=", id)
        .executeTakeFirst();
    },
    async revoke(storeId: string, id: string, now: Date, tx: Executor = db) {
      return tx
        .updateTable("api_keys")
        .set({ revoked_at: now })
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .where("revoked_at", "is", null)
        .returningAll()
        .executeTakeFirst();
    },
    /** Pins the key pair to a version; undefined for another store's key (or none). */
    async setApiVersion(storeId: string, id: string, apiVersion: string, tx: Executor = db) {
      return tx
        .updateTable("api_keys")
        .set({ api_version: apiVersion })
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
    },
    async find(storeId: string, id: string, tx: Executor = db) {
      return tx
        .selectFrom("api_keys")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .executeTakeFirst();
    },
    async touch(storeId: string, id: string, now: Date, tx: Executor = db) {
      await tx
        .updateTable("api_keys")
        .set({ last_used_at: now })
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .execute();
    },
  };
}
export type ApiKeyRepo = ReturnType<typeof createApiKeyRepo>;
