import Type from "typebox";
import { Body, StoreSlug } from "../../lib/http/schemas.ts";
import { ScopeSchema } from "../../lib/scopes.ts";
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
      description: "PKCE verifier, required when the authorization sent a code_challenge.",
    }),
  ),
});

export const RefreshBody = Body({
  slug: StoreSlug,
  refreshToken: Secret("The refresh token. Single use."),
  clientId: Type.String({ minLength: 1, maxLength: 64 }),
  clientSecret: Secret("The app's client secret."),
});

export const IdempotencyHeaders = Type.Object({
  "idempotency-key": Type.Optional(
    Type.String({
      minLength: 8,
      maxLength: 200,
      description:
        "Send a fresh random key with each refresh. If the response is lost, retry the same refresh token with the same key within 2 minutes: while the new pair is unused you get that same pair back. Without it, a second use of a refresh token revokes the whole token family.",
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
    [Type.Array(ScopeSchema, { minItems: 1, maxItems: 5 }), Type.String({ minLength: 1, maxLength: 500 })],
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
    scope: Type.String({
      maxLength: 500,
      description: "Space-separated scopes, each registered for the app.",
    }),
    state: Type.Optional(
      Type.String({ maxLength: 1000, description: "Returned unchanged; use it against CSRF." }),
    ),
    response_type: Type.Optional(Type.Literal("code")),
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

export const OAuthErrorResponse = Type.Object(
  {
    error: Type.Union([
      Type.Literal("invalid_request"),
      Type.Literal("invalid_client"),
      Type.Literal("invalid_grant"),
      Type.Literal("unsupported_grant_type"),
      Type.Literal("invalid_scope"),
      Type.Literal("slow_down"),
      Type.Literal("server_error"),
    ]),
    error_description: Type.String(),
  },
  { title: "OAuthError", description: "RFC 6749 section 5.2 error response." },
);
