import { InstallationStatus, SECRET_PREFIX } from "../../contracts/index.ts";
import { parseScopeParam, type Scope } from "../../contracts/scopes.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { AppRow, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { AppError } from "../../lib/errors.ts";
import { newId, newSecretOf } from "../../lib/ids.ts";
import type { AppService } from "../apps/apps-service.ts";
import { pickStore } from "../stores/stores-repo.ts";
import type { AccessCache } from "./access-cache.ts";
import type { OAuthRepo } from "./oauth-repo.ts";
import { verifyPkce } from "./pkce.ts";
import { afterRefusedSpend, REUSE_MESSAGE, rotate, type SealedTokens } from "./refresh-rotation.ts";

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  tokenType: "Bearer";
  expiresIn: number;
  refreshTokenExpiresIn: number;
  scopes: Scope[];
  store: { slug: string };
}

export interface AccessContext {
  store: Store;
  installationId: string;
  appId: string;
  grantId: string;
  scopes: Scope[];
  /** When the access token expires (ms since the epoch): a long-lived stream ends then. */
  expiresAt: number;
  /** The app's pinned API version: what a request without Api-Version is served at. */
  apiVersion: string;
}

export interface TokenTtls {
  accessSeconds: number;
  refreshSeconds: number;
  codeSeconds: number;
  /**
   * How long after a refresh presenting the spent refresh token again returns the same pair, while
   * that pair is unused (REFRESH_REPLAY_SECONDS).
   */
  replaySeconds: number;
}

const invalidGrant = (message: string) => new AppError("INVALID_GRANT", { message });

/**
 * The token rules: authorization codes (10 minutes, single use, bound to client, store, redirect
 * URI, scopes and PKCE challenge), access tokens (1 hour) and single-use refresh tokens (30 days)
 * in families, reuse detection that revokes a family, and access-token authentication. The
 * refresh-token rule itself (rotation, reuse, replay, why a refresh was refused) is
 * refresh-rotation.ts; this service composes it with client authentication and the statements.
 */
export function createTokenService(deps: {
  db: Db;
  repo: OAuthRepo;
  clock: Clock;
  ttl: TokenTtls;
  /** Client authentication (credential guard, constant-time compare) for the refresh statement. */
  clients: Pick<AppService, "authenticateClient" | "authenticateClientWith">;
  /** Verified access tokens (access-cache.ts); every revocation here waits it out before answering. */
  cache: AccessCache<AccessContext>;
}) {
  const { db, repo, clock, ttl, cache } = deps;

  const pairOf = (tokens: SealedTokens, scopes: Scope[], slug: string): TokenPair => ({
    ...tokens,
    tokenType: "Bearer",
    expiresIn: ttl.accessSeconds,
    refreshTokenExpiresIn: ttl.refreshSeconds,
    scopes,
    store: { slug },
  });

  async function issuePair(
    tx: Executor,
    grant: { store_id: string; id: string; scopes: string[] },
    slug: string,
    now: Date,
    /** A narrower set for the access token (a refresh that asked for fewer scopes); null: the grant's. */
    accessScopes: Scope[] | null = null,
  ): Promise<{ pair: TokenPair; accessHash: string; refreshHash: string }> {
    const accessToken = newSecretOf("accessToken");
    const refreshToken = newSecretOf("refreshToken");
    const accessHash = sha256Hex(accessToken);
    const refreshHash = sha256Hex(refreshToken);
    await repo.insertTokens(
      {
        token_hash: accessHash,
        store_id: grant.store_id,
        grant_id: grant.id,
        created_at: now,
        expires_at: new Date(now.getTime() + ttl.accessSeconds * 1000),
        scopes: accessScopes,
      },
      {
        token_hash: refreshHash,
        store_id: grant.store_id,
        grant_id: grant.id,
        created_at: now,
        expires_at: new Date(now.getTime() + ttl.refreshSeconds * 1000),
      },
      tx,
    );
    return {
      pair: {
        accessToken,
        refreshToken,
        tokenType: "Bearer",
        expiresIn: ttl.accessSeconds,
        refreshTokenExpiresIn: ttl.refreshSeconds,
        // RFC 6749 5.1: `scope` is the access token's. The refresh token keeps the grant's (section 6).
        scopes: accessScopes ?? (grant.scopes as Scope[]),
        store: { slug },
      },
      accessHash,
      refreshHash,
    };
  }

  return {
    /** Stores a new authorization code for an approved consent; returns the code (shown once, in the redirect). */
    async createCode(
      input: {
        storeId: string;
        installationId: string;
        appId: string;
        redirectUri: string;
        scopes: Scope[];
        codeChallenge: string | null;
      },
      tx: Executor = db,
    ): Promise<string> {
      const code = newSecretOf("authorizationCode");
      const now = clock.now();
      await repo.insertCode(
        {
          code_hash: sha256Hex(code),
          store_id: input.storeId,
          installation_id: input.installationId,
          app_id: input.appId,
          redirect_uri: input.redirectUri,
          scopes: input.scopes,
          code_challenge: input.codeChallenge,
          created_at: now,
          expires_at: new Date(now.getTime() + ttl.codeSeconds * 1000),
        },
        tx,
      );
      return code;
    },

    /**
     * Trades an authorization code for a token pair. The code is consumed only when every binding
     * matches; presenting a consumed code again revokes every token issued from it (RFC 6749 4.1.2).
     */
    async exchangeCode(
      app: AppRow,
      input: {
        code: string;
        redirectUri: string;
        slug?: string | undefined;
        codeVerifier?: string | undefined;
      },
    ): Promise<TokenPair> {
      const codeHash = sha256Hex(input.code);
      const now = clock.now();
      const outcome = await db.transaction().execute(async (tx) => {
        const code = await repo.redeemCode(codeHash, now, tx);
        if (!code) return null;
        const fail = (message: string): never => {
          // Throwing rolls the redemption back: a request with a wrong binding does not burn the code.
          throw invalidGrant(message);
        };
        if (code.app_id !== app.id) fail("The authorization code was not issued to this client.");
        if (code.expires_at.getTime() <= now.getTime()) fail("The authorization code has expired.");
        if (code.redirect_uri !== input.redirectUri)
          fail("The redirect URI does not match the authorization request.");
        if (code.code_challenge && !verifyPkce(code.code_challenge, input.codeVerifier)) {
          fail("The PKCE code verifier does not match the code challenge.");
        }
        // RFC 9700 2.1.1: a verifier for a code issued without a challenge is refused, or an
        // attacker who injects a stolen code into a PKCE client's session would get it redeemed.
        if (!code.code_challenge && input.codeVerifier !== undefined) {
          fail("A code_verifier was sent, but the authorization request had no code_challenge.");
        }
        const grantId = newId("grant");
        await repo.insertGrant(
          {
            store_id: code.store_id,
            id: grantId,
            installation_id: code.installation_id,
            app_id: app.id,
            scopes: code.scopes,
            code_hash: codeHash,
            created_at: now,
          },
          tx,
        );
        const grant = await repo.findGrantForUpdate(code.store_id, grantId, tx);
        if (grant?.installation_status !== InstallationStatus.active)
          fail("The app is no longer installed in this store.");
        if (input.slug !== undefined && grant!.slug !== input.slug)
          fail("The store slug does not match the authorization.");
        return (await issuePair(tx, grant!, grant!.slug, now)).pair;
      });
      if (outcome) return outcome;
      const existing = await repo.findCode(codeHash);
      if (existing?.redeemed_at && existing.app_id === app.id) {
        await repo.revokeGrantsOfCode(codeHash, "code_reuse", now);
        await cache.revoked();
        throw invalidGrant("The authorization code was already used; tokens issued from it are revoked.");
      }
      throw invalidGrant("The authorization code is invalid.");
    },

    /**
     * Authenticates the client and trades a refresh token for a new pair; the presented token is
     * spent. Presenting a spent token again revokes its whole family (RFC 9700 reuse detection),
     * with one exception: presenting it again with the same client and store, within
     * `replaySeconds`, while the pair that exchange issued is still completely unused (neither token
     * presented), is answered with that same pair. No second pair ever exists, so single use holds;
     * an app whose refresh response was lost simply retries, with or without an Idempotency-Key,
     * and concurrent refreshes with one token all receive the one pair.
     *
     * `scope` (RFC 6749 section 6) narrows the new access token to those scopes; a scope the grant
     * does not hold is INVALID_SCOPE and leaves the refresh token unspent. The new refresh token
     * keeps the grant's scopes, as section 6 requires, so a later refresh may ask for them again.
     *
     * A successful refresh is one database statement (client lookup, every check, the spend and
     * both inserts: spendRefreshToken); only a refused one reads again to say why.
     */
    async refresh(
      client: { clientId: string; clientSecret: string; ip: string },
      input: {
        refreshToken: string;
        slug?: string | undefined;
        idempotencyKey?: string | undefined;
        scope?: string | undefined;
      },
    ): Promise<TokenPair> {
      const tokenHash = sha256Hex(input.refreshToken);
      const now = clock.now();
      const requested = input.scope === undefined ? null : parseScopeParam(input.scope);
      if (input.scope !== undefined && !requested) {
        await deps.clients.authenticateClient(client.clientId, client.clientSecret, client.ip);
        throw new AppError("INVALID_SCOPE", { message: "The scope parameter names an unknown scope." });
      }
      const rotation = rotate(input.refreshToken, now, ttl);
      const { app, result: issued } = await deps.clients.authenticateClientWith(
        client.clientId,
        client.clientSecret,
        client.ip,
        async (clientId, secretHash) => {
          const { app, issued } = await repo.spendRefreshToken({
            clientId,
            secretHash,
            tokenHash,
            now,
            slug: input.slug ?? null,
            scopes: requested,
            access: rotation.access,
            refresh: rotation.refresh,
            replay: rotation.replay,
          });
          return { app, result: issued };
        },
      );
      if (issued) {
        // RFC 6749 5.1: `scope` is the access token's. The refresh token keeps the grant's (section 6).
        return pairOf(rotation.tokens, issued.accessScopes ?? issued.grantScopes, issued.slug);
      }

      // Not spent: say why, from a fresh read (the statement's snapshot may predate a concurrent winner).
      const refused = afterRefusedSpend(await repo.findRefreshTokenState(tokenHash), {
        appId: app.id,
        now,
        refreshToken: input.refreshToken,
        slug: input.slug,
        requested,
        idempotencyKey: input.idempotencyKey,
        replaySeconds: ttl.replaySeconds,
      });
      if (refused.kind === "refused") throw refused.error;
      if (refused.kind === "replay") return pairOf(refused.tokens, refused.scopes, refused.slug);
      await repo.revokeGrant(refused.storeId, refused.grantId, "refresh_token_reuse", now);
      await cache.revoked();
      throw invalidGrant(REUSE_MESSAGE);
    },

    /** RFC 7009: revokes a refresh token's family, or one access token. Unknown tokens are ignored. */
    async revoke(app: AppRow, token: string): Promise<void> {
      const hash = sha256Hex(token);
      const now = clock.now();
      if (token.startsWith(`${SECRET_PREFIX.refreshToken}_`)) {
        const refresh = await repo.findRefreshToken(hash);
        if (refresh && refresh.app_id === app.id)
          await repo.revokeGrant(refresh.store_id, refresh.grant_id, "revoked_by_client", now);
      } else if (token.startsWith(`${SECRET_PREFIX.accessToken}_`))
        await repo.revokeAccessToken(hash, app.id, now);
      // Every answer waits, found or not: the time taken says nothing about the token.
      await cache.revoked();
    },

    /** The store, installation and scopes behind a bearer token; INVALID_TOKEN for anything else. */
    async authenticate(token: string): Promise<AccessContext> {
      const invalid = () =>
        new AppError("INVALID_TOKEN", {
          headers: { "www-authenticate": 'Bearer realm="merchant-platform", error="invalid_token"' },
        });
      if (!token.startsWith(`${SECRET_PREFIX.accessToken}_`) || token.length > 100) throw invalid();
      const hash = sha256Hex(token);
      // Taken before the read: an entry is trusted for cache.ttlMs from here (access-cache.ts).
      const started = cache.now();
      const known = cache.get(hash, started);
      if (known) {
        if (known.expiresAt <= clock.now().getTime()) throw invalid();
        return known.value;
      }
      const row = await repo.findAccessToken(hash);
      const now = clock.now();
      if (
        !row ||
        row.token_revoked_at ||
        row.grant_revoked_at ||
        row.installation_status !== InstallationStatus.active ||
        row.token_expires_at.getTime() <= now.getTime()
      ) {
        throw invalid();
      }
      if (!row.token_first_used_at) await repo.markAccessTokenUsed(hash, now);
      // Frozen: one object now serves every request that presents this token for a while.
      const access: AccessContext = Object.freeze({
        store: Object.freeze(pickStore(row)),
        installationId: row.installation_id,
        appId: row.app_id,
        grantId: row.grant_id,
        scopes: Object.freeze((row.token_scopes ?? row.grant_scopes) as Scope[]) as Scope[],
        expiresAt: row.token_expires_at.getTime(),
        apiVersion: row.app_api_version,
      });
      cache.set(hash, access, row.token_expires_at.getTime(), started);
      return access;
    },
  };
}
export type TokenService = ReturnType<typeof createTokenService>;
