import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { GRANTABLE_SCOPES } from "../../contracts/scopes.ts";
import { durationInWords } from "../duration-words.ts";
import { ERROR_CODES } from "../errors.ts";
import { finishDocument } from "./openapi-finish.ts";
import { pageSecurityHeaders } from "./page-headers.ts";
import { ErrorEnvelope, errorResponses } from "./schemas.ts";

const errorTable = Object.entries(ERROR_CODES)
  .map(([code, { status, description }]) => `| \`${code}\` | ${status} | ${description} |`)
  .join("\n");

export const API_DESCRIPTION = `Merchant Platform API.

Every JSON response is an envelope. Success: \`{ "success": true, "data": ..., "meta": ... }\` (\`meta\` on lists).
Failure: \`{ "success": false, "message": "...", "error": { "code": "...", "message": "...", "details": ... } }\`.
Check \`success\` first, then branch on \`error.code\`, which is always one of:

| code | HTTP status | meaning |
|---|---|---|
${errorTable}

Another tenant's resource always answers \`NOT_FOUND\`, never \`FORBIDDEN\`.`;

/** Registers the OpenAPI 3.1 generator (fed by every route's schema) and the offline Swagger UI. */
export async function installDocs(
  app: FastifyInstance,
  publicBaseUrl: string,
  extra: {
    webhooks?: Record<string, unknown>;
    /** The configured limits the document states (the committed document: the defaults). */
    limits: { requestsPerMinute: number; accessTokenSeconds: number; refreshTokenSeconds: number };
  },
): Promise<void> {
  const { requestsPerMinute, accessTokenSeconds, refreshTokenSeconds } = extra.limits;
  app.addSchema(ErrorEnvelope);
  // The JSON body parser answers 413 and 415 before any route runs (and the dashboard's CSRF guard
  // refuses every non-JSON write), so every state-changing envelope route can answer them.
  app.addHook("onRoute", (route) => {
    const response = route.schema?.response as Record<string, { $ref?: string }> | undefined;
    const writes = [route.method].flat().some((m) => ["POST", "PUT", "PATCH", "DELETE"].includes(m));
    if (!writes || !response || !Object.values(response).some((r) => r?.$ref === "Error#")) return;
    route.schema!.response = {
      ...errorResponses("PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"),
      ...response,
    };
  });
  const appScopes = Object.fromEntries(
    Object.entries(GRANTABLE_SCOPES).map(([scope, { description }]) => [scope, description]),
  );
  await app.register(swagger, {
    // Named components, response headers, examples, the security rule: see openapi-finish.ts.
    transformObject: (document) => finishDocument("openapiObject" in document ? document.openapiObject : {}),
    // Shared schemas keep their own names in components.schemas.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    openapi: {
      openapi: "3.1.0",
      info: { title: "Merchant Platform API", version: "1.0.0", description: API_DESCRIPTION },
      servers: [{ url: publicBaseUrl }],
      ...(extra.webhooks ? { webhooks: extra.webhooks } : {}),
      tags: [
        { name: "Dashboard: account", description: "Merchant sign-up and sessions (cookie `mp_session`)." },
        { name: "Dashboard: stores", description: "The merchant's stores." },
        { name: "Dashboard: products", description: "A store's catalogue." },
        { name: "Dashboard: customers", description: "A store's customers." },
        { name: "Dashboard: orders", description: "A store's orders and their status." },
        { name: "Dashboard: apps", description: "Register apps and rotate their client secrets." },
        { name: "Dashboard: installed apps", description: "Apps installed in a store; uninstall." },
        {
          name: "App integration: consent",
          description: "The authorization code flow's merchant side: consent page and decision.",
        },
        {
          name: "App integration: tokens",
          description: "Token exchange and refresh for apps, in the platform envelope.",
        },
        {
          name: "OAuth 2.0 (standard)",
          description:
            "RFC 6749 / 7636 / 7009 / 8414 endpoints for off-the-shelf OAuth clients. They answer RFC shapes, not the envelope.",
        },
        {
          name: "Admin API: store",
          description: "Any valid bearer token: the store the app is installed in, with its settings.",
        },
        {
          name: "Admin API: products",
          description:
            "Bearer token with `read_products` / `write_products`. Each app reads and writes its own `metadata` on a product, and only its own.",
        },
        {
          name: "Admin API: orders",
          description:
            "Bearer token with `read_orders` to read; `write_orders` to create orders, move them along their statuses (with the carrier and tracking number when shipped) and change their note, tags, shipping address and the app's own `metadata`.",
        },
        {
          name: "Admin API: customers",
          description:
            "Bearer token with `read_customers` to read; `write_customers` to create customers and change them, addresses and the app's own `metadata` included.",
        },
        {
          name: "Admin API: webhooks",
          description:
            "Bearer token with `manage_webhooks` (and the event's own scope). The deliveries themselves are described in the `webhooks` section.",
        },
        {
          name: "Admin API: events",
          description:
            "Any valid access token; each event type needs its own scope, as for subscribing. The store's events in the order they became visible, to read back what webhooks carried and resume from a stored cursor.",
        },
        {
          name: "Admin API: export",
          description:
            "Bulk export: every product, order or customer of the store as JSON Lines in one streamed response (the read scope of the resource), each line exactly an item of the resource's list; resumable after a dropped connection. See the operation's description.",
        },
        {
          name: "Dashboard: API keys",
          description:
            "Key pairs for the developer API: the secret is shown once, at creation; revoking is immediate.",
        },
        {
          name: "Developer API: store",
          description:
            "The developer API (`/api/v1/developer`). Send `x-api-key` and `x-api-secret` on every request. Checks, in order: both headers (401 `UNAUTHENTICATED`); the key pair (401 `INVALID_CREDENTIALS`, the same answer for an unknown key, a wrong secret, a revoked or an expired key; repeated failures per key id or IP answer 429); the key's rate limit (429, `X-RateLimit-*` headers on every authenticated answer); the key's scope for the operation (403 `INSUFFICIENT_SCOPE` with `details.requiredScope`; each operation names its scope); the request (400).",
        },
        {
          name: "Developer API: products",
          description: "`read_products` to read; `write_products` to create, change and delete.",
        },
        { name: "Developer API: orders", description: "`read_orders`: orders page by page, and one order." },
        {
          name: "Developer API: customers",
          description: "`read_customers`: customers page by page, and one customer.",
        },
        {
          name: "Developer API: export",
          description:
            "Bulk export with a key pair: every product, order or customer as JSON Lines (the key's read scope of the resource), as the Admin API's export.",
        },
        {
          name: "Operations",
          description:
            "Health and readiness probes. Prometheus metrics are not on this port: they are served at `/metrics` on the metrics listener (`METRICS_HOST:METRICS_PORT`, loopback by default).",
        },
      ],
      components: {
        securitySchemes: {
          developerKey: {
            type: "apiKey",
            in: "header",
            name: "x-api-key",
            description:
              "Developer API key id (`mpk_…`), created in the dashboard. Always sent with `x-api-secret`.",
          },
          developerSecret: {
            type: "apiKey",
            in: "header",
            name: "x-api-secret",
            description: `Developer API key secret (\`mpsk_…\`), shown once at creation. Responses carry the \`X-RateLimit-*\` headers: ${requestsPerMinute} requests per key pair in any 60 seconds.`,
          },
          appOAuth: {
            type: "oauth2",
            description: `OAuth 2.0 authorization code with PKCE: the merchant approves the app's scopes at the authorize URL; the app exchanges the code at the token URL for an access token (\`mpat_…\`, ${durationInWords(accessTokenSeconds * 1000)}, bound to one installation and its approved scopes), sent as \`Authorization: Bearer …\`, and a single-use refresh token (\`mprt_…\`, ${durationInWords(refreshTokenSeconds * 1000)}). Admin API responses carry \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`; ${requestsPerMinute} accepted requests per installation in any 60 seconds, then 429 with \`Retry-After\`.`,
            flows: {
              authorizationCode: {
                authorizationUrl: `${publicBaseUrl}/api/v1/apps/authorize`,
                tokenUrl: `${publicBaseUrl}/api/v1/oauth/token`,
                refreshUrl: `${publicBaseUrl}/api/v1/oauth/token`,
                scopes: appScopes,
              },
            },
          },
          sessionCookie: {
            type: "apiKey",
            in: "cookie",
            name: "mp_session",
            description:
              "Dashboard session, set by login or signup. State-changing requests must send `Content-Type: application/json`.",
          },
        },
      },
    },
  });
  // The docs UI shares the origin (and so the session cookie) with the dashboard: the same headers
  // on its page and every file it loads. Its "Try it out" calls the documented server.
  const docsHeaders = pageSecurityHeaders({ connectTo: [new URL(publicBaseUrl).origin] });
  await app.register(async (docs) => {
    docs.addHook("onRequest", async (_request, reply) => {
      reply.headers(docsHeaders);
    });
    await docs.register(swaggerUi, {
      routePrefix: "/api/docs/ui",
      // BaseLayout: without the standalone top bar, whose Swagger logo is an SVG with an inline
      // <style> (the CSP refuses it) and whose box loads any other document by URL.
      uiConfig: { deepLinking: true, layout: "BaseLayout" },
    });
  });
  app.get("/api/docs/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
