import { randomBytes } from "node:crypto";
import type { LightMyRequestResponse } from "fastify";
import type { App } from "../src/lib/http/types.ts";
import { REDIRECT } from "./apps-harness.ts";
import { uniqueEmail } from "./harness.ts";

/**
 * The untyped JSON client the tests used before the typed one (`apiClient` in harness.ts), kept only
 * while the test files move to the typed client one by one (issue 28): nothing new uses it, and it
 * goes when the last file has moved.
 */

// biome-ignore lint/suspicious/noExplicitAny: test code reads response bodies loosely.
export type Json = Record<string, any>;

/** A JSON client over app.inject that keeps a session cookie, like a browser. */
export class Client {
  cookie: string | undefined;
  readonly app: App;
  readonly headers: Record<string, string>;
  constructor(app: App, headers: Record<string, string> = {}) {
    this.app = app;
    this.headers = headers;
  }

  async request(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await this.app.inject({
      method: method as "GET",
      url,
      headers: {
        ...(method !== "GET" ? { "content-type": "application/json" } : {}),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...this.headers,
        ...headers,
      },
      ...(body !== undefined ? { payload: typeof body === "string" ? body : JSON.stringify(body) } : {}),
    });
    const setCookie = res.cookies.find((c) => c.name === "mp_session");
    if (setCookie) this.cookie = setCookie.value ? `mp_session=${setCookie.value}` : undefined;
    return new Response_(res);
  }
  get = (url: string, headers?: Record<string, string>) => this.request("GET", url, undefined, headers);
  post = (url: string, body?: unknown, headers?: Record<string, string>) =>
    this.request("POST", url, body ?? {}, headers);
  patch = (url: string, body?: unknown, headers?: Record<string, string>) =>
    this.request("PATCH", url, body, headers);
  delete = (url: string, headers?: Record<string, string>) => this.request("DELETE", url, undefined, headers);
}

export class Response_ {
  readonly status: number;
  readonly body: Json;
  readonly headers: LightMyRequestResponse["headers"];
  readonly raw: LightMyRequestResponse;
  constructor(raw: LightMyRequestResponse) {
    this.raw = raw;
    this.status = raw.statusCode;
    this.headers = raw.headers;
    try {
      this.body = raw.json();
    } catch {
      this.body = { text: raw.body };
    }
  }
  get data(): Json {
    return this.body.data;
  }
  /** The body without the request's own id (`error.requestId`): what two answers compare on. */
  get answer(): Json {
    if (!this.body?.error || typeof this.body.error !== "object") return this.body;
    const { requestId: _id, ...error } = this.body.error as Json;
    return { ...this.body, error };
  }
}

/** Signs up a merchant with a store; returns the logged-in client and the store's slug. */
export async function merchantWithStore(app: App, slug?: string) {
  const client = new Client(app);
  const email = uniqueEmail();
  const password = "correct horse battery";
  const signup = await client.post("/api/v1/dashboard/auth/signup", {
    email,
    password,
    name: "Test Merchant",
  });
  if (signup.status !== 201)
    throw new Error(`signup failed: ${signup.status} ${JSON.stringify(signup.body)}`);
  const storeSlug = slug ?? `store-${randomBytes(4).toString("hex")}`;
  const store = await client.post("/api/v1/dashboard/stores", { name: "Test Store", slug: storeSlug });
  if (store.status !== 201) throw new Error(`store failed: ${store.status} ${JSON.stringify(store.body)}`);
  return {
    client,
    email,
    password,
    slug: storeSlug,
    store: store.data,
    base: `/api/v1/dashboard/stores/${storeSlug}`,
  };
}

/** Asserts the failure envelope shape; returns the error code. */
export function errorCode(res: Response_): string {
  const b = res.body;
  if (
    b.success !== false ||
    typeof b.message !== "string" ||
    typeof b.error?.code !== "string" ||
    typeof b.error?.message !== "string"
  ) {
    throw new Error(`not a failure envelope (${res.status}): ${JSON.stringify(b).slice(0, 300)}`);
  }
  return b.error.code;
}

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
