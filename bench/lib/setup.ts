import { randomBytes } from "node:crypto";
import { type Answer, type Api, apiClient, type KeyScope, type Scope, text } from "../../test/api-client.ts";

/**
 * Everything a benchmark needs, made through the service's public HTTP API as a merchant and an
 * app developer would: sign-up, store, app registration, consent, code exchange, API keys.
 */
const PASSWORD = "correct horse battery staple";
export const REDIRECT = "https://bench.example.com/oauth/callback";

function check(what: string, res: Answer, status: number) {
  if (res.response.status !== status)
    throw new Error(`${what}: ${res.response.status} ${text(res).slice(0, 500)}`);
}

export async function merchantWithStore(base: string, prefix = "bench") {
  const client = apiClient(base);
  const email = `${prefix}-${Date.now()}-${randomBytes(3).toString("hex")}@example.com`;
  check(
    "sign-up",
    await client.POST("/api/v1/dashboard/auth/signup", {
      body: { email, password: PASSWORD, name: "Bench" },
    }),
    201,
  );
  const slug = `${prefix}-${randomBytes(5).toString("hex")}`;
  check("store", await client.POST("/api/v1/dashboard/stores", { body: { name: "Bench Store", slug } }), 201);
  return { client, slug };
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

/**
 * Registers an app (by another developer account) and installs it in the merchant's store
 * `families` times (each consent and code exchange starts a token family of its own).
 */
export async function installApp(
  base: string,
  merchant: { client: Api; slug: string },
  scopes: Scope[],
  families = 1,
) {
  const dev = await merchantWithStore(base, "dev");
  const app = await dev.client.POST("/api/v1/dashboard/apps", {
    body: {
      name: "Bench App",
      redirectUris: [REDIRECT],
      scopes,
    },
  });
  check("app registration", app, 201);
  const { clientId, clientSecret } = app.data!.data;
  const pairs: TokenPair[] = [];
  for (let i = 0; i < families; i++) {
    const consent = await merchant.client.POST("/api/v1/dashboard/oauth/consent", {
      body: {
        clientId,
        redirectUri: REDIRECT,
        scopes,
        state: `bench-${i}`,
        storeSlug: merchant.slug,
        approve: true,
      },
    });
    check("consent", consent, 200);
    const code = new URL(consent.data!.data.redirectTo).searchParams.get("code")!;
    const exchange = await apiClient(base).POST("/api/v1/apps/token", {
      body: {
        slug: merchant.slug,
        code,
        redirectUri: REDIRECT,
        clientId,
        clientSecret,
      },
    });
    check("code exchange", exchange, 200);
    pairs.push({
      accessToken: exchange.data!.data.accessToken,
      refreshToken: exchange.data!.data.refreshToken,
    });
  }
  return { clientId, clientSecret, pairs };
}

/** A developer API key pair of the merchant's store. */
export async function createApiKey(merchant: { client: Api; slug: string }, scopes: KeyScope[]) {
  const res = await merchant.client.POST("/api/v1/dashboard/stores/{slug}/api-keys", {
    params: { path: { slug: merchant.slug } },
    body: {
      name: "Bench export",
      scopes,
    },
  });
  check("API key", res, 201);
  return { "x-api-key": res.data!.data.keyId, "x-api-secret": res.data!.data.secret };
}
