import { randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import { GRANTABLE_SCOPES, roleScopes, Scope, ScopeSchema } from "../../contracts/index.ts";
import { AppError } from "../../lib/errors.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope, errorResponses } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { currentAccount } from "../accounts/session-auth.ts";
import type { StoreService } from "../stores/stores-service.ts";
import { errorPage } from "./consent-page.ts";
import {
  buildRedirect,
  type ConsentService,
  RedirectableAuthorizationError,
  UnsafeAuthorizationError,
} from "./consent-service.ts";
import { AuthorizeQuery, ConsentBody } from "./oauth-schemas.ts";

function sendPage(reply: FastifyReply, status: number, render: (nonce: string) => string) {
  const nonce = randomBytes(16).toString("base64");
  return reply
    .status(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("x-frame-options", "DENY")
    .header("referrer-policy", "no-referrer")
    .header(
      "content-security-policy",
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    )
    .send(render(nonce));
}

/** The merchant-facing half of the authorization code flow: the consent page and its decision. */
export function registerConsentRoutes(
  app: App,
  deps: {
    consent: ConsentService;
    stores: Pick<StoreService, "listForAccount" | "getForAccount">;
    requireSession: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    issuer: string;
  },
) {
  app.get(
    "/api/v1/apps/authorize",
    {
      // A browser lands here: a malformed request gets the HTML error page, not a JSON envelope.
      attachValidation: true,
      schema: {
        operationId: "appsAuthorize",
        security: [],
        tags: ["App integration: consent"],
        summary: "OAuth authorization endpoint (leads the merchant to consent)",
        description:
          "A valid request leads the merchant to the dashboard's consent page (`/oauth/consent`, after signing in), which shows the app, each requested scope in plain words and the store to install into. The decision redirects to `redirect_uri` with `code`, `slug`, `state` and `iss`, or `error=access_denied`. An unknown client or unregistered redirect URI is shown as an error and never redirected. Once both are verified, every other error of the request goes back to `redirect_uri` (RFC 6749 4.1.2.1) with `error`, `error_description`, `state` and `iss`: a missing `response_type` or a malformed parameter is `invalid_request`, a `response_type` other than `code` is `unsupported_response_type`, a missing or unknown scope, or one the app is not registered for, is `invalid_scope`.",
        querystring: AuthorizeQuery,
        produces: ["text/html"],
        response: {
          302: Type.Null({
            description:
              "To the consent page (`/oauth/consent`), or back to the app with an OAuth error (invalid_request, unsupported_response_type, invalid_scope)",
          }),
          400: Type.String({ description: "HTML error page" }),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      /** RFC 6749 4.1.2.1: the error goes back to the app, with its state and our issuer (RFC 9207). */
      const redirectError = (
        redirectUri: string,
        error: RedirectableAuthorizationError,
        state: string | undefined,
      ) =>
        reply.redirect(
          buildRedirect(redirectUri, {
            error: error.oauthError,
            error_description: error.message,
            state,
            iss: deps.issuer,
          }),
          302,
        );
      const unsafe = (error: unknown) => {
        if (error instanceof UnsafeAuthorizationError)
          return sendPage(reply, 400, (n) => errorPage(error.message, n));
        throw error;
      };

      if (request.validationError) {
        // Nothing is sent to a redirect URI before it is verified for its client: an over-long or
        // missing client_id or redirect_uri gets the page; anything else malformed, once both are
        // verified, goes back to the app as invalid_request.
        const raw = request.query as Record<string, unknown>;
        const text = (value: unknown, max: number) =>
          typeof value === "string" && value.length <= max ? value : undefined;
        const clientId = text(raw.client_id, 64);
        const redirectUri = text(raw.redirect_uri, 2000);
        if (clientId !== undefined && redirectUri !== undefined) {
          try {
            await deps.consent.verifyClient(clientId, redirectUri);
          } catch (error) {
            return unsafe(error);
          }
          const error = new RedirectableAuthorizationError(
            "invalid_request",
            "The authorization request has a malformed parameter.",
          );
          return redirectError(redirectUri, error, text(raw.state, 1000));
        }
        return sendPage(reply, 400, (n) =>
          errorPage("The authorization link is incomplete or malformed.", n),
        );
      }
      const authRequest = {
        clientId: q.client_id,
        redirectUri: q.redirect_uri,
        responseType: q.response_type,
        scope: q.scope,
        state: q.state,
        codeChallenge: q.code_challenge,
        codeChallengeMethod: q.code_challenge_method,
      };
      try {
        await deps.consent.validate(authRequest);
      } catch (error) {
        if (error instanceof RedirectableAuthorizationError)
          return redirectError(q.redirect_uri, error, q.state);
        return unsafe(error);
      }
      // Valid: the merchant decides in the dashboard (signing in first if needed), which reads the
      // request again from the same query through GET /api/v1/dashboard/oauth/consent.
      return reply.redirect(`/oauth/consent?${request.url.split("?")[1] ?? ""}`, 302);
    },
  );

  app.get(
    "/api/v1/dashboard/oauth/consent",
    {
      preHandler: deps.requireSession,
      schema: {
        operationId: "dashboardGetConsentRequest",
        tags: ["App integration: consent"],
        summary: "What an authorization request asks the merchant",
        description:
          "The dashboard's consent page reads the authorization request (the query the authorize endpoint received) here: the app, each requested scope in plain words, and the stores the account may install apps in (those it owns or is an admin of). An invalid request is a 400 in the envelope; the authorize endpoint has already sent every redirectable error back to the app.",
        security: [{ sessionCookie: [] }],
        querystring: AuthorizeQuery,
        response: {
          200: Envelope(
            Type.Object(
              {
                app: Type.Object({ clientId: Type.String(), name: Type.String() }),
                scopes: Type.Array(
                  Type.Object({ scope: ScopeSchema, label: Type.String(), description: Type.String() }),
                ),
                stores: Type.Array(Type.Object({ slug: Type.String(), name: Type.String() })),
                preselect: Type.Union([Type.String(), Type.Null()]),
              },
              { title: "ConsentRequest" },
            ),
          ),
          ...errorResponses("UNAUTHENTICATED"),
        },
      },
    },
    async (request) => {
      const q = request.query;
      let checked: Awaited<ReturnType<ConsentService["validate"]>>;
      try {
        checked = await deps.consent.validate({
          clientId: q.client_id,
          redirectUri: q.redirect_uri,
          responseType: q.response_type,
          scope: q.scope,
          state: q.state,
          codeChallenge: q.code_challenge,
          codeChallengeMethod: q.code_challenge_method,
        });
      } catch (error) {
        if (error instanceof RedirectableAuthorizationError || error instanceof UnsafeAuthorizationError)
          throw new AppError("VALIDATION_FAILED", { message: error.message });
        throw error;
      }
      // Installing an app is the owner's and admins' (manage_installations): other staff see no store.
      const stores = (await deps.stores.listForAccount(currentAccount(request).id))
        .filter(({ role }) => roleScopes(role).includes(Scope.manage_installations))
        .map(({ store }) => store);
      return {
        success: true as const,
        data: {
          app: { clientId: checked.app.client_id, name: checked.app.name },
          scopes: checked.scopes.map((scope) => ({
            scope,
            label: GRANTABLE_SCOPES[scope].label,
            description: GRANTABLE_SCOPES[scope].description,
          })),
          stores: stores.map((st) => ({ slug: st.slug, name: st.name })),
          preselect: q.store ?? null,
        },
      };
    },
  );

  app.post(
    "/api/v1/dashboard/oauth/consent",
    {
      preHandler: deps.requireSession,
      schema: {
        operationId: "dashboardOAuthConsent",
        tags: ["App integration: consent"],
        summary: "Record the merchant's consent decision",
        description:
          "On approval the app is installed in the store (or its installation widened to the new scopes) and a single-use authorization code, valid 10 minutes, is bound to the client, store, redirect URI, scopes and PKCE challenge. Answers where to send the browser. Only the store's owner and admins install apps (403 `INSUFFICIENT_SCOPE` for other staff; a store the account does not work in is 404).",
        security: [{ sessionCookie: [] }],
        body: ConsentBody,
        response: {
          200: Envelope(
            Type.Object({
              redirectTo: Type.String({
                examples: ["https://app.example.com/cb?code=mpac_…&slug=demo-store&state=xyz"],
              }),
            }),
          ),
          ...errorResponses("UNAUTHENTICATED", "NOT_FOUND", "INSUFFICIENT_SCOPE"),
        },
      },
    },
    async (request) => {
      const body = request.body;
      const account = currentAccount(request);
      const { store, role } = await deps.stores.getForAccount(account.id, body.storeSlug);
      if (!roleScopes(role).includes(Scope.manage_installations))
        throw new AppError("INSUFFICIENT_SCOPE", {
          message: "Only the store's owner and admins install apps.",
          details: { requiredScope: Scope.manage_installations, grantedScopes: [...roleScopes(role)] },
        });
      const redirectTo = await deps.consent.decide({
        clientId: body.clientId,
        redirectUri: body.redirectUri,
        scope: Array.isArray(body.scopes) ? body.scopes.join(" ") : body.scopes,
        state: body.state,
        codeChallenge: body.codeChallenge,
        codeChallengeMethod: body.codeChallengeMethod,
        store,
        approve: body.approve,
        accountId: account.id,
      });
      if (body.approve)
        request.log.info({ store: store.slug, clientId: body.clientId }, "app installed (consent given)");
      return { success: true as const, data: { redirectTo } };
    },
  );
}

/**
 * The consent routes, at the root with their full paths (platform.ts lists them): the consent
 * requests under `/api/v1/dashboard/oauth` check the session themselves.
 */
export function consentRoutes(deps: Parameters<typeof registerConsentRoutes>[1]): FeatureRoutes {
  return {
    tags: {
      "App integration: consent": "The authorization code flow's merchant side: consent page and decision.",
    },
    public: (app) => registerConsentRoutes(app, deps),
  };
}
