import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { InstallationStatus } from "../../contracts/index.ts";
import type { Scope } from "../../contracts/scopes.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { AppError } from "../../lib/errors.ts";
import { newSecretOf } from "../../lib/ids.ts";
import type { OAuthRepo, RefreshSpend } from "./oauth-repo.ts";

/**
 * The refresh-token rule, apart from the statements that apply it (oauth-repo.ts) and the service
 * that composes them (token-service.ts):
 * - rotation: every refresh spends the presented token and issues a new pair (rotate());
 * - single use: only the one statement that spends a token issues anything (spendRefreshToken);
 * - reuse detection (RFC 9700): presenting a spent token again revokes its whole family;
 * - the one exception, a replay: the same token, client, store and scopes again within
 *   `replaySeconds`, while the pair that exchange issued is completely unused, gets that same
 *   pair (sealed at the refresh under a key only the presenter can derive), so a lost response
 *   can be retried and no second pair ever exists;
 * - and, for a token that was not spent, the reason in words (afterRefusedSpend()).
 */

/** The secrets of a pair: what a refresh seals for its replay. */
export interface SealedTokens {
  accessToken: string;
  refreshToken: string;
}

/**
 * The two tokens a refresh issued are encrypted under a key only the refresher can derive (from
 * the refresh token it presented, which is stored only as a hash), so presenting that token again
 * after a lost response can be answered with the very same pair. The rest of the answer (scopes,
 * slug) is read again from the database: the statement that issues the pair learns it only then.
 */
function replayKey(refreshToken: string): Buffer {
  return Buffer.from(hkdfSync("sha256", refreshToken, "", "mp-refresh-replay-v2", 32));
}
/** The key of pairs sealed before replays needed no Idempotency-Key (rows of the last 2 minutes at the upgrade). */
export function legacyRetryKey(refreshToken: string, idempotencyKey: string): Buffer {
  return Buffer.from(hkdfSync("sha256", refreshToken, idempotencyKey, "mp-refresh-retry-v1", 32));
}
export function sealTokens(key: Buffer, tokens: SealedTokens): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const plain = JSON.stringify({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken });
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url")).join(".");
}
/** The sealed tokens; null if the key does not open them. (Rows sealed before hold the whole pair: its tokens are read the same way.) */
export function openTokens(key: Buffer, sealed: string): SealedTokens | null {
  try {
    const [iv, tag, body] = sealed.split(".").map((p) => Buffer.from(p, "base64url"));
    const decipher = createDecipheriv("aes-256-gcm", key, iv!);
    decipher.setAuthTag(tag!);
    const opened = JSON.parse(Buffer.concat([decipher.update(body!), decipher.final()]).toString("utf8"));
    return typeof opened?.accessToken === "string" && typeof opened?.refreshToken === "string"
      ? { accessToken: opened.accessToken, refreshToken: opened.refreshToken }
      : null;
  } catch {
    return null;
  }
}

/**
 * A rotation of `presentedRefreshToken` at `now`: the new pair, and what the spending statement
 * stores of it (hashes, expiries, and the pair sealed for a replay).
 */
export function rotate(
  presentedRefreshToken: string,
  now: Date,
  ttl: { accessSeconds: number; refreshSeconds: number },
): { tokens: SealedTokens } & Pick<RefreshSpend, "access" | "refresh" | "replay"> {
  const tokens: SealedTokens = {
    accessToken: newSecretOf("accessToken"),
    refreshToken: newSecretOf("refreshToken"),
  };
  return {
    tokens,
    access: {
      hash: sha256Hex(tokens.accessToken),
      expiresAt: new Date(now.getTime() + ttl.accessSeconds * 1000),
    },
    refresh: {
      hash: sha256Hex(tokens.refreshToken),
      expiresAt: new Date(now.getTime() + ttl.refreshSeconds * 1000),
    },
    // Every refresh keeps its pair sealed for a replay.
    replay: { ciphertext: sealTokens(replayKey(presentedRefreshToken), tokens) },
  };
}

/** A refresh token as findRefreshTokenState reads it, afresh, after a refresh spent nothing. */
export type RefreshTokenState = NonNullable<Awaited<ReturnType<OAuthRepo["findRefreshTokenState"]>>>;

/** What a refused refresh comes to: an error to answer, a replay of the pair, or reuse (the family is revoked). */
export type RefusedRefresh =
  | { kind: "refused"; error: AppError }
  | { kind: "replay"; tokens: SealedTokens; scopes: Scope[]; slug: string }
  | { kind: "reuse"; storeId: string; grantId: string };

const invalidGrant = (message: string) => new AppError("INVALID_GRANT", { message });
const sameScopes = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((s) => b.includes(s));

/** The message a refresh refused for reuse answers with, once the family is revoked. */
export const REUSE_MESSAGE = "The refresh token was already used; its token family is revoked.";

/**
 * Why the refresh statement spent nothing, from a fresh read of the token (`token`: undefined when
 * no such token exists), and what to do about it. Pure: the caller revokes the family on reuse.
 */
export function afterRefusedSpend(
  token: RefreshTokenState | undefined,
  request: {
    /** The authenticated client's app. */
    appId: string;
    now: Date;
    refreshToken: string;
    slug?: string | undefined;
    /** The scopes a narrowing refresh asked for; null: the grant's. */
    requested: Scope[] | null;
    idempotencyKey?: string | undefined;
    replaySeconds: number;
  },
): RefusedRefresh {
  const refused = (message: string): RefusedRefresh => ({ kind: "refused", error: invalidGrant(message) });
  const now = request.now.getTime();
  if (token && !token.used_at && token.expires_at.getTime() > now) {
    // Unused: a wrong binding. Nothing was spent, so a wrong client or slug cannot burn the token.
    if (token.app_id !== request.appId) return refused("The refresh token was not issued to this client.");
    if (token.grant_revoked_at) return refused("The refresh token has been revoked.");
    if (token.installation_status !== InstallationStatus.active)
      return refused("The app is no longer installed in this store.");
    if (request.slug !== undefined && token.slug !== request.slug)
      return refused("The store slug does not match the token.");
    const granted = token.grant_scopes as Scope[];
    const beyond = (request.requested ?? []).filter((s) => !granted.includes(s));
    if (beyond.length)
      return {
        kind: "refused",
        error: new AppError("INVALID_SCOPE", {
          message: `The grant does not include: ${beyond.join(", ")}.`,
        }),
      };
    // Every rule holds now, yet the statement spent nothing: a token's state only ever moves
    // towards unusable (slugs never change), so this cannot happen; refuse rather than guess.
    return refused("The refresh token is invalid.");
  }
  if (!token || token.app_id !== request.appId) return refused("The refresh token is invalid.");
  if (!token.used_at) return refused("The refresh token has expired.");
  if (token.grant_revoked_at) return refused("The refresh token has been revoked.");
  const pairUnused =
    token.successor_access_found !== null &&
    token.successor_access_used_at === null &&
    token.successor_access_revoked_at === null &&
    token.successor_refresh_found !== null &&
    token.successor_refresh_used_at === null;
  // A replay: the same token, client and store again while the pair it was exchanged for is
  // completely unused (neither token presented yet) and no later than replaySeconds: the
  // answer to the first presentation was lost (a time-out, a crash before saving, two of the
  // app's workers racing). It gets that same pair; nothing new is issued.
  const replayable =
    token.retry_ciphertext !== null &&
    now - token.used_at.getTime() <= request.replaySeconds * 1000 &&
    pairUnused;
  if (replayable) {
    const legacy = token.retry_idempotency_hash !== null;
    const sealed = legacy
      ? request.idempotencyKey !== undefined &&
        token.retry_idempotency_hash === sha256Hex(request.idempotencyKey)
        ? openTokens(legacyRetryKey(request.refreshToken, request.idempotencyKey), token.retry_ciphertext!)
        : null
      : openTokens(replayKey(request.refreshToken), token.retry_ciphertext!);
    const scopes = (token.successor_access_scopes ?? token.grant_scopes) as Scope[];
    const sameRequest =
      sealed &&
      (request.slug === undefined || token.slug === request.slug) &&
      sameScopes(scopes, request.requested ?? (token.grant_scopes as Scope[]));
    if (sameRequest) return { kind: "replay", tokens: sealed, scopes, slug: token.slug };
  }
  return { kind: "reuse", storeId: token.store_id, grantId: token.grant_id };
}
