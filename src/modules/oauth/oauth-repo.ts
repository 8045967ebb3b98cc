import type { Executor } from "../../db/client.ts";
import type { Scope } from "../../lib/scopes.ts";

/** Authorization codes, token grants (families), access and refresh tokens. Everything keyed by hash. */
export function createOAuthRepo(db: Executor) {
  return {
    async insertCode(
      row: {
        code_hash: string;
        store_id: string;
        installation_id: string;
        app_id: string;
        redirect_uri: string;
        scopes: Scope[];
        code_challenge: string | null;
        created_at: Date;
        expires_at: Date;
      },
      tx: Executor = db,
    ) {
      await tx
        .insertInto("authorization_codes")
        .values({ ...row, scopes: JSON.stringify(row.scopes) })
        .execute();
    },
    /**
     * Marks the code redeemed if nobody has. One statement on purpose: of concurrent redeemers the
     * row lock lets exactly one see `redeemed_at IS NULL`.
     */
    async redeemCode(codeHash: string, now: Date, tx: Executor) {
      return tx
        .updateTable("authorization_codes")
        .set({ redeemed_at: now })
        .where("code_hash", "=", codeHash)
        .where("redeemed_at", "is", null)
        .returningAll()
        .executeTakeFirst();
    },
    async findCode(codeHash: string, tx: Executor = db) {
      return tx
        .selectFrom("authorization_codes")
        .selectAll()
        .where("code_hash", "=", codeHash)
        .executeTakeFirst();
    },
    async insertGrant(
      row: {
        store_id: string;
        id: string;
        installation_id: string;
        app_id: string;
        scopes: Scope[];
        code_hash: string;
        created_at: Date;
      },
      tx: Executor,
    ) {
      await tx
        .insertInto("token_grants")
        .values({ ...row, scopes: JSON.stringify(row.scopes) })
        .execute();
    },
    /** The grant with its installation's status and its store; locked until the transaction ends. */
    async findGrantForUpdate(storeId: string, grantId: string, tx: Executor) {
      return tx
        .selectFrom("token_grants as g")
        .innerJoin("installations as i", (j) =>
          j.onRef("i.store_id", "=", "g.store_id").onRef("i.id", "=", "g.installation_id"),
        )
        .innerJoin("stores as s", "s.id", "g.store_id")
        .select([
          "g.id",
          "g.store_id",
          "g.app_id",
          "g.scopes",
          "g.revoked_at",
          "g.installation_id",
          "i.status as installation_status",
          "s.slug",
        ])
        .where("g.store_id", "=", storeId)
        .where("g.id", "=", grantId)
        .forUpdate("g")
        .executeTakeFirst();
    },
    async revokeGrantsOfCode(codeHash: string, reason: string, now: Date, tx: Executor = db) {
      await tx
        .updateTable("token_grants")
        .set({ revoked_at: now, revoked_reason: reason })
        .where("code_hash", "=", codeHash)
        .where("revoked_at", "is", null)
        .execute();
    },
    async revokeGrant(storeId: string, grantId: string, reason: string, now: Date, tx: Executor = db) {
      await tx
        .updateTable("token_grants")
        .set({ revoked_at: now, revoked_reason: reason })
        .where("store_id", "=", storeId)
        .where("id", "=", grantId)
        .where("revoked_at", "is", null)
        .execute();
    },
    async insertTokens(
      access: {
        token_hash: string;
        store_id: string;
        grant_id: string;
        created_at: Date;
        expires_at: Date;
        /** Null: the grant's scopes. */
        scopes: Scope[] | null;
      },
      refresh: { token_hash: string; store_id: string; grant_id: string; created_at: Date; expires_at: Date },
      tx: Executor,
    ) {
      await tx
        .insertInto("access_tokens")
        .values({ ...access, scopes: access.scopes && JSON.stringify(access.scopes) })
        .execute();
      await tx.insertInto("refresh_tokens").values(refresh).execute();
    },
    /** Marks the refresh token used if it is unused and unexpired. One statement: exactly one concurrent caller wins. */
    async useRefreshToken(tokenHash: string, now: Date, tx: Executor) {
      return tx
        .updateTable("refresh_tokens")
        .set({ used_at: now })
        .where("token_hash", "=", tokenHash)
        .where("used_at", "is", null)
        .where("expires_at", ">", now)
        .returningAll()
        .executeTakeFirst();
    },
    async findRefreshToken(tokenHash: string, tx: Executor = db) {
      return tx
        .selectFrom("refresh_tokens as r")
        .innerJoin("token_grants as g", (j) =>
          j.onRef("g.store_id", "=", "r.store_id").onRef("g.id", "=", "r.grant_id"),
        )
        .selectAll("r")
        .select(["g.app_id", "g.revoked_at as grant_revoked_at", "g.scopes as grant_scopes"])
        .where("r.token_hash", "=", tokenHash)
        .executeTakeFirst();
    },
    async recordSuccessor(
      tokenHash: string,
      successor: {
        access: string;
        refresh: string;
        idempotencyHash: string | null;
        ciphertext: string | null;
      },
      tx: Executor,
    ) {
      await tx
        .updateTable("refresh_tokens")
        .set({
          successor_access_hash: successor.access,
          successor_refresh_hash: successor.refresh,
          retry_idempotency_hash: successor.idempotencyHash,
          retry_ciphertext: successor.ciphertext,
        })
        .where("token_hash", "=", tokenHash)
        .execute();
    },
    /** True when neither token of a pair has been used or revoked. */
    async pairUnused(storeId: string, accessHash: string, refreshHash: string, tx: Executor = db) {
      const access = await tx
        .selectFrom("access_tokens")
        .select(["first_used_at", "revoked_at"])
        .where("token_hash", "=", accessHash)
        .executeTakeFirst();
      const refresh = await tx
        .selectFrom("refresh_tokens")
        .select(["used_at"])
        .where("token_hash", "=", refreshHash)
        .where("store_id", "=", storeId)
        .executeTakeFirst();
      return Boolean(access && !access.first_used_at && !access.revoked_at && refresh && !refresh.used_at);
    },
    /** Everything needed to authorize an Admin API call, in one query. */
    async findAccessToken(tokenHash: string, tx: Executor = db) {
      return tx
        .selectFrom("access_tokens as t")
        .innerJoin("token_grants as g", (j) =>
          j.onRef("g.store_id", "=", "t.store_id").onRef("g.id", "=", "t.grant_id"),
        )
        .innerJoin("installations as i", (j) =>
          j.onRef("i.store_id", "=", "g.store_id").onRef("i.id", "=", "g.installation_id"),
        )
        .innerJoin("stores as s", "s.id", "t.store_id")
        .selectAll("s")
        .select([
          "t.expires_at as token_expires_at",
          "t.revoked_at as token_revoked_at",
          "t.first_used_at as token_first_used_at",
          "g.id as grant_id",
          "g.revoked_at as grant_revoked_at",
          "g.scopes as grant_scopes",
          "t.scopes as token_scopes",
          "g.app_id as app_id",
          "i.id as installation_id",
          "i.status as installation_status",
        ])
        .where("t.token_hash", "=", tokenHash)
        .executeTakeFirst();
    },
    async markAccessTokenUsed(tokenHash: string, now: Date, tx: Executor = db) {
      await tx
        .updateTable("access_tokens")
        .set({ first_used_at: now })
        .where("token_hash", "=", tokenHash)
        .where("first_used_at", "is", null)
        .execute();
    },
    async revokeAccessToken(tokenHash: string, appId: string, now: Date, tx: Executor = db) {
      await tx
        .updateTable("access_tokens")
        .set({ revoked_at: now })
        .where("token_hash", "=", tokenHash)
        .where("revoked_at", "is", null)
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom("token_grants as g")
              .select("g.id")
              .whereRef("g.store_id", "=", "access_tokens.store_id")
              .whereRef("g.id", "=", "access_tokens.grant_id")
              .where("g.app_id", "=", appId),
          ),
        )
        .execute();
    },
  };
}
export type OAuthRepo = ReturnType<typeof createOAuthRepo>;
