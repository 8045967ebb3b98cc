import Type from "typebox";
import { Scope } from "../../contracts/index.ts";
import { SCOPE_NAMES, ScopeSchema } from "../../contracts/scopes.ts";
import type { ErrorCode } from "../../lib/errors.ts";
import { Body, StoreSlug } from "../../lib/http/schemas.ts";
import { ClientId } from "../apps/apps-schemas.ts";

const Secret = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

export const ExchangeCodeBody = Body({
  slug: StoreSlug,
  code: Secret("The authorization code from the redirect (`code`). Single use, valid 10 minutes."),
  redirectUri: Type.String({
    minLength: 1,
    maxLength: 2000,
    description: "Exactly the redirect URI of the authorization request.",
  }),
  clientId: Type.String({ minLength: 1, maxLength: 64 }),
  clientSecret: Secret("The app's client secret."),
  codeVerifier: Type.Optional(
    Type.String({
      minLength: 43,
      maxLength: 128,
      description:
        "PKCE verifier: required when the authorization request sent a code_challenge, and refused (INVALID_GRANT) when it did not (RFC 9700 2.1.1).",
    }),
  ),
});

export const RefreshBody = Body({
  slug: StoreSlug,
  refreshToken: Secret("The refresh token. Single use."),
  clientId: Type.String({ minLength: 1, maxLength: 64 }),
  clientSecret: Secret("The app's client secret."),
  scope: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 500,
      examples: [Scope.read_products],
      description:
        "Space-separated scopes (RFC 6749 section 6): narrows the new access token to these. Each must be in the grant, or the answer is 400 INVALID_SCOPE and the refresh token stays unspent. Omitted: the grant's scopes. The new refresh token always keeps the grant's scopes, so a later refresh may ask for them again.",
    }),
  ),
});

export const IdempotencyHeaders = Type.Object({
  "idempotency-key": Type.Optional(
    Type.String({
      minLength: 8,
      maxLength: 200,
      description:
        "Accepted and not needed. A refresh whose response was lost is retried by presenting the same refresh token again (same client, same store): while the new pair is unused, and within REFRESH_REPLAY_SECONDS (10 minutes by default), the answer is that same pair. Presenting a spent refresh token once its pair is in use, or later, revokes the whole token family.",
    }),
  ),
});

export const TokenPairResource = Type.Object(
  {
    accessToken: Type.String({ examples: ["mpat_4fG7hJ2kL9mN3pQ5rS8tU1vW6xY0zA2bC4dE7fG9hJ1"] }),
    refreshToken: Type.String({ examples: ["mprt_8kL2mN5pQ7rS9tU1vW3xY6zA8bC0dE2fG4hJ7kL9mN1"] }),
    tokenType: Type.Literal("Bearer"),
    expiresIn: Type.Integer({ description: "Seconds the access token lives.", examples: [3600] }),
    refreshTokenExpiresIn: Type.Integer({
      description: "Seconds the refresh token lives.",
      examples: [2592000],
    }),
    scopes: Type.Array(ScopeSchema),
    store: Type.Object({ slug: StoreSlug }),
  },
  { title: "TokenPair" },
);

export const ConsentBody = Body({
  clientId: ClientId,
  redirectUri: Type.String({ minLength: 1, maxLength: 2000 }),
  scopes: Type.Union(
    [
      Type.Array(ScopeSchema, { minItems: 1, maxItems: SCOPE_NAMES.length }),
      Type.String({ minLength: 1, maxLength: 500 }),
    ],
    {
      description: "The requested scopes: an array, or the space-separated `scope` parameter as received.",
    },
  ),
  state: Type.Optional(Type.String({ maxLength: 1000 })),
  storeSlug: StoreSlug,
  approve: Type.Boolean(),
  codeChallenge: Type.Optional(Type.String({ maxLength: 128 })),
  codeChallengeMethod: Type.Optional(Type.String({ maxLength: 10 })),
});

export const AuthorizeQuery = Type.Object(
  {
    client_id: Type.String({ maxLength: 64 }),
    redirect_uri: Type.String({ maxLength: 2000 }),
    // Optional here so that their absence goes back to the app as an OAuth error (RFC 6749
    // 4.1.2.1) rather than a validation page: the route checks them once the client is verified.
    response_type: Type.Optional(
      Type.String({ maxLength: 100, description: "Required: `code` (the only response type)." }),
    ),
    scope: Type.Optional(
      Type.String({
        maxLength: 500,
        description: "Required. Space-separated scopes, each registered for the app.",
      }),
    ),
    state: Type.Optional(
      Type.String({ maxLength: 1000, description: "Returned unchanged; use it against CSRF." }),
    ),
    store: Type.Optional(Type.String({ maxLength: 48, description: "Slug of the store to preselect." })),
    code_challenge: Type.Optional(Type.String({ maxLength: 128 })),
    code_challenge_method: Type.Optional(Type.String({ maxLength: 10 })),
  },
  { additionalProperties: true },
);

/** RFC 6749 5.1 / 5.2 shapes of the standard endpoint. */
export const OAuthTokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal("Bearer"),
    expires_in: Type.Integer(),
    refresh_token: Type.String(),
    refresh_token_expires_in: Type.Integer(),
    scope: Type.String({ description: "Space-separated granted scopes." }),
    store_slug: Type.String(),
  },
  { title: "OAuthTokenResponse", description: "RFC 6749 section 5.1 token response." },
);

/** RFC 6749 `error` values the token and revocation endpoints answer. */
export const OAUTH_ERRORS = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "invalid_scope",
  "unsupported_grant_type",
  "temporarily_unavailable",
  "server_error",
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERRORS)[number];

/**
 * The platform codes with an RFC 6749 error of their own; any other 4xx is `invalid_request`.
 * A throttled request is `temporarily_unavailable` (RFC 6749's "try again later") with 429 and
 * `Retry-After`, not the device flow's `slow_down` (RFC 8628), which tells a polling client to
 * poll more slowly rather than to wait.
 */
const OAUTH_ERROR_OF: Partial<Record<ErrorCode, OAuthErrorCode>> = {
  INVALID_CLIENT: "invalid_client",
  INVALID_GRANT: "invalid_grant",
  INVALID_SCOPE: "invalid_scope",
  RATE_LIMITED: "temporarily_unavailable",
  // The database (or another dependency) is down: 503 with Retry-After, so clients retry.
  SERVICE_UNAVAILABLE: "temporarily_unavailable",
};

export function oauthErrorFor(code: ErrorCode, status: number): OAuthErrorCode {
  return OAUTH_ERROR_OF[code] ?? (status >= 500 ? "server_error" : "invalid_request");
}

export const OAuthErrorResponse = Type.Object(
  {
    error: Type.Enum(OAUTH_ERRORS),
    error_description: Type.String(),
  },
  { title: "OAuthError", description: "RFC 6749 section 5.2 error response." },
);
