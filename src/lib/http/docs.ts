import compress from "@fastify/compress";
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
    /** What each tag means, by name (FeatureRoutes.tags): the document lists the tags the routes use. */
    tags: ReadonlyMap<string, string>;
    webhooks?: Record<string, unknown>;
    /** The configured limits the document states (the committed document: the defaults). */
    limits: { requestsPerMinute: number; accessTokenSeconds: number; refreshTokenSeconds: number };
    /** The API version the routes serve now: the document's `info.version`. */
    apiVersion: string;
    /**
     * The document at an older version (`?version=` on the document's address), from the current
     * one; throws (400) for a version that is not served.
     */
    documentAt?(current: Record<string, unknown>, version: string): Record<string, unknown>;
    /** More about the versions, for the document's description (links to each version's document). */
    versionsNote?: string;
    /** The other declared versions: each has its own docs page, `/api/docs/ui/versions/<version>`. */
    olderVersions?: readonly string[];
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
  // The document's tag list is derived from the routes: the tags they use, in the order they are
  // first used, each with its feature's description. A tag nobody describes stops the app here;
  // one described and never used, when the app is ready.
  const usedTags = new Set<string>();
  app.addHook("onRoute", (route) => {
    if (route.schema?.hide) return;
    for (const tag of (route.schema?.tags as string[] | undefined) ?? []) {
      if (!extra.tags.has(tag))
        throw new Error(
          `${route.method} ${route.url}: no feature describes the tag "${tag}" (FeatureRoutes.tags).`,
        );
      usedTags.add(tag);
    }
  });
  app.addHook("onReady", async () => {
    const unused = [...extra.tags.keys()].filter((tag) => !usedTags.has(tag));
    if (unused.length > 0) throw new Error(`Tags described but used by no route: ${unused.join(", ")}.`);
  });
  const appScopes = Object.fromEntries(
    Object.entries(GRANTABLE_SCOPES).map(([scope, { description }]) => [scope, description]),
  );
  await app.register(swagger, {
    // Named components, response headers, examples, the security rule: see openapi-finish.ts.
    transformObject: (document) =>
      finishDocument({
        ...("openapiObject" in document ? document.openapiObject : {}),
        tags: [...usedTags].map((name) => ({ name, description: extra.tags.get(name) })),
      }),
    // Shared schemas keep their own names in components.schemas.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Merchant Platform API",
        version: extra.apiVersion,
        description: extra.versionsNote ? `${API_DESCRIPTION}\n\n${extra.versionsNote}` : API_DESCRIPTION,
      },
      servers: [{ url: publicBaseUrl }],
      ...(extra.webhooks ? { webhooks: extra.webhooks } : {}),
      // Filled in from the routes when the document is made (transformObject, above).
      tags: [],
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
          mailOutboxCookie: {
            type: "apiKey",
            in: "cookie",
            name: "mp_outbox",
            description:
              "The operator's access to the local mail outbox (when no SMTP server is configured), set by `dashboardOpenMailOutbox` with the key the start log prints.",
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
      // Every answer here varies by it, the uncompressed ones too (the plugin says so only on the others).
      reply.header("vary", "accept-encoding");
    });
    // The docs page loads about 3 MB (Swagger UI's bundle, 1.7 MB, and the document, 0.7 MB):
    // compressed for a client that accepts it, only here (API answers are not: their CPU is the
    // hot path, and an export compresses itself). Brotli at the plugin's quality 4: ~0.5 MB on the
    // wire for a few milliseconds a file.
    await docs.register(compress, { global: true, encodings: ["br", "gzip"] });
    const documents = new Map<string, Record<string, unknown>>();
    docs.get<{ Querystring: { version?: string } }>(
      "/api/docs/openapi.json",
      { schema: { hide: true } },
      async (request) => {
        const version = request.query.version;
        if (version === undefined || !extra.documentAt) return app.swagger();
        let document = documents.get(version);
        if (!document) {
          document = extra.documentAt(app.swagger() as Record<string, unknown>, version);
          documents.set(version, document);
        }
        return document;
      },
    );
    await docs.register(swaggerUi, {
      routePrefix: "/api/docs/ui",
      // BaseLayout: without the standalone top bar, whose Swagger logo is an SVG with an inline
      // <style> (the CSP refuses it) and whose box loads any other document by URL.
      uiConfig: { deepLinking: true, layout: "BaseLayout" },
    });
    // Each other version's reference, at its own address: the same page on that version's
    // document. The document's description links every version's page (its version selector).
    // Each in its own scope: the plugin decorates the instance it is registered on.
    for (const version of extra.olderVersions ?? []) {
      const documentAt = extra.documentAt!;
      await docs.register(async (scope) => {
        await scope.register(swaggerUi, {
          routePrefix: `/api/docs/ui/versions/${version}`,
          uiConfig: { deepLinking: true, layout: "BaseLayout" },
          transformSpecification: (current) => documentAt(current as Record<string, unknown>, version),
        });
      });
    }
  });
}
