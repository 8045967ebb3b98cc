import { randomBytes } from "node:crypto";
import { HttpClient } from "../../test/processes.ts";

/**
 * Everything a benchmark needs, made through the service's public HTTP API as a merchant and an
 * app developer would: sign-up, store, app registration, consent, code exchange, API keys.
 */
const PASSWORD = "correct horse battery staple";
export const REDIRECT = "https://bench.example.com/oauth/callback";

function check(what: string, res: { status: number; body: unknown }, status: number) {
  if (res.status !== status)
    throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
}

export async function merchantWithStore(base: string, prefix = "bench") {
  const client = new HttpClient(base);
  const email = `${prefix}-${Date.now()}-${randomBytes(3).toString("hex")}@example.com`;
  check(
    "sign-up",
    await client.post("/api/v1/dashboard/auth/signup", { email, password: PASSWORD, name: "Bench" }),
    201,
  );
  const slug = `${prefix}-${randomBytes(5).toString("hex")}`;
  check("store", await client.post("/api/v1/dashboard/stores", { name: "Bench Store", slug }), 201);
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
  merchant: { client: HttpClient; slug: string },
  scopes: string[],
  families = 1,
) {
  const dev = await merchantWithStore(base, "dev");
  const app = await dev.client.post("/api/v1/dashboard/apps", {
    name: "Bench App",
    redirectUris: [REDIRECT],
    scopes,
  });
  check("app registration", app, 201);
  const clientId: string = app.body.data.clientId;
  const clientSecret: string = app.body.data.clientSecret;
  const pairs: TokenPair[] = [];
  for (let i = 0; i < families; i++) {
    const consent = await merchant.client.post("/api/v1/dashboard/oauth/consent", {
      clientId,
      redirectUri: REDIRECT,
      scopes,
      state: `bench-${i}`,
      storeSlug: merchant.slug,
      approve: true,
    });
    check("consent", consent, 200);
    const code = new URL(consent.body.data.redirectTo).searchParams.get("code")!;
    const exchange = await new HttpClient(base).post("/api/v1/apps/token", {
      slug: merchant.slug,
      code,
      redirectUri: REDIRECT,
      clientId,
      clientSecret,
    });
    check("code exchange", exchange, 200);
    pairs.push({
      accessToken: exchange.body.data.accessToken,
      refreshToken: exchange.body.data.refreshToken,
    });
  }
  return { clientId, clientSecret, pairs };
}

/** A developer API key pair of the merchant's store. */
export async function createApiKey(merchant: { client: HttpClient; slug: string }, scopes: string[]) {
  const res = await merchant.client.post(`/api/v1/dashboard/stores/${merchant.slug}/api-keys`, {
    name: "Bench export",
    scopes,
  });
  check("API key", res, 201);
  return { "x-api-key": res.body.data.keyId as string, "x-api-secret": res.body.data.secret as string };
}
