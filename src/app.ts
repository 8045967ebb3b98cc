import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import cookie from "@fastify/cookie";
import fastifyStatic from "@fastify/static";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from "fastify";
import { AppError } from "./lib/errors.ts";
import { installDocs } from "./lib/http/docs.ts";
import {
  answerUnreadableRequest,
  installErrorHandling,
  installHostRule,
  sendError,
} from "./lib/http/error-handler.ts";
import { tagDescriptions } from "./lib/http/feature-routes.ts";
import { installIdempotency } from "./lib/http/idempotency.ts";
import { installJsonBody } from "./lib/http/json-body.ts";
import { pageSecurityHeaders } from "./lib/http/page-headers.ts";
import { RequestLog } from "./lib/http/request-log.ts";
import type { App } from "./lib/http/types.ts";
import { trackUnusedConnections } from "./lib/http/unused-connections.ts";
import { buildSerializer, installValidators } from "./lib/http/validation.ts";
import { createAdminGuard } from "./modules/families/admin-family.ts";
import { installFamilyGuard } from "./modules/families/api-family.ts";
import { createDashboardGuard, requireJsonWrites } from "./modules/families/dashboard-family.ts";
import { createDeveloperGuard } from "./modules/families/developer-family.ts";
import type { DeprecatedUsage } from "./modules/versions/deprecations.ts";
import { documentAt, versionsNote } from "./modules/versions/documents.ts";
import { installVersioning } from "./modules/versions/versioning.ts";
import { webhooksDocument } from "./modules/webhooks/webhooks-schemas.ts";
import type { Platform } from "./platform.ts";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Paths that are never the dashboard's: an unknown one is the API's 404 envelope even for a
 * browser (the API, its documents, the OAuth metadata, the probes, the dashboard's built files).
 */
const NOT_PAGES = /^\/(api|\.well-known|healthz|readyz|assets)(\/|$)/;

/** The dashboard's page paths, which its build writes (web/vite.config.ts) from the page modules' own. */
function readPagePaths(dashboard: string): string[] | null {
  const file = join(dashboard, "pages.json");
  return existsSync(join(dashboard, "index.html")) && existsSync(file)
    ? (JSON.parse(readFileSync(file, "utf8")) as string[])
    : null;
}

const DASHBOARD_HEADERS = {
  // The consent page is one of these: no other site may frame it (clickjacking).
  ...pageSecurityHeaders(),
  // The page is the same for every path and every merchant; the files it loads carry their hash.
  "cache-control": "no-cache",
};

/**
 * The credential an idempotency key belongs to: the installation (store + app) on the Admin API,
 * the key pair on the developer API, the merchant and the store on the dashboard (the merchant
 * alone where no store is involved, as when creating one).
 */
function idempotencyScope(request: FastifyRequest): string | null {
  if (request.access) return `installation:${request.access.installationId}`;
  if (request.apiKey) return `apikey:${request.apiKey.keyId}`;
  if (request.account)
    return request.store
      ? `account:${request.account.id}:store:${request.store.id}`
      : `account:${request.account.id}`;
  return null;
}

/** What a browser gets for a page while the dashboard is not built. */
function notBuilt(reply: FastifyReply) {
  return reply
    .status(503)
    .type("text/plain; charset=utf-8")
    .send("The dashboard is not built: run `npm install` (or `npm run build:web`).");
}

/** Builds the HTTP application on already-open dependencies. No I/O happens here beyond registering routes. */
export async function buildApp(
  platform: Platform,
  options: { logger?: FastifyServerOptions["logger"]; loggerInstance?: FastifyBaseLogger } = {},
): Promise<App> {
  const { config } = platform;
  const app = Fastify({
    ...(options.loggerInstance
      ? { loggerInstance: options.loggerInstance }
      : { logger: options.logger ?? false }),
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { removeAdditional: false } },
    // Response serializers compiled on a route's first response (lib/http/validation.ts).
    schemaController: { compilersFactory: { buildSerializer } },
    routerOptions: { maxParamLength: 200 },
    // Errors the router raises before any route runs (over-long or malformed URLs) get the envelope too.
    frameworkErrors: (_error, _request, reply) => {
      sendError(reply, new AppError("BAD_REQUEST", { message: "The URL is malformed or too long." }));
    },
    // Requests Node's HTTP parser refuses (a NUL or DEL in a header, …) before Fastify sees them.
    clientErrorHandler: answerUnreadableRequest,
    // Checked by installHostRule instead, which answers with the envelope (Node's is a bare 400).
    http: { requireHostHeader: false },
    // One line per request instead of Fastify's two (lib/http/request-log.ts).
    logController: new RequestLog(),
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Before the server closes: connections that never carried a request would hold it open.
  const connections = trackUnusedConnections(app.server);
  app.addHook("preClose", async () => connections.closeUnused());
  // Where the merchant dashboard is built (web/dist, by `npm install`), whether it is, and its pages.
  const dashboard = join(import.meta.dirname, "..", "web", "dist");
  const pagePaths = readPagePaths(dashboard);
  const built = pagePaths !== null;
  installValidators(app);
  installErrorHandling(app, {
    // An address typed into the browser that no page has (`/orders`, `/settings`) gets the
    // dashboard, which shows its own "Page not found" (with the 404 status); API paths and
    // clients that do not ask for HTML keep the envelope.
    notFoundPage: (request, reply) => {
      const path = request.url.split("?")[0]!;
      const wantsPage =
        (request.method === "GET" || request.method === "HEAD") &&
        !NOT_PAGES.test(path) &&
        /\btext\/html\b/.test(request.headers.accept ?? "");
      if (!wantsPage) return undefined;
      return built ? reply.status(404).headers(DASHBOARD_HEADERS).sendFile("index.html") : notBuilt(reply);
    },
  });
  installHostRule(app);
  installJsonBody(app);
  // A create whose resource is read at `<path>/:id` says where (`Location`), replays included;
  // the OpenAPI document states the same rule (lib/http/openapi-finish.ts).
  const readable = new Set<string>();
  app.addHook("onRoute", (route) => {
    if ([route.method].flat().includes("GET")) readable.add(route.url);
  });
  app.addHook("onSend", async (request, reply, payload) => {
    reply.header("x-request-id", request.id);
    if (reply.statusCode !== 201 || request.method !== "POST" || typeof payload !== "string") return;
    if (!readable.has(`${request.routeOptions.url}/:id`)) return;
    const id = (JSON.parse(payload) as { data?: { id?: unknown } }).data?.id;
    if (typeof id === "string")
      reply.header("location", `${request.url.split("?")[0]}/${encodeURIComponent(id)}`);
  });
  app.decorateRequest("account", null);
  await app.register(cookie);
  await installDocs(app, config.PUBLIC_BASE_URL, {
    tags: tagDescriptions(platform.routes),
    webhooks: webhooksDocument({
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
      disableAfterMs: config.WEBHOOK_DISABLE_AFTER_SECONDS * 1000,
    }),
    limits: {
      requestsPerMinute: config.RATE_LIMIT_PER_MINUTE,
      accessTokenSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
    },
    apiVersion: platform.versions.registry.current(platform.clock.now()),
    versionsNote: versionsNote(platform.versions.declared, platform.versions.changelogUrl),
    olderVersions: platform.versions.declared
      .map((v) => v.version)
      .filter((v) => v !== platform.versions.registry.current(platform.clock.now())),
    documentAt: (current, version) => {
      const { registry, schemas } = platform.versions;
      // A version that is not served answers 400 UNSUPPORTED_API_VERSION, as a request would.
      registry.resolve(version, null, platform.clock.now());
      return documentAt(current, version, { versions: registry, schemas });
    },
  });
  // Before any route: it applies itself to every create route (POST with a 201 and credentials).
  installIdempotency(app, { store: platform.idempotency, scopeOf: idempotencyScope });

  // The route table (platform.routes), family by family: each family's scope and guard, then
  // every feature's routes of that family, in the table's order.
  const { integration } = platform;
  for (const feature of platform.routes) feature.public?.(app);
  app.decorateRequest("access", null);
  app.decorateRequest("apiKey", null);
  app.decorateRequest("credentialCheck", null);
  app.decorateRequest("storeRole", null);
  app.decorateRequest("apiVersion", null);
  // The Admin API and the developer API are versioned (modules/versions): the version a request
  // is served at, its body brought up and its answer down, `Api-Version` on every answer.
  const versioning = {
    versions: platform.versions.registry,
    renderer: platform.versions.renderer,
    schemas: platform.versions.schemas,
    clock: platform.clock,
    changelogUrl: platform.versions.changelogUrl,
    // An app's calls that used something deprecated, counted for its developer (the app's page).
    deprecatedCall: (request: FastifyRequest, version: string, usage: DeprecatedUsage) => {
      const operationId = (request.routeOptions.schema as { operationId?: string } | undefined)?.operationId;
      if (request.access && operationId)
        platform.versions.deprecatedCalls.count(
          request.access.appId,
          version,
          operationId,
          usage,
          platform.clock.now(),
        );
    },
  };
  // Both token families check credentials and the route's scope in onRequest: a request without
  // them answers 401/403 before its body is parsed or its query validated, and malformed requests
  // still spend quota. Every route of a family declares its scope; the guard checks exactly that.
  await app.register(
    async (scope) => {
      const developer = scope.withTypeProvider<TypeBoxTypeProvider>();
      installFamilyGuard(
        developer,
        createDeveloperGuard({ keys: platform.developer.keys, limiter: platform.developer.limiter }),
      );
      installVersioning(developer, {
        ...versioning,
        pinnedVersion: (request) => request.apiKey?.apiVersion ?? null,
      });
      for (const feature of platform.routes) feature.developer?.(developer);
    },
    { prefix: "/api/v1/developer" },
  );
  await app.register(
    async (scope) => {
      const admin = scope.withTypeProvider<TypeBoxTypeProvider>();
      installFamilyGuard(
        admin,
        createAdminGuard({ tokens: integration.tokens, limiter: integration.adminLimiter }),
      );
      installVersioning(admin, {
        ...versioning,
        pinnedVersion: (request) => request.access?.apiVersion ?? null,
      });
      for (const feature of platform.routes) feature.admin?.(admin);
    },
    { prefix: "/api/v1/apps/api" },
  );
  // The dashboard API, authenticated by the session cookie: outside a store each route checks the
  // session itself; a store's routes (`/stores/:slug/...`) are in their own scope, so that the
  // guard (session, a store the account owns, the route's scope) runs on each of them.
  await app.register(
    async (scope) => {
      const account = scope.withTypeProvider<TypeBoxTypeProvider>();
      requireJsonWrites(account);
      for (const feature of platform.routes) feature.account?.(account);
      await account.register(async (storeScope) => {
        const store = storeScope.withTypeProvider<TypeBoxTypeProvider>();
        installFamilyGuard(
          store,
          createDashboardGuard({ requireSession: platform.requireSession, stores: platform.services.stores }),
        );
        for (const feature of platform.routes) feature.store?.(store);
      });
    },
    { prefix: "/api/v1/dashboard" },
  );

  // The merchant dashboard (web/, built into web/dist by `npm install`): static files, no inline
  // script or style, nothing from another origin.
  await app.register(fastifyStatic, {
    root: built ? dashboard : join(import.meta.dirname, "..", "web"),
    prefix: "/",
    wildcard: false,
    index: false,
    // The `.br` and `.gz` copies the build writes beside each file (web/vite.config.ts), by the
    // browser's Accept-Encoding, with `Vary: Accept-Encoding`.
    preCompressed: true,
    setHeaders: (res, path) => {
      for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) res.header(name, value);
      // Built files carry a hash of their content in their name: they never change.
      if (path.includes(`${sep}assets${sep}`))
        res.header("cache-control", "public, max-age=31536000, immutable");
    },
  });
  // The dashboard's pages (it routes in the browser; each page module declares its path, and the
  // build lists them) all answer its page; anything else that no route knows is a 404: the
  // dashboard's page for a browser, the envelope otherwise.
  for (const path of pagePaths ?? []) {
    app.get(path, { schema: { hide: true } }, async (_request, reply) =>
      reply.headers(DASHBOARD_HEADERS).sendFile("index.html"),
    );
  }
  // No /metrics here: Prometheus data is served on its own listener (src/lib/metrics.ts, METRICS_PORT).
  return app;
}
