import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { AUTHORIZATION_ERRORS, errorFromResponse, PlatformError, upperCased } from "./errors.ts";
import { type Fetch, type RetryOptions, retryingFetch } from "./http.ts";

/** What the SDK keeps of a token pair; times are epoch milliseconds. */
export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  /** When the access token stops working. */
  expiresAt: number;
  refreshTokenExpiresAt: number;
  scopes: string[];
  /** The store the installation belongs to. */
  slug: string;
}

/** Where tokens live between calls and processes (a database row per store in production). */
export interface TokenStore {
  get(slug: string): Promise<TokenSet | null>;
  set(slug: string, tokens: TokenSet): Promise<void>;
  delete?(slug: string): Promise<void>;
}

/** Tokens in this process's memory: for scripts and tests. */
export function memoryTokenStore(initial: TokenSet[] = []): TokenStore & { tokens: Map<string, TokenSet> } {
  const tokens = new Map(initial.map((t) => [t.slug, t]));
  return {
    tokens,
    async get(slug) {
      return tokens.get(slug) ?? null;
    },
    async set(slug, value) {
      tokens.set(slug, value);
    },
    async delete(slug) {
      tokens.delete(slug);
    },
  };
}

/**
 * A lock held around one refresh, so several processes sharing a token store never spend the same
 * refresh token twice (a Redis `SET NX PX` lock or a database advisory lock). One process needs none:
 * the manager is single-flight already.
 */
export interface RefreshLock {
  withLock<T>(key: string, work: () => Promise<T>): Promise<T>;
}

export interface AppCredentials {
  /** The platform's origin, e.g. `https://platform.example.com`. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
}

const base64url = (bytes: Buffer) => bytes.toString("base64url");

/** A PKCE pair (RFC 7636, S256). Keep the verifier with the state until the callback. */
export function createPkce(): { codeVerifier: string; codeChallenge: string } {
  const codeVerifier = base64url(randomBytes(32));
  return { codeVerifier, codeChallenge: base64url(createHash("sha256").update(codeVerifier).digest()) };
}

/**
 * The URL that sends the merchant to the consent page, with a fresh `state` (check it on the
 * callback) and PKCE. Store `state` and `codeVerifier` (in the session) until the callback.
 */
export function authorizeUrl(input: {
  baseUrl: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  /** Preselects the merchant's store. */
  store?: string;
}): { url: string; state: string; codeVerifier: string } {
  const { codeVerifier, codeChallenge } = createPkce();
  const state = base64url(randomBytes(24));
  const url = new URL("/api/v1/apps/authorize", input.baseUrl);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: input.clientId,
    redirect_uri: input.redirectUri,
    scope: input.scopes.join(" "),
    state,
    code_challenge: codeChallenge,
    code_challenge_method: "S256",
    ...(input.store ? { store: input.store } : {}),
  }).toString();
  return { url: url.toString(), state, codeVerifier };
}

/** The callback's query, checked: `state` must be the one you sent (constant-time), or this throws. */
export function readCallback(
  query: URLSearchParams | Record<string, string | undefined>,
  expectedState: string,
) {
  const get = (k: string) => (query instanceof URLSearchParams ? query.get(k) : query[k]) ?? null;
  const error = get("error");
  if (error) {
    const known = AUTHORIZATION_ERRORS.find((name) => name === error);
    throw new PlatformError({
      // An error the RFC does not name is not a callback the platform sent.
      code: known ? upperCased(known) : "INVALID_CALLBACK",
      message: get("error_description") ?? error,
      status: 400,
    });
  }
  const state = get("state") ?? "";
  const a = Buffer.from(state);
  const b = Buffer.from(expectedState);
  // Lengths first: timingSafeEqual needs equal lengths, and the length of a random state is no secret.
  if (a.length !== b.length || !timingSafeEqual(a, b))
    throw new PlatformError({
      code: "INVALID_STATE",
      message: "The callback's state is not the one sent.",
      status: 400,
    });
  const code = get("code");
  const slug = get("slug");
  if (!code || !slug)
    throw new PlatformError({
      code: "INVALID_CALLBACK",
      message: "The callback has no code or slug.",
      status: 400,
    });
  return { code, slug };
}

type TokenPairBody = {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  refreshTokenExpiresIn: number;
  scopes: string[];
  store: { slug: string };
};

async function tokenCall(
  fetcher: Fetch,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  now: number,
) {
  const response = await fetcher(
    new Request(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...headers },
      body: JSON.stringify(body),
    }),
  );
  if (!response.ok) throw await errorFromResponse(response);
  const { data } = (await response.json()) as { data: TokenPairBody };
  return {
    accessToken: data.accessToken,
    refreshToken: data.refreshToken,
    expiresAt: now + data.expiresIn * 1000,
    refreshTokenExpiresAt: now + data.refreshTokenExpiresIn * 1000,
    scopes: data.scopes,
    slug: data.store.slug,
  } satisfies TokenSet;
}

/** Trades the callback's code for a token pair (`POST /api/v1/apps/token`). */
export async function exchangeCode(
  input: AppCredentials & { code: string; slug: string; redirectUri: string; codeVerifier?: string },
  options: { fetch?: Fetch; now?: () => number } = {},
): Promise<TokenSet> {
  const fetcher = options.fetch ?? retryingFetch({ maxRetries: 0 });
  return tokenCall(
    fetcher,
    new URL("/api/v1/apps/token", input.baseUrl).toString(),
    {
      slug: input.slug,
      code: input.code,
      redirectUri: input.redirectUri,
      clientId: input.clientId,
      clientSecret: input.clientSecret,
      ...(input.codeVerifier ? { codeVerifier: input.codeVerifier } : {}),
    },
    // Never retried: a code is single use, and a second presentation revokes what it issued.
    {},
    (options.now ?? Date.now)(),
  );
}

export interface TokenManagerOptions extends AppCredentials {
  slug: string;
  store: TokenStore;
  lock?: RefreshLock;
  /** Refresh this long before the access token expires. Default 60 s. */
  refreshMarginMs?: number;
  now?: () => number;
  /** Used for the refresh call (wrapped in the SDK's retries). */
  fetch?: Fetch;
  retry?: RetryOptions;
}

export interface TokenManager {
  readonly slug: string;
  /** A valid access token: the stored one, or a refreshed one when it expires within the margin. */
  accessToken(): Promise<string>;
  /**
   * Refreshes now. With `rejected` (the access token the platform just refused with 401), a token
   * someone else already refreshed to is used instead of refreshing again.
   */
  refresh(rejected?: string): Promise<TokenSet>;
  /** How many refresh calls this manager made (for logs and tests). */
  readonly refreshes: number;
}

/**
 * Access tokens for one installation, refreshed before expiry and on a 401, single-flight: however
 * many callers need a new token at once, one refresh runs and they all wait for it, so a refresh
 * token is never spent twice by this process (a `lock` extends that across processes). Each refresh
 * carries an `Idempotency-Key`; when its response is lost (a dropped connection, a 5xx), it is
 * retried with the same token and key, and the platform answers the same pair instead of revoking
 * the family.
 */
export function createTokenManager(options: TokenManagerOptions): TokenManager {
  const now = options.now ?? Date.now;
  const margin = options.refreshMarginMs ?? 60_000;
  const fetcher = retryingFetch({ ...options.retry, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const url = new URL("/api/v1/apps/token/refresh", options.baseUrl).toString();
  const lock: RefreshLock = options.lock ?? { withLock: (_key, work) => work() };
  let inflight: Promise<TokenSet> | null = null;
  let refreshes = 0;

  const fresh = (t: TokenSet | null): t is TokenSet => t !== null && t.expiresAt - margin > now();

  /** `force`: refresh even when the stored token looks fresh (unless it is not the `rejected` one). */
  async function refreshUnderLock(force: boolean, rejected: string | undefined): Promise<TokenSet> {
    return lock.withLock(`merchant-platform:refresh:${options.clientId}:${options.slug}`, async () => {
      const current = await options.store.get(options.slug);
      if (!current)
        throw new PlatformError({
          code: "NO_TOKENS",
          message: `No tokens stored for store ${options.slug}.`,
          status: 0,
        });
      // Another process (or an earlier flight) already refreshed: use its pair.
      const replaced = rejected !== undefined && current.accessToken !== rejected;
      if (fresh(current) && (replaced || (!force && rejected === undefined))) return current;
      refreshes++;
      const next = await tokenCall(
        fetcher,
        url,
        {
          slug: options.slug,
          refreshToken: current.refreshToken,
          clientId: options.clientId,
          clientSecret: options.clientSecret,
        },
        { "idempotency-key": crypto.randomUUID() },
        now(),
      );
      await options.store.set(options.slug, next);
      return next;
    });
  }

  function flight(force: boolean, rejected: string | undefined): Promise<TokenSet> {
    inflight ??= refreshUnderLock(force, rejected).finally(() => {
      inflight = null;
    });
    return inflight;
  }

  const manager: TokenManager = {
    slug: options.slug,
    get refreshes() {
      return refreshes;
    },
    refresh(rejected) {
      return flight(rejected === undefined, rejected);
    },
    async accessToken() {
      if (inflight) return (await inflight).accessToken;
      const current = await options.store.get(options.slug);
      if (fresh(current)) return current.accessToken;
      return (await flight(false, undefined)).accessToken;
    },
  };
  return manager;
}
