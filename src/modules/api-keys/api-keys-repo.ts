import type { Executor } from "../../db/client.ts";
import type { ApiKey } from "../../db/schema.ts";

export function createApiKeyRepo(db: Executor) {
  return {
    async insert(row: ApiKey, tx: Executor = db) {
      return tx
        .insertInto("api_keys")
        .values({ ...row, scopes: JSON.stringify(row.scopes) })
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    async listByStore(storeId: string, tx: Executor = db) {
      return tx
        .selectFrom("api_keys")
        .selectAll()
        .where("store_id", "=", storeId)
        .orderBy("created_at")
        .orderBy("id")
        .limit(1000)
        .execute();
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
