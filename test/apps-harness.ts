import type { App } from "../src/lib/http/types.ts";
import { Client, type Json, merchantWithStore } from "./harness.ts";

export const REDIRECT = "https://app.example.com/oauth/callback";

/** A developer account with a registered app. */
export async function registerApp(app: App, scopes: string[], name = "Test App") {
  const dev = await merchantWithStore(app);
  const res = await dev.client.post("/api/v1/dashboard/apps", { name, redirectUris: [REDIRECT], scopes });
  if (res.status !== 201) throw new Error(`app registration failed: ${JSON.stringify(res.body)}`);
  return { dev, clientId: res.data.clientId as string, clientSecret: res.data.clientSecret as string };
}

/** The merchant approves the app for their store; returns the code from the redirect. */
export async function consent(
  merchant: { client: Client; slug: string },
  clientId: string,
  scopes: string[],
  extra: Record<string, string> = {},
) {
  const res = await merchant.client.post("/api/v1/dashboard/oauth/consent", {
    clientId,
    redirectUri: REDIRECT,
    scopes,
    state: "st-123",
    storeSlug: merchant.slug,
    approve: true,
    ...extra,
  });
  if (res.status !== 200) throw new Error(`consent failed: ${JSON.stringify(res.body)}`);
  const url = new URL(res.data.redirectTo);
  return { code: url.searchParams.get("code")!, url };
}

export async function exchange(app: App, body: Json) {
  return new Client(app).post("/api/v1/apps/token", body);
}

/** Registers an app, installs it in a new merchant's store and returns tokens and handles. */
export async function installedApp(app: App, scopes: string[], appScopes = scopes) {
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
  if (res.status !== 200) throw new Error(`exchange failed: ${JSON.stringify(res.body)}`);
  const bearer = (token: string) => new Client(app, { authorization: `Bearer ${token}` });
  return { ...registered, merchant, tokens: res.data as Json, api: bearer(res.data.accessToken), bearer };
}
