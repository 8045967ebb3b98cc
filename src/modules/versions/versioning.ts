import fastJsonStringify from "fast-json-stringify";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Clock } from "../../lib/clock.ts";
import type { App } from "../../lib/http/types.ts";
import { bodyValidationError, bodyValidator } from "../../lib/http/validation.ts";
import type { ApiVersions } from "./api-versions.ts";
import { type DeprecatedUsage, type Deprecation, deprecatedFields } from "./deprecations.ts";
import { type Renderer, upgradeRequest } from "./render.ts";
import type { SchemaVersions } from "./schema-versions.ts";
import type { Json, VersionChange } from "./version-change.ts";

export const API_VERSION_HEADER = "api-version";

declare module "fastify" {
  interface FastifyRequest {
    /** The API version the request is served at (the versioned families), once resolved. */
    apiVersion: string | null;
  }
  interface FastifyContextConfig {
    /**
     * The route writes its answer with JSON.stringify, not its schema's serializer (the event
     * feed: each event's data as it was recorded): an older version's answer is written so too.
     */
    serializeAsIs?: boolean;
    /** The operation is deprecated (set by the family's route helper from its `deprecated`). */
    deprecation?: Deprecation;
  }
}

/** How a versioned family serves versions: the registry, and the credential's pin. */
export interface VersioningDeps {
  versions: ApiVersions;
  renderer: Renderer;
  schemas: SchemaVersions;
  clock: Clock;
  /** The version the request's credential is pinned to (its app's or key pair's); null when unknown. */
  pinnedVersion(request: FastifyRequest): string | null;
  /** Where the changelog is (the `Link` of a deprecated version's answers). */
  changelogUrl: string;
  /**
   * A call that used something deprecated (its version, its operation, a field of its body):
   * counted for the credential's owner (cheaply, in memory).
   */
  deprecatedCall?(request: FastifyRequest, version: string, usage: DeprecatedUsage): void;
}

/** Day `YYYY-MM-DD` as the instant it begins (UTC). */
const dayStart = (day: string) => new Date(`${day}T00:00:00.000Z`);

/**
 * What the request used that is deprecated, each with its dates: the version it is served at, the
 * operation, the top-level body fields it sent.
 */
function deprecationsOf(
  request: FastifyRequest,
  version: { at: Date; sunset: Date } | null,
): Array<{ usage: DeprecatedUsage; at: Date; sunset: Date }> {
  const found: Array<{ usage: DeprecatedUsage; at: Date; sunset: Date }> = [];
  if (version) found.push({ usage: "version", ...version });
  const operation = request.routeOptions.config.deprecation;
  if (operation)
    found.push({ usage: "operation", at: dayStart(operation.at), sunset: dayStart(operation.sunset) });
  const bodySchema = (request.routeOptions.schema as { body?: object } | undefined)?.body;
  const body = request.body;
  if (bodySchema && body && typeof body === "object")
    for (const [name, field] of deprecatedFields(bodySchema))
      if ((body as Record<string, unknown>)[name] !== undefined)
        found.push({ usage: `field:${name}`, at: dayStart(field.at), sunset: dayStart(field.sunset) });
  return found;
}

/** The header as sent, when it is one value (a repeated header is one malformed value). */
function headerOf(request: FastifyRequest): string | undefined {
  const raw = request.headers[API_VERSION_HEADER];
  if (raw === undefined) return undefined;
  return Array.isArray(raw) ? raw.join(",") : raw.trim();
}

/**
 * Installs API versions on a family's scope (the Admin API, the developer API), after its guard:
 * the version a request is served at (its `Api-Version` header, else its credential's pin; 400
 * UNSUPPORTED_API_VERSION for anything else), the request body brought up to the newest shape
 * before it is validated, the answer brought down to the version's shape and serialised with that
 * version's schema, and `Api-Version` on every answer, errors included. A deprecated version's
 * answers say so (RFC 9745 `Deprecation`, RFC 8594 `Sunset`, `Link … rel="deprecation"`).
 * Handlers and services never see a version: they compute the newest shape.
 */
export function installVersioning(app: App, deps: VersioningDeps): void {
  const { versions, clock } = deps;
  /** Serialisers of older versions' answers, per schema as that version has it. */
  const serializers = new WeakMap<object, (data: unknown) => string>();

  // After the guard's onRequest (authentication sets the pin it reads): hooks run in order.
  app.addHook("onRequest", async (request) => {
    request.apiVersion = versions.resolve(headerOf(request), deps.pinnedVersion(request), clock.now());
  });

  /** An operation's request body schema as an older version has it, when a change rewrites it. */
  const olderBodies = new Map<string, Map<readonly VersionChange[], object | null>>();
  function olderBody(operationId: string, body: object, changes: readonly VersionChange[]): object | null {
    let byChanges = olderBodies.get(operationId);
    if (!byChanges) {
      byChanges = new Map();
      olderBodies.set(operationId, byChanges);
    }
    const known = byChanges.get(changes);
    if (known !== undefined) return known;
    let older: object | null = null;
    for (const change of changes) {
      const fn = change.requestSchemas?.[operationId];
      if (fn) older = fn((older ?? body) as Json);
    }
    byChanges.set(changes, older);
    return older;
  }

  // A body sent at an older version is checked against that version's schema (what its document
  // says: a newer field is unknown there), then brought up to the newest shape, which the route's
  // own schema checks.
  app.addHook("preValidation", async (request) => {
    const version = request.apiVersion;
    const schema = request.routeOptions.schema as { operationId?: string; body?: object } | undefined;
    const operationId = schema?.operationId;
    if (!version || !operationId || request.body === undefined) return;
    const changes = versions.changesAfter(version);
    if (changes.length === 0) return;
    const older = schema.body && olderBody(operationId, schema.body, changes);
    if (older) {
      const validate = bodyValidator(older);
      if (!validate(request.body)) throw bodyValidationError(validate.errors);
    }
    request.body = upgradeRequest(operationId, request.body, changes);
  });

  app.addHook("preSerialization", async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const version = request.apiVersion;
    if (!version || payload === null || typeof payload !== "object") return payload;
    const changes = versions.changesAfter(version);
    if (changes.length === 0) return payload;
    const responses = (request.routeOptions.schema as { response?: Record<number, object> } | undefined)
      ?.response;
    const schema = responses?.[reply.statusCode];
    if (!schema) return payload;
    const older = deps.schemas.at(schema, changes);
    if (request.routeOptions.config.serializeAsIs) reply.serializer(JSON.stringify);
    else if (older !== schema) {
      let serialize = serializers.get(older);
      if (!serialize) {
        // With the shared schemas its `$ref`s name (the error envelope), at the same version.
        const shared = Object.fromEntries(
          Object.entries(request.server.getSchemas()).map(([id, s]) => [
            id,
            deps.schemas.at(s as object, changes),
          ]),
        );
        serialize = fastJsonStringify(older as never, { schema: shared as never }) as (
          data: unknown,
        ) => string;
        serializers.set(older, serialize);
      }
      reply.serializer(serialize);
    }
    return deps.renderer.render(schema, payload, changes);
  });

  app.addHook("onSend", async (request, reply, payload) => {
    const now = clock.now();
    // The version served; for an answer given before it was resolved (401, a bad version), the
    // version asked for when it is one, else the current one.
    let served = request.apiVersion;
    if (!served) {
      const asked = headerOf(request);
      served = asked && versions.statusOf(asked, now) ? asked : versions.current(now);
    }
    reply.header("Api-Version", served);
    const used = deprecationsOf(request, versions.deprecationOf(served, now));
    if (used.length) {
      // One header each (RFC 9745, RFC 8594): what goes first, the soonest sunset.
      const first = used.reduce((a, b) => (b.sunset < a.sunset ? b : a));
      reply.header("Deprecation", `@${Math.floor(first.at.getTime() / 1000)}`);
      reply.header("Sunset", first.sunset.toUTCString());
      reply.header("Link", `<${deps.changelogUrl}>; rel="deprecation"; type="text/html"`);
      if (request.apiVersion) for (const { usage } of used) deps.deprecatedCall?.(request, served, usage);
    }
    return payload;
  });
}
