import { sql } from "kysely";
import type { Scope } from "../../contracts/scopes.ts";
import type { Executor } from "../../db/client.ts";
import type { AppRow } from "../../db/schema.ts";

/** What one refresh statement does when everything holds (see spendRefreshToken). */
export interface RefreshSpend {
  clientId: string;
  /** SHA-256 of the presented client secret: nothing is spent unless the app's hash is this. */
  secretHash: string;
  tokenHash: string;
  now: Date;
  /** The store slug the request names, if it names one. */
  slug: string | null;
  /** The scopes a narrowing refresh asks for (sorted, distinct); null: the grant's. */
  scopes: Scope[] | null;
  access: { hash: string; expiresAt: Date };
  refresh: { hash: string; expiresAt: Date };
  /** The issued pair, sealed under a key derived from the presented token, for a replay (refresh-rotation.ts). */
  replay: { ciphertext: string };
}

/** The client's app row (undefined: no such client) and, when the token was spent, what was issued. */
export interface RefreshSpendResult {
  app: AppRow | undefined;
  issued: {
    slug: string;
    grantScopes: Scope[];
    /** The new access token's own scopes; null: the grant's. */
    accessScopes: Scope[] | null;
  } | null;
}

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
    /**
     * The whole successful refresh in one statement (one round trip, its own transaction): finds
     * the client's app, and spends the presented refresh token only if every rule holds (the
     * client's secret hash, the token unused and unexpired, its grant this app's and unrevoked,
     * the installation active, the slug and the requested scopes within the grant), inserting the
     * new access and refresh tokens and recording them on the spent token for a replay.
     * When anything fails, nothing changes and `issued` is null: the caller finds out why with
     * findRefreshTokenState, which reads afresh.
     *
     * Single use: the UPDATE's `used_at IS NULL` is re-checked on the newest row version after a
     * concurrent refresher commits, so of concurrent refreshes exactly one spends the token. The
     * grant row is locked as a revocation's UPDATE locks it: a revocation or uninstall that
     * committed first is seen (the lock re-reads the grant), one that comes later waits for this
     * refresh and revokes the tokens it issued too.
     */
    async spendRefreshToken(input: RefreshSpend, tx: Executor = db): Promise<RefreshSpendResult> {
      const scopes = input.scopes && JSON.stringify(input.scopes);
      // Written for a cheap plan as much as for one round trip: planning a statement costs more
      // than running it here, and every join and CTE adds to it (no input CTE, no client join).
      const { rows } = await sql<
        AppRow & {
          issued_slug: string | null;
          issued_grant_scopes: Scope[] | null;
          issued_access_scopes: Scope[] | null;
        }
      >`
        WITH grant_ AS (
          SELECT g.store_id, g.id, g.scopes, s.slug
          FROM refresh_tokens r
          JOIN token_grants g ON g.store_id = r.store_id AND g.id = r.grant_id
          JOIN installations i ON i.store_id = g.store_id AND i.id = g.installation_id
          JOIN stores s ON s.id = g.store_id
          WHERE r.token_hash = ${input.tokenHash}
            AND g.app_id = (
              SELECT id FROM apps WHERE client_id = ${input.clientId} AND client_secret_hash = ${input.secretHash}
            )
            AND g.revoked_at IS NULL
            AND i.status = 'active'
            AND (${input.slug}::text IS NULL OR s.slug = ${input.slug})
            AND (${scopes}::jsonb IS NULL OR g.scopes @> ${scopes}::jsonb)
          FOR NO KEY UPDATE OF g
        ), spent AS (
          UPDATE refresh_tokens r
          SET used_at = ${input.now},
              successor_access_hash = ${input.access.hash},
              successor_refresh_hash = ${input.refresh.hash},
              -- Set only by versions that sealed under the Idempotency-Key too (read for those rows).
              retry_idempotency_hash = NULL,
              retry_ciphertext = ${input.replay.ciphertext}
          FROM grant_ g
          WHERE r.token_hash = ${input.tokenHash}
            AND r.store_id = g.store_id AND r.grant_id = g.id
            AND r.used_at IS NULL
            AND r.expires_at > ${input.now}
          RETURNING r.store_id, r.grant_id, g.scopes, g.slug
        ), new_access AS (
          INSERT INTO access_tokens (token_hash, store_id, grant_id, created_at, expires_at, scopes)
          -- null: the grant's scopes. Asking for all of them is not narrowing (grant_ already
          -- checked the request is within the grant, so containment both ways is the same set).
          SELECT ${input.access.hash}::text, store_id, grant_id, ${input.now}::timestamptz,
                 ${input.access.expiresAt}::timestamptz,
                 CASE WHEN ${scopes}::jsonb IS NULL OR scopes <@ ${scopes}::jsonb THEN NULL ELSE ${scopes}::jsonb END
          FROM spent
          RETURNING scopes
        ), new_refresh AS (
          INSERT INTO refresh_tokens (token_hash, store_id, grant_id, created_at, expires_at)
          SELECT ${input.refresh.hash}::text, store_id, grant_id, ${input.now}::timestamptz,
                 ${input.refresh.expiresAt}::timestamptz
          FROM spent
        )
        SELECT a.*, spent.slug AS issued_slug, spent.scopes AS issued_grant_scopes,
               (SELECT scopes FROM new_access) AS issued_access_scopes
        FROM apps a LEFT JOIN spent ON true
        WHERE a.client_id = ${input.clientId}
      `.execute(tx);
      const row = rows[0];
      if (!row) return { app: undefined, issued: null };
      const { issued_slug, issued_grant_scopes, issued_access_scopes, ...app } = row;
      return {
        app,
        issued:
          issued_slug === null
            ? null
            : { slug: issued_slug, grantScopes: issued_grant_scopes!, accessScopes: issued_access_scopes },
      };
    },
    /**
     * Everything that decides why a refresh token was not spent, read afresh: the token, its
     * grant, installation and store, and the pair it was exchanged for (if it was).
     */
    async findRefreshTokenState(tokenHash: string, tx: Executor = db) {
      return tx
        .selectFrom("refresh_tokens as r")
        .innerJoin("token_grants as g", (j) =>
          j.onRef("g.store_id", "=", "r.store_id").onRef("g.id", "=", "r.grant_id"),
        )
        .innerJoin("installations as i", (j) =>
          j.onRef("i.store_id", "=", "g.store_id").onRef("i.id", "=", "g.installation_id"),
        )
        .innerJoin("stores as s", "s.id", "g.store_id")
        .leftJoin("access_tokens as sa", "sa.token_hash", "r.successor_access_hash")
        .leftJoin("refresh_tokens as sr", "sr.token_hash", "r.successor_refresh_hash")
        .selectAll("r")
        .select([
          "g.app_id",
          "g.revoked_at as grant_revoked_at",
          "g.scopes as grant_scopes",
          "i.status as installation_status",
          "s.slug",
          "sa.token_hash as successor_access_found",
          "sa.first_used_at as successor_access_used_at",
          "sa.revoked_at as successor_access_revoked_at",
          "sa.scopes as successor_access_scopes",
          "sr.token_hash as successor_refresh_found",
          "sr.used_at as successor_refresh_used_at",
        ])
        .where("r.token_hash", "=", tokenHash)
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
        .innerJoin("apps as a", "a.id", "g.app_id")
        .selectAll("s")
        .select([
          "a.api_version as app_api_version",
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
