import type { App } from "../src/lib/http/types.ts";
import { apiClient, merchantWithStore, ok, type RequestBody, type Scope } from "./harness.ts";

export const REDIRECT = "https://app.example.com/oauth/callback";

/** A developer account with a registered app. */
export async function registerApp(app: App, scopes: Scope[], name = "Test App") {
  const dev = await merchantWithStore(app);
  const res = await dev.client.POST("/api/v1/dashboard/apps", {
    body: { name, redirectUris: [REDIRECT], scopes },
  });
  const { clientId, clientSecret } = ok(res, 201).data;
  return { dev, clientId, clientSecret };
}

/** The merchant approves the app for their store; returns the code from the redirect. */
export async function consent(
  merchant: { client: ReturnType<typeof apiClient>; slug: string },
  clientId: string,
  scopes: Scope[],
  extra: Partial<RequestBody<"/api/v1/dashboard/oauth/consent", "post">> = {},
) {
  const res = await merchant.client.POST("/api/v1/dashboard/oauth/consent", {
    body: {
      clientId,
      redirectUri: REDIRECT,
      scopes,
      state: "st-123",
      storeSlug: merchant.slug,
      approve: true,
      ...extra,
    },
  });
  const url = new URL(ok(res).data.redirectTo);
  return { code: url.searchParams.get("code")!, url };
}

/**
 * The merchant approving the consent page an app's authorize link led to (its query: client id,
 * redirect URI, scopes, state and PKCE challenge, as the page reads them); answers where the
 * browser goes next (the app's callback with the code).
 */
export async function approveConsentPage(
  merchant: { client: ReturnType<typeof apiClient>; slug: string },
  q: URLSearchParams,
): Promise<string> {
  const decision = await merchant.client.POST("/api/v1/dashboard/oauth/consent", {
    body: {
      clientId: q.get("client_id")!,
      redirectUri: q.get("redirect_uri")!,
      scopes: q.get("scope")!,
      state: q.get("state")!,
      storeSlug: merchant.slug,
      approve: true,
      codeChallenge: q.get("code_challenge")!,
      codeChallengeMethod: q.get("code_challenge_method")!,
    },
  });
  return ok(decision).data.redirectTo;
}

/** The app's server exchanging a code (or a refresh token) at the token endpoint. */
export async function exchange(app: App, body: RequestBody<"/api/v1/apps/token", "post">) {
  return apiClient(app).POST("/api/v1/apps/token", { body });
}

/** Registers an app, installs it in a new merchant's store and returns tokens and handles. */
export async function installedApp(app: App, scopes: Scope[], appScopes = scopes) {
  const registered = await registerApp(app, appScopes);
  const merchant = await merchantWithStore(app);
  const { code } = await consent(merchant, registered.clientId, scopes);
  const res = await exchange(app, {
    slug: merchant.slug,
    code,
    redirectUri: REDIRECT,
    clientId: registered.clientId,
    clientSecret: registered.clientSecret,
  });
  const tokens = ok(res).data;
  const bearer = (token: string) => apiClient(app, { headers: { authorization: `Bearer ${token}` } });
  return { ...registered, merchant, tokens, api: bearer(tokens.accessToken), bearer };
}
