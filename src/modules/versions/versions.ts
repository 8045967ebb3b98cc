import type { VersionSpec } from "./api-versions.ts";
import { catalogue } from "./changes/2026-11-29-catalogue.ts";

/**
 * The API's versions, oldest first (issue 29). A new version is a new entry with the change
 * modules it introduces (src/modules/versions/changes/); the version before it gets its
 * `deprecation` when the change breaks what it served (docs/decisions.md, "API versions": at least
 * 12 months from deprecation to sunset). Never edit a released version's changes: add a version.
 */
export const API_VERSIONS: readonly VersionSpec[] = [
  // The API as it stood when versions began: every app and key pair made before is pinned to it.
  // Products before variants (issue 30): served until 2027-12-01, a year and two days after.
  { version: "2026-11-28", changes: [], deprecation: { at: "2026-11-29", sunset: "2027-12-01" } },
  { version: "2026-11-29", changes: [catalogue] },
];

/** Where the changelog is published (the `Link: …; rel="deprecation"` of a deprecated version). */
export const CHANGELOG_PATH = "/api/docs/changelog";
