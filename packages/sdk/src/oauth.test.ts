import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { PlatformError } from "./errors.ts";
import { authorizeUrl, createTokenManager, memoryTokenStore, readCallback, type TokenSet } from "./oauth.ts";

const base = { baseUrl: "http://platform.test", clientId: "mpc_x", clientSecret: "mpcs_y" };

describe("authorize URL and callback", () => {
  it("builds the authorize URL with state and an S256 PKCE challenge of the verifier", () => {
    const { url, state, codeVerifier } = authorizeUrl({
      ...base,
      redirectUri: "https://app.test/cb",
      scopes: ["read_orders", "manage_webhooks"],
      store: "demo",
    });
    const u = new URL(url);
    assert.equal(u.pathname, "/api/v1/apps/authorize");
    assert.equal(u.searchParams.get("scope"), "read_orders manage_webhooks");
    assert.equal(u.searchParams.get("state"), state);
    assert.equal(u.searchParams.get("code_challenge_method"), "S256");
    assert.equal(
      u.searchParams.get("code_challenge"),
      createHash("sha256").update(codeVerifier).digest("base64url"),
    );
    assert.ok(codeVerifier.length >= 43);
    assert.notEqual(authorizeUrl({ ...base, redirectUri: "https://app.test/cb", scopes: [] }).state, state);
  });

  it("reads the callback only with the state it sent", () => {
    assert.deepEqual(readCallback(new URLSearchParams("code=c1&slug=demo&state=abc"), "abc"), {
      code: "c1",
      slug: "demo",
    });
    assert.throws(() => readCallback({ code: "c1", slug: "demo", state: "abd" }, "abc"), /state/);
    assert.throws(
      () => readCallback({ error: "access_denied" }, "abc"),
      (e: unknown) => e instanceof PlatformError && e.code === "ACCESS_DENIED",
    );
    // An error RFC 6749 does not name is no callback of the platform's: its code stays in the closed list.
    assert.throws(
      () => readCallback({ error: "made_up", error_description: "x" }, "abc"),
      (e: unknown) => e instanceof PlatformError && e.code === "INVALID_CALLBACK" && e.message === "x",
    );
  });
});

function tokens(n: number, expiresAt: number): TokenSet {
  return {
    accessToken: `mpat_${n}`,
    refreshToken: `mprt_${n}`,
    expiresAt,
    refreshTokenExpiresAt: expiresAt + 1e9,
    scopes: ["read_orders"],
    slug: "demo",
  };
}

/** A fake refresh endpoint with the platform's rules: single-use tokens, replay by Idempotency-Key. */
function fakePlatform(options: { loseFirstResponse?: boolean } = {}) {
  let issued = 1;
  const spent = new Map<string, { key: string | null; pair: number }>();
  const calls: Array<{ refreshToken: string; key: string | null }> = [];
  let revoked = false;
  let lose = options.loseFirstResponse ?? false;
  const fetch = async (request: Request) => {
    const body = (await request.json()) as { refreshToken: string };
    const key = request.headers.get("idempotency-key");
    calls.push({ refreshToken: body.refreshToken, key });
    const before = spent.get(body.refreshToken);
    let pair: number;
    if (before) {
      if (!key || before.key !== key) {
        revoked = true;
        return new Response(
          JSON.stringify({
            success: false,
            message: "used",
            error: { code: "INVALID_GRANT", message: "used", requestId: "r" },
          }),
          { status: 400 },
        );
      }
      pair = before.pair;
    } else {
      pair = ++issued;
      spent.set(body.refreshToken, { key, pair });
    }
    if (lose) {
      lose = false;
      throw new TypeError("socket hang up");
    }
    return new Response(
      JSON.stringify({
        success: true,
        data: {
          accessToken: `mpat_${pair}`,
          refreshToken: `mprt_${pair}`,
          tokenType: "Bearer",
          expiresIn: 3600,
          refreshTokenExpiresIn: 2592000,
          scopes: ["read_orders"],
          store: { slug: "demo" },
        },
      }),
      { status: 200, headers: { "content-type": "application/json" } },
    );
  };
  return { fetch, calls, isRevoked: () => revoked };
}

describe("token manager", () => {
  it("50 concurrent callers with an expired token share exactly one refresh", async () => {
    const now = 1_000_000;
    const store = memoryTokenStore([tokens(1, now - 1)]);
    const platform = fakePlatform();
    const manager = createTokenManager({
      ...base,
      slug: "demo",
      store,
      now: () => now,
      fetch: platform.fetch,
      retry: { sleep: async () => {} },
    });
    const got = await Promise.all(Array.from({ length: 50 }, () => manager.accessToken()));
    assert.deepEqual(new Set(got), new Set(["mpat_2"]));
    assert.equal(platform.calls.length, 1);
    assert.equal(manager.refreshes, 1);
    assert.equal((await store.get("demo"))?.refreshToken, "mprt_2");
    assert.equal(await manager.accessToken(), "mpat_2", "fresh now: no refresh");
    assert.equal(platform.calls.length, 1);
  });

  it("refreshes ahead of expiry (the margin), and on a rejected token only once", async () => {
    let now = 0;
    const store = memoryTokenStore([tokens(1, 3_600_000)]);
    const platform = fakePlatform();
    const manager = createTokenManager({
      ...base,
      slug: "demo",
      store,
      now: () => now,
      fetch: platform.fetch,
      refreshMarginMs: 60_000,
    });
    assert.equal(await manager.accessToken(), "mpat_1");
    now = 3_540_001;
    assert.equal(await manager.accessToken(), "mpat_2");
    const [a, b] = await Promise.all([manager.refresh("mpat_2"), manager.refresh("mpat_2")]);
    assert.equal(a.accessToken, "mpat_3");
    assert.equal(b.accessToken, "mpat_3");
    assert.equal((await manager.refresh("mpat_2")).accessToken, "mpat_3", "already replaced: no new refresh");
    assert.equal(platform.calls.length, 2);
  });

  it("recovers a lost refresh response by retrying with the same token and Idempotency-Key", async () => {
    const store = memoryTokenStore([tokens(1, 0)]);
    const platform = fakePlatform({ loseFirstResponse: true });
    const manager = createTokenManager({
      ...base,
      slug: "demo",
      store,
      now: () => 1,
      fetch: platform.fetch,
      retry: { sleep: async () => {} },
    });
    assert.equal(await manager.accessToken(), "mpat_2");
    assert.equal(platform.calls.length, 2);
    assert.equal(platform.calls[0]?.refreshToken, platform.calls[1]?.refreshToken);
    assert.equal(platform.calls[0]?.key, platform.calls[1]?.key);
    assert.equal(platform.isRevoked(), false);
  });
});
