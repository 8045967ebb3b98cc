import { parseScopeParam, type Scope } from "../../contracts/scopes.ts";
import type { Db } from "../../db/client.ts";
import type { AppRow, Store } from "../../db/schema.ts";
import { AppError } from "../../lib/errors.ts";
import type { AppRepo } from "../apps/apps-repo.ts";
import type { InstallationService } from "../installations/installations-service.ts";
import { CHALLENGE_PATTERN } from "./pkce.ts";
import type { TokenService } from "./token-service.ts";

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  /** Absent is invalid_scope: there is no default scope. */
  scope: string | undefined;
  state?: string | undefined;
  codeChallenge?: string | undefined;
  codeChallengeMethod?: string | undefined;
}

/**
 * A request that cannot be sent back to the app: unknown client or unregistered redirect URI.
 * Shown to the merchant; never redirected (that would make us an open redirector).
 */
export class UnsafeAuthorizationError extends AppError {}

/** RFC 6749 4.1.2.1 errors this service sends back to the app's redirect URI. */
export type AuthorizationErrorCode = "invalid_request" | "unsupported_response_type" | "invalid_scope";

/**
 * A request whose client and redirect URI are good but which is otherwise wrong: answered by
 * redirecting to the app with an OAuth error (RFC 6749 4.1.2.1).
 */
export class RedirectableAuthorizationError extends AppError {
  readonly oauthError: AuthorizationErrorCode;
  constructor(oauthError: AuthorizationErrorCode, message: string) {
    super("VALIDATION_FAILED", { message });
    this.oauthError = oauthError;
  }
}

export function buildRedirect(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

export function createConsentService(deps: {
  db: Db;
  apps: Pick<AppRepo, "findByClientId">;
  installations: Pick<InstallationService, "installOrWiden">;
  tokens: Pick<TokenService, "createCode">;
  issuer: string;
}) {
  /**
   * The app, when `redirectUri` is registered for `clientId`; throws UnsafeAuthorizationError
   * otherwise. Only after this may an error be sent to the redirect URI.
   */
  async function verifyClient(clientId: string, redirectUri: string): Promise<AppRow> {
    const app = /^[A-Za-z0-9_]{1,64}$/.test(clientId) ? await deps.apps.findByClientId(clientId) : undefined;
    if (!app)
      throw new UnsafeAuthorizationError("VALIDATION_FAILED", { message: "Unknown app (client_id)." });
    if (!(app.redirect_uris as string[]).includes(redirectUri)) {
      throw new UnsafeAuthorizationError("VALIDATION_FAILED", {
        message: "The redirect_uri is not registered for this app.",
      });
    }
    return app;
  }

  /**
   * Checks an authorization request (RFC 6749 4.1.1): client and redirect URI first, then, in
   * this order, response_type, scope and PKCE. Throws UnsafeAuthorizationError or
   * RedirectableAuthorizationError.
   */
  async function validate(
    req: AuthorizationRequest & { responseType: string | undefined },
  ): Promise<{ app: AppRow; scopes: Scope[] }> {
    const app = await verifyClient(req.clientId, req.redirectUri);
    if (req.responseType === undefined) {
      throw new RedirectableAuthorizationError("invalid_request", "response_type is required; use code.");
    }
    if (req.responseType !== "code") {
      throw new RedirectableAuthorizationError(
        "unsupported_response_type",
        "Only response_type=code (the authorization code flow) is supported.",
      );
    }
    if (req.scope === undefined) {
      throw new RedirectableAuthorizationError("invalid_scope", "The scope parameter is required.");
    }
    const scopes = parseScopeParam(req.scope);
    if (!scopes)
      throw new RedirectableAuthorizationError(
        "invalid_scope",
        "The scope parameter names an unknown scope.",
      );
    const allowed = new Set(app.scopes as string[]);
    const extra = scopes.filter((s) => !allowed.has(s));
    if (extra.length) {
      throw new RedirectableAuthorizationError(
        "invalid_scope",
        `The app is not registered for: ${extra.join(", ")}.`,
      );
    }
    if (req.codeChallenge !== undefined || req.codeChallengeMethod !== undefined) {
      if (req.codeChallengeMethod !== "S256") {
        throw new RedirectableAuthorizationError("invalid_request", "code_challenge_method must be S256.");
      }
      if (!req.codeChallenge || !CHALLENGE_PATTERN.test(req.codeChallenge)) {
        throw new RedirectableAuthorizationError(
          "invalid_request",
          "code_challenge must be a base64url SHA-256 digest.",
        );
      }
    }
    return { app, scopes };
  }

  return {
    verifyClient,
    validate,

    /** The merchant's decision; answers where to send the browser. */
    async decide(
      input: AuthorizationRequest & { store: Store; approve: boolean; accountId: string },
    ): Promise<string> {
      let checked: { app: AppRow; scopes: Scope[] };
      try {
        // The consent page is only shown for a request with response_type=code.
        checked = await validate({ ...input, responseType: "code" });
      } catch (error) {
        if (error instanceof RedirectableAuthorizationError) {
          return buildRedirect(input.redirectUri, {
            error: error.oauthError,
            error_description: error.message,
            state: input.state,
            iss: deps.issuer,
          });
        }
        throw error;
      }
      if (!input.approve) {
        return buildRedirect(input.redirectUri, {
          error: "access_denied",
          state: input.state,
          iss: deps.issuer,
        });
      }
      const code = await deps.db.transaction().execute(async (tx) => {
        const installation = await deps.installations.installOrWiden(tx, {
          store: input.store,
          appId: checked.app.id,
          scopes: checked.scopes,
          accountId: input.accountId,
        });
        return deps.tokens.createCode(
          {
            storeId: input.store.id,
            installationId: installation.id,
            appId: checked.app.id,
            redirectUri: input.redirectUri,
            scopes: checked.scopes,
            codeChallenge: input.codeChallenge ?? null,
          },
          tx,
        );
      });
      return buildRedirect(input.redirectUri, {
        code,
        slug: input.store.slug,
        state: input.state,
        iss: deps.issuer,
      });
    },
  };
}
export type ConsentService = ReturnType<typeof createConsentService>;
