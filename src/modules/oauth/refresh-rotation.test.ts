import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InstallationStatus, SECRET_PREFIX } from "../../contracts/index.ts";
import { Scope } from "../../contracts/scopes.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import {
  afterRefusedSpend,
  legacyRetryKey,
  openTokens,
  type RefreshTokenState,
  type RefusedRefresh,
  rotate,
  sealTokens,
} from "./refresh-rotation.ts";

const NOW = new Date("2026-11-26T12:00:00.000Z");
const PRESENTED = `${SECRET_PREFIX.refreshToken}_presented`;
const GRANT_SCOPES = [Scope.read_products, Scope.read_orders];

/** The token as a fresh read finds it after the refresh that spent it at `usedAt` issued its pair. */
function spent(overrides: Partial<RefreshTokenState> = {}, usedAt = new Date(NOW.getTime() - 10_000)) {
  const rotation = rotate(PRESENTED, usedAt, { accessSeconds: 3600, refreshSeconds: 30 * 86_400 });
  const state = {
    token_hash: sha256Hex(PRESENTED),
    store_id: "store_1",
    grant_id: "grant_1",
    created_at: new Date(NOW.getTime() - 86_400_000),
    expires_at: new Date(NOW.getTime() + 86_400_000),
    used_at: usedAt,
    successor_access_hash: rotation.access.hash,
    successor_refresh_hash: rotation.refresh.hash,
    retry_idempotency_hash: null,
    retry_ciphertext: rotation.replay.ciphertext,
    app_id: "app_1",
    grant_revoked_at: null,
    grant_scopes: GRANT_SCOPES,
    installation_status: InstallationStatus.active,
    slug: "shop",
    successor_access_found: rotation.access.hash,
    successor_access_used_at: null,
    successor_access_revoked_at: null,
    successor_access_scopes: null,
    successor_refresh_found: rotation.refresh.hash,
    successor_refresh_used_at: null,
    ...overrides,
  } as RefreshTokenState;
  return { state, tokens: rotation.tokens };
}
/** The same token, never spent. */
const unused = (overrides: Partial<RefreshTokenState> = {}) =>
  spent({
    used_at: null,
    successor_access_hash: null,
    successor_refresh_hash: null,
    retry_ciphertext: null,
    successor_access_found: null,
    successor_refresh_found: null,
    ...overrides,
  }).state;

const request = (over: Partial<Parameters<typeof afterRefusedSpend>[1]> = {}) => ({
  appId: "app_1",
  now: NOW,
  refreshToken: PRESENTED,
  requested: null,
  replaySeconds: 60,
  ...over,
});
const refusal = (r: RefusedRefresh) =>
  r.kind === "refused" ? [r.error.code, r.error.message] : r.kind === "reuse" ? ["reuse"] : ["replay"];

describe("rotate", () => {
  it("issues a fresh pair, stores only hashes with their expiries, and seals the pair for the presenter alone", () => {
    const a = rotate(PRESENTED, NOW, { accessSeconds: 3600, refreshSeconds: 86_400 });
    const b = rotate(PRESENTED, NOW, { accessSeconds: 3600, refreshSeconds: 86_400 });
    assert.notEqual(a.tokens.accessToken, b.tokens.accessToken);
    assert.ok(a.tokens.accessToken.startsWith(`${SECRET_PREFIX.accessToken}_`));
    assert.ok(a.tokens.refreshToken.startsWith(`${SECRET_PREFIX.refreshToken}_`));
    assert.equal(a.access.hash, sha256Hex(a.tokens.accessToken));
    assert.equal(a.refresh.hash, sha256Hex(a.tokens.refreshToken));
    assert.equal(a.access.expiresAt.getTime(), NOW.getTime() + 3_600_000);
    assert.equal(a.refresh.expiresAt.getTime(), NOW.getTime() + 86_400_000);
    assert.ok(!a.replay.ciphertext.includes(a.tokens.accessToken));
    const { state } = spent({ retry_ciphertext: a.replay.ciphertext });
    const replay = afterRefusedSpend(state, request());
    assert.deepEqual(replay.kind === "replay" && replay.tokens, a.tokens, "the presenter opens it");
    const other = afterRefusedSpend(state, request({ refreshToken: `${SECRET_PREFIX.refreshToken}_other` }));
    assert.equal(other.kind, "reuse", "any other token cannot");
  });

  it("openTokens refuses a tampered or foreign ciphertext", () => {
    const key = legacyRetryKey(PRESENTED, "idem");
    const sealed = sealTokens(key, { accessToken: "a", refreshToken: "r" });
    assert.deepEqual(openTokens(key, sealed), { accessToken: "a", refreshToken: "r" });
    assert.equal(openTokens(legacyRetryKey(PRESENTED, "other"), sealed), null);
    assert.equal(openTokens(key, `${sealed.slice(0, -2)}AA`), null);
    assert.equal(openTokens(key, "not.a.seal"), null);
  });
});

describe("afterRefusedSpend: a token that was not spent says why, and nothing is revoked", () => {
  it("names the broken binding, in order: client, revocation, installation, store, scopes", () => {
    assert.deepEqual(refusal(afterRefusedSpend(unused(), request({ appId: "app_2" }))), [
      "INVALID_GRANT",
      "The refresh token was not issued to this client.",
    ]);
    assert.deepEqual(refusal(afterRefusedSpend(unused({ grant_revoked_at: NOW }), request())), [
      "INVALID_GRANT",
      "The refresh token has been revoked.",
    ]);
    assert.deepEqual(
      refusal(afterRefusedSpend(unused({ installation_status: InstallationStatus.uninstalled }), request())),
      ["INVALID_GRANT", "The app is no longer installed in this store."],
    );
    assert.deepEqual(refusal(afterRefusedSpend(unused(), request({ slug: "other" }))), [
      "INVALID_GRANT",
      "The store slug does not match the token.",
    ]);
    assert.deepEqual(
      refusal(afterRefusedSpend(unused(), request({ requested: [Scope.read_orders, Scope.write_orders] }))),
      ["INVALID_SCOPE", `The grant does not include: ${Scope.write_orders}.`],
    );
    assert.deepEqual(refusal(afterRefusedSpend(unused(), request({ requested: [Scope.read_orders] }))), [
      "INVALID_GRANT",
      "The refresh token is invalid.",
    ]);
  });

  it("an unknown token, another client's spent token, an expired one, a revoked family", () => {
    assert.deepEqual(refusal(afterRefusedSpend(undefined, request())), [
      "INVALID_GRANT",
      "The refresh token is invalid.",
    ]);
    assert.deepEqual(refusal(afterRefusedSpend(spent().state, request({ appId: "app_2" }))), [
      "INVALID_GRANT",
      "The refresh token is invalid.",
    ]);
    assert.deepEqual(refusal(afterRefusedSpend(unused({ expires_at: NOW }), request())), [
      "INVALID_GRANT",
      "The refresh token has expired.",
    ]);
    assert.deepEqual(refusal(afterRefusedSpend(spent({ grant_revoked_at: NOW }).state, request())), [
      "INVALID_GRANT",
      "The refresh token has been revoked.",
    ]);
  });
});

describe("afterRefusedSpend: a spent token presented again", () => {
  it("within replaySeconds, same client, store and scopes, its pair unused: the same pair again", () => {
    const { state, tokens } = spent();
    assert.deepEqual(afterRefusedSpend(state, request({ slug: "shop" })), {
      kind: "replay",
      tokens,
      scopes: GRANT_SCOPES,
      slug: "shop",
    });
    assert.equal(
      afterRefusedSpend(state, request({ requested: [...GRANT_SCOPES].reverse() })).kind,
      "replay",
    );
  });

  it("a narrowing refresh replays only when asked for the same scopes, and answers the access token's", () => {
    const { state } = spent({ successor_access_scopes: [Scope.read_orders] });
    const replay = afterRefusedSpend(state, request({ requested: [Scope.read_orders] }));
    assert.equal(replay.kind === "replay" && replay.scopes.join(), Scope.read_orders);
    assert.equal(afterRefusedSpend(state, request()).kind, "reuse");
  });

  it("is reuse (the family is revoked) once the pair was used, after the window, or for another store", () => {
    const reuse = { kind: "reuse", storeId: "store_1", grantId: "grant_1" };
    assert.deepEqual(afterRefusedSpend(spent({ successor_access_used_at: NOW }).state, request()), reuse);
    assert.deepEqual(afterRefusedSpend(spent({ successor_refresh_used_at: NOW }).state, request()), reuse);
    assert.deepEqual(afterRefusedSpend(spent({ successor_access_revoked_at: NOW }).state, request()), reuse);
    assert.deepEqual(afterRefusedSpend(spent({ successor_refresh_found: null }).state, request()), reuse);
    assert.deepEqual(afterRefusedSpend(spent({ retry_ciphertext: null }).state, request()), reuse);
    const usedAt = new Date(NOW.getTime() - 60_000);
    assert.equal(afterRefusedSpend(spent({}, usedAt).state, request()).kind, "replay", "at the window's end");
    const late = new Date(NOW.getTime() - 60_001);
    assert.deepEqual(afterRefusedSpend(spent({}, late).state, request()), reuse);
    assert.deepEqual(afterRefusedSpend(spent().state, request({ slug: "other" })), reuse);
  });

  it("a pair sealed under an Idempotency-Key (before replays needed none) opens only with that key", () => {
    const tokens = { accessToken: "at", refreshToken: "rt" };
    const { state } = spent({
      retry_idempotency_hash: sha256Hex("idem-1"),
      retry_ciphertext: sealTokens(legacyRetryKey(PRESENTED, "idem-1"), tokens),
    });
    const replay = afterRefusedSpend(state, request({ idempotencyKey: "idem-1" }));
    assert.deepEqual(replay.kind === "replay" && replay.tokens, tokens);
    assert.equal(afterRefusedSpend(state, request({ idempotencyKey: "idem-2" })).kind, "reuse");
    assert.equal(afterRefusedSpend(state, request()).kind, "reuse");
  });
});
