import Type from "typebox";
import { ApiVersionStatusSchema } from "../../contracts/index.ts";
import type { Clock } from "../../lib/clock.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { pageSecurityHeaders } from "../../lib/http/page-headers.ts";
import { Envelope, errorResponses } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import type { ApiVersions, VersionSpec } from "./api-versions.ts";
import { changelogHtml } from "./documents.ts";
import { CHANGELOG_PATH } from "./versions.ts";

const ApiDate = Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", examples: ["2026-11-28"] });

export const ApiVersionResource = Type.Object(
  {
    version: { ...ApiDate, description: "The version's name: the date it was released." },
    status: ApiVersionStatusSchema,
    releasedAt: { ...ApiDate, description: "When it was released." },
    deprecatedAt: Type.Union([ApiDate, Type.Null()], {
      description: "From when it is deprecated; null if it is not.",
    }),
    sunsetAt: Type.Union([ApiDate, Type.Null()], {
      description:
        "When it retires (at least 12 months after its deprecation); null if it is not deprecated.",
    }),
    changes: Type.Array(Type.String(), {
      description: "What this version changed, one line each (the changelog).",
    }),
  },
  { title: "ApiVersion" },
);

/** The API's versions, publicly (`GET /api/versions`). */
export function versionRoutes(deps: {
  versions: ApiVersions;
  declared: readonly VersionSpec[];
  clock: Clock;
  changelogUrl: string;
}): FeatureRoutes {
  const headers = pageSecurityHeaders();
  return {
    tags: {
      Versions:
        "The API's dated versions. Every Admin API and developer API request may send `Api-Version: YYYY-MM-DD`; without it, it is served at its credential's pinned version (the app's, the key pair's). Every answer carries `Api-Version`: the version it was served at.",
    },
    public(app: App) {
      app.get(
        "/api/versions",
        {
          schema: {
            operationId: "listApiVersions",
            security: [],
            tags: ["Versions"],
            summary: "The API's versions and their status",
            description: `Every released version, oldest first, with its status and what it changed; a deprecated one with its deprecation and sunset dates. The changes in full: [the changelog](${deps.changelogUrl}).`,
            response: { 200: Envelope(Type.Array(ApiVersionResource)), ...errorResponses() },
          },
        },
        async () => ({ success: true as const, data: deps.versions.list(deps.clock.now()) }),
      );
      // The page a deprecated version's answers link to (`Link: …; rel="deprecation"`).
      app.get(CHANGELOG_PATH, { schema: { hide: true } }, async (_request, reply) =>
        reply
          .headers(headers)
          .type("text/html; charset=utf-8")
          .send(changelogHtml(deps.declared, (v) => deps.versions.statusOf(v, deps.clock.now()))),
      );
    },
  };
}
