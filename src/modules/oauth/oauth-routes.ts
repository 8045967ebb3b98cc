import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import Type from "typebox";
import { SCOPE_NAMES } from "../../contracts/scopes.ts";
import { AppError } from "../../lib/errors.ts";
import { toAppError } from "../../lib/http/error-handler.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope, errorResponses } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import type { AppService } from "../apps/apps-service.ts";
import {
  ExchangeCodeBody,
  IdempotencyHeaders,
  OAuthErrorResponse,
  OAuthTokenResponse,
  oauthErrorFor,
  RefreshBody,
  TokenPairResource,
} from "./oauth-schemas.ts";
import type { TokenPair, TokenService } from "./token-service.ts";

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

/**
 * Token endpoints of the spec (`/api/v1/apps/token`, `/token/refresh`, in the platform envelope)
 * and the standard OAuth 2.0 ones (`/api/v1/oauth/token`, `/revoke`, RFC 8414 metadata) that speak
 * the RFC formats so off-the-shelf client libraries work unchanged. Same tokens, same rules.
 */
export function registerTokenRoutes(
  app: App,
  deps: { apps: AppService; tokens: TokenService; issuer: string },
) {
  const { apps, tokens } = deps;
  const tags = ["App integration: tokens"];

  app.post(
    "/api/v1/apps/token",
    {
      schema: {
        operationId: "appsExchangeCode",
        security: [],
        tags,
        summary: "Exchange an authorization code for a token pair",
        description:
          "Called by the app's server. The code is single use: presenting it again fails and revokes every token issued from it. Bad client credentials answer 401 INVALID_CLIENT (throttled after repeated failures).",
        body: ExchangeCodeBody,
        response: { 200: Envelope(TokenPairResource), ...errorResponses("INVALID_CLIENT", "INVALID_GRANT") },
      },
    },
    async (request, reply) => {
      const client = await apps.authenticateClient(
        request.body.clientId,
        request.body.clientSecret,
        request.ip,
      );
      const pair = await tokens.exchangeCode(client, request.body);
      reply.headers(NO_STORE);
      return { success: true as const, data: pair };
    },
  );

  app.post(
    "/api/v1/apps/token/refresh",
    {
      schema: {
        operationId: "appsRefreshToken",
        security: [],
        tags,
        summary: "Refresh a token pair",
        description:
          "The presented refresh token is spent. If the answer is lost, present the same refresh token again: while the pair it was exchanged for is unused (neither token presented yet), within REFRESH_REPLAY_SECONDS (10 minutes by default), the answer is that same pair, and concurrent refreshes with one token all receive it. Otherwise presenting a spent refresh token fails with INVALID_GRANT and revokes the whole token family. The optional `scope` narrows the new access token; a scope beyond the grant answers INVALID_SCOPE.",
        headers: IdempotencyHeaders,
        body: RefreshBody,
        response: {
          200: Envelope(TokenPairResource),
          ...errorResponses("INVALID_CLIENT", "INVALID_GRANT", "INVALID_SCOPE"),
        },
      },
    },
    async (request, reply) => {
      // Client authentication happens inside: it shares the refresh's one database statement.
      const client = {
        clientId: request.body.clientId,
        clientSecret: request.body.clientSecret,
        ip: request.ip,
      };
      const pair = await tokens.refresh(client, {
        refreshToken: request.body.refreshToken,
        slug: request.body.slug,
        idempotencyKey: request.headers["idempotency-key"],
        scope: request.body.scope,
      });
      reply.headers(NO_STORE);
      return { success: true as const, data: pair };
    },
  );

  app.get(
    "/.well-known/oauth-authorization-server",
    {
      schema: {
        operationId: "oauthMetadata",
        security: [],
        tags: ["OAuth 2.0 (standard)"],
        summary: "Authorization server metadata (RFC 8414)",
        description:
          "This is an OAuth 2.0 authorization server, not an OpenID Connect provider: there is no `/.well-known/openid-configuration`, no ID token, no `openid` scope and no userinfo endpoint. Client libraries that discover OpenID metadata by default must be told to use RFC 8414: with openid-client v6, `discovery(new URL(issuer), clientId, clientSecret, undefined, { algorithm: 'oauth2' })`; with oauth4webapi, `discoveryRequest(issuer, { algorithm: 'oauth2' })`. Clients that take endpoints directly (simple-oauth2) need `tokenHost` = the issuer, `tokenPath` `/api/v1/oauth/token`, `revokePath` `/api/v1/oauth/revoke` and `authorizePath` `/api/v1/apps/authorize`.",
        response: { 200: Type.Object({}, { additionalProperties: true, description: "RFC 8414 metadata" }) },
      },
    },
    async () => ({
      issuer: deps.issuer,
      authorization_endpoint: `${deps.issuer}/api/v1/apps/authorize`,
      token_endpoint: `${deps.issuer}/api/v1/oauth/token`,
      revocation_endpoint: `${deps.issuer}/api/v1/oauth/revoke`,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      scopes_supported: SCOPE_NAMES,
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${deps.issuer}/api/docs/ui`,
    }),
  );

  app.register(async (instance) => {
    const oauth = instance.withTypeProvider<TypeBoxTypeProvider>();
    oauth.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string" },
      (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(String(body))));
      },
    );
    // RFC 6749 5.2 error bodies here, not the envelope: OAuth client libraries parse `error` as a string.
    oauth.setErrorHandler((error, request, reply) => {
      const appError = toAppError(error as never);
      // An outage is logged once per request at warn by nature (no stack); a 500 is a defect.
      if (appError.code === "SERVICE_UNAVAILABLE")
        request.log.warn({ code: appError.code }, "token endpoint unavailable");
      else if (appError.status >= 500) request.log.error({ err: error }, "token endpoint failed");
      const oauthError = oauthErrorFor(appError.code, appError.status);
      for (const [name, value] of Object.entries(appError.headers)) reply.header(name, value);
      return reply
        .status(
          appError.status === 400 ||
            appError.status === 401 ||
            appError.status === 429 ||
            appError.status === 503
            ? appError.status
            : appError.status >= 500
              ? 500
              : 400,
        )
        .headers(NO_STORE)
        .send({ error: oauthError, error_description: appError.message });
    });

    const FormBody = Type.Object(
      {
        grant_type: Type.String({ maxLength: 100 }),
        code: Type.Optional(Type.String({ maxLength: 200 })),
        redirect_uri: Type.Optional(Type.String({ maxLength: 2000 })),
        code_verifier: Type.Optional(Type.String({ maxLength: 128 })),
        refresh_token: Type.Optional(Type.String({ maxLength: 200 })),
        client_id: Type.Optional(Type.String({ maxLength: 64 })),
        client_secret: Type.Optional(Type.String({ maxLength: 200 })),
        scope: Type.Optional(Type.String({ maxLength: 500 })),
      },
      { additionalProperties: true },
    );

    /** RFC 6749 2.3.1 client credentials, from HTTP Basic or the form; INVALID_CLIENT when absent. */
    const credentials = (
      request: FastifyRequest,
      body: { client_id?: string | undefined; client_secret?: string | undefined },
    ) => {
      const basic = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(request.headers.authorization ?? "");
      let id = body.client_id;
      let secret = body.client_secret;
      if (basic) {
        const decoded = Buffer.from(basic[1]!, "base64").toString("utf8");
        const colon = decoded.indexOf(":");
        if (colon > 0) {
          // RFC 6749 2.3.1: both parts are form-urlencoded before being joined.
          id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " "));
          secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " "));
        }
      }
      if (!id || !secret)
        throw new AppError("INVALID_CLIENT", {
          headers: { "www-authenticate": 'Basic realm="merchant-platform"' },
        });
      return { clientId: id, clientSecret: secret, ip: request.ip };
    };
    const authenticate = (
      request: FastifyRequest,
      body: { client_id?: string | undefined; client_secret?: string | undefined },
    ) => {
      const client = credentials(request, body);
      return apps.authenticateClient(client.clientId, client.clientSecret, client.ip);
    };

    const rfcPair = (pair: TokenPair) => ({
      access_token: pair.accessToken,
      token_type: "Bearer" as const,
      expires_in: pair.expiresIn,
      refresh_token: pair.refreshToken,
      refresh_token_expires_in: pair.refreshTokenExpiresIn,
      scope: pair.scopes.join(" "),
      store_slug: pair.store.slug,
    });

    oauth.post(
      "/api/v1/oauth/token",
      {
        schema: {
          operationId: "oauthToken",
          security: [],
          tags: ["OAuth 2.0 (standard)"],
          summary: "Token endpoint (RFC 6749, PKCE RFC 7636)",
          description:
            "Form-encoded `grant_type=authorization_code` (code, redirect_uri, code_verifier) or `grant_type=refresh_token` (refresh_token, optional `scope` to narrow the new access token; a scope beyond the grant is `invalid_scope`). A `code_verifier` for a code whose authorization request had no `code_challenge` is `invalid_grant` (RFC 9700 2.1.1). Client authentication by HTTP Basic or client_id/client_secret in the body. Answers RFC 6749 shapes, not the platform envelope; a throttled request is 429 `temporarily_unavailable` with `Retry-After`. Same tokens and rules as /api/v1/apps/token.",
          consumes: ["application/x-www-form-urlencoded"],
          headers: IdempotencyHeaders,
          body: FormBody,
          response: {
            200: OAuthTokenResponse,
            400: OAuthErrorResponse,
            401: OAuthErrorResponse,
            429: OAuthErrorResponse,
            500: OAuthErrorResponse,
            503: OAuthErrorResponse,
          },
        },
      },
      async (request, reply) => {
        const body = request.body;
        if (body.grant_type !== "authorization_code" && body.grant_type !== "refresh_token") {
          return reply.status(400).headers(NO_STORE).send({
            error: "unsupported_grant_type",
            error_description: "Use authorization_code or refresh_token.",
          });
        }
        let pair: TokenPair;
        if (body.grant_type === "authorization_code") {
          const client = await authenticate(request, body);
          if (!body.code || !body.redirect_uri)
            throw new AppError("VALIDATION_FAILED", { message: "code and redirect_uri are required." });
          pair = await tokens.exchangeCode(client, {
            code: body.code,
            redirectUri: body.redirect_uri,
            codeVerifier: body.code_verifier,
          });
        } else {
          if (!body.refresh_token) {
            await authenticate(request, body);
            throw new AppError("VALIDATION_FAILED", { message: "refresh_token is required." });
          }
          // Client authentication happens inside: it shares the refresh's one database statement.
          pair = await tokens.refresh(credentials(request, body), {
            refreshToken: body.refresh_token,
            idempotencyKey: request.headers["idempotency-key"],
            scope: body.scope,
          });
        }
        return reply.headers(NO_STORE).send(rfcPair(pair));
      },
    );

    oauth.post(
      "/api/v1/oauth/revoke",
      {
        schema: {
          operationId: "oauthRevoke",
          security: [],
          tags: ["OAuth 2.0 (standard)"],
          summary: "Token revocation (RFC 7009)",
          description:
            "Form-encoded `token` (and optional `token_type_hint`). Revoking a refresh token revokes its whole family; revoking an access token revokes that token. Answers 200 for unknown tokens too.",
          consumes: ["application/x-www-form-urlencoded"],
          body: Type.Object(
            {
              token: Type.String({ minLength: 1, maxLength: 200 }),
              token_type_hint: Type.Optional(Type.String({ maxLength: 50 })),
              client_id: Type.Optional(Type.String({ maxLength: 64 })),
              client_secret: Type.Optional(Type.String({ maxLength: 200 })),
            },
            { additionalProperties: true },
          ),
          response: {
            200: Type.Object({}),
            400: OAuthErrorResponse,
            401: OAuthErrorResponse,
            429: OAuthErrorResponse,
            503: OAuthErrorResponse,
          },
        },
      },
      async (request, reply) => {
        const client = await authenticate(request, request.body);
        await tokens.revoke(client, request.body.token);
        return reply.headers(NO_STORE).send({});
      },
    );
  });
}

/** The token endpoints, at the root with their full paths (platform.ts lists them). */
export function tokenRoutes(deps: Parameters<typeof registerTokenRoutes>[1]): FeatureRoutes {
  return {
    tags: {
      "App integration: tokens": "Token exchange and refresh for apps, in the platform envelope.",
      "OAuth 2.0 (standard)":
        "RFC 6749 / 7636 / 7009 / 8414 endpoints for off-the-shelf OAuth clients. They answer RFC shapes, not the envelope.",
    },
    public: (app) => registerTokenRoutes(app, deps),
  };
}
