import {
  API_VERSION_STATUSES,
  type ApiVersionStatus,
  ApiVersionStatus as Status,
} from "../../contracts/index.ts";
import { AppError } from "../../lib/errors.ts";
import type { VersionChange } from "./version-change.ts";

/**
 * The API's dated versions (issue 29): what each one is, whether it is served, and which changes
 * lie between two of them. Pure: the list and the clock's time come in.
 */

/** One version as declared (src/modules/versions/versions.ts). */
export interface VersionSpec {
  /** Its name and release date, `YYYY-MM-DD`. */
  version: string;
  /** The changes it introduced (none for the first version). */
  changes: readonly VersionChange[];
  /** Declared once the version is on its way out: from when it is deprecated, and when it retires. */
  deprecation?: { at: string; sunset: string };
}

export type VersionStatus = ApiVersionStatus;

/** A version as GET /api/versions lists it. */
export interface VersionView {
  version: string;
  status: VersionStatus;
  releasedAt: string;
  deprecatedAt: string | null;
  sunsetAt: string | null;
  changes: string[];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The instant a `YYYY-MM-DD` begins (UTC), or null when it is not such a date. */
export function dateOf(text: string): Date | null {
  const m = DATE.exec(text);
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().startsWith(text) ? d : null;
}

/** Checks a declared list: dated, in order, each change under its own version, sunsets 12 months on. */
export function checkVersions(versions: readonly VersionSpec[]): void {
  if (versions.length === 0) throw new Error("No API version is declared.");
  let previous: Date | null = null;
  for (const v of versions) {
    const at = dateOf(v.version);
    if (!at) throw new Error(`API version ${v.version} is not a date (YYYY-MM-DD).`);
    if (previous && at <= previous) throw new Error(`API versions must be in date order (${v.version}).`);
    previous = at;
    for (const c of v.changes)
      if (c.version !== v.version)
        throw new Error(`The change "${c.description}" is ${c.version}'s, declared under ${v.version}.`);
    if (v.deprecation) {
      const from = dateOf(v.deprecation.at);
      const sunset = dateOf(v.deprecation.sunset);
      if (!from || !sunset) throw new Error(`API version ${v.version}: deprecation dates are YYYY-MM-DD.`);
      // The policy (docs/decisions.md): at least 12 months between deprecation and retirement.
      const year = new Date(from);
      year.setUTCFullYear(year.getUTCFullYear() + 1);
      if (sunset < year)
        throw new Error(
          `API version ${v.version}: its sunset must be at least 12 months after its deprecation.`,
        );
    }
  }
  if (versions[0]!.changes.length > 0) throw new Error("The first API version changes nothing.");
}

/** The registry the service serves: statuses at a time, resolution of a requested version, changes between. */
export function createApiVersions(versions: readonly VersionSpec[]) {
  checkVersions(versions);
  const byName = new Map(versions.map((v, i) => [v.version, i]));
  const NONE: readonly VersionChange[] = Object.freeze([]);
  const after = new Map<string, readonly VersionChange[]>(
    versions.map((v, i) => {
      const changes = versions.slice(i + 1).flatMap((later) => later.changes);
      return [v.version, changes.length ? Object.freeze(changes.reverse()) : NONE];
    }),
  );

  // Each version's instants, parsed once (every request asks for a status).
  const instants = versions.map((v) => ({
    released: dateOf(v.version)!.getTime(),
    deprecated: v.deprecation ? dateOf(v.deprecation.at)!.getTime() : Number.POSITIVE_INFINITY,
    sunset: v.deprecation ? dateOf(v.deprecation.sunset)!.getTime() : Number.POSITIVE_INFINITY,
  }));

  /**
   * Versions released by `now` (a version dated later is not served yet). The first is always
   * released: it is the API the service started with, whatever the clock says.
   */
  const released = (now: Date) =>
    versions.filter((_v, i) => i === 0 || instants[i]!.released <= now.getTime());

  /** The index of the newest version released by `now` (the first is always released). */
  function currentIndex(now: Date): number {
    const t = now.getTime();
    let i = versions.length - 1;
    while (i > 0 && instants[i]!.released > t) i--;
    return i;
  }

  function current(now: Date): string {
    return versions[currentIndex(now)]!.version;
  }

  function statusOf(version: string, now: Date): VersionStatus | null {
    const i = byName.get(version);
    if (i === undefined) return null;
    const t = now.getTime();
    const at = instants[i]!;
    if (at.released > t && i > 0) return null;
    if (i === currentIndex(now)) return Status.current;
    if (at.sunset <= t) return Status.retired;
    if (at.deprecated <= t) return Status.deprecated;
    return Status.supported;
  }

  function served(now: Date): string[] {
    return released(now)
      .map((v) => v.version)
      .filter((v) => {
        const s = statusOf(v, now);
        return s !== null && API_VERSION_STATUSES[s].served;
      });
  }

  return {
    /** The newest released version: what a new app or key is pinned to. */
    current,
    statusOf,
    /** Every version that answers now (current, supported, deprecated), oldest first. */
    served,
    list(now: Date): VersionView[] {
      return released(now).map((v) => ({
        version: v.version,
        status: statusOf(v.version, now)!,
        releasedAt: v.version,
        deprecatedAt: v.deprecation?.at ?? null,
        sunsetAt: v.deprecation?.sunset ?? null,
        changes: v.changes.map((c) => c.description),
      }));
    },
    /** The deprecation of a version, when it is deprecated now (for the Deprecation and Sunset headers). */
    deprecationOf(version: string, now: Date): { at: Date; sunset: Date } | null {
      if (statusOf(version, now) !== Status.deprecated) return null;
      const at = instants[byName.get(version)!]!;
      return { at: new Date(at.deprecated), sunset: new Date(at.sunset) };
    },
    /**
     * The version a request is served at: the `Api-Version` header when sent, else the
     * credential's pin. Anything else answers 400 UNSUPPORTED_API_VERSION, never another version:
     * a malformed or unknown one lists the versions served; a retired one (sent, or pinned) names
     * the oldest one served.
     */
    resolve(header: string | undefined, pinned: string | null, now: Date): string {
      const asked = header ?? pinned ?? current(now);
      const servedNow = served(now);
      const status = statusOf(asked, now);
      if (status === null)
        throw new AppError("UNSUPPORTED_API_VERSION", {
          message: `${header === undefined ? "The pinned API version" : "Api-Version"} ${JSON.stringify(asked)} is not a version of this API: send one of ${servedNow.join(", ")} (YYYY-MM-DD), or leave the header out to be served at the credential's pinned version.`,
          details: { requested: asked, supported: servedNow },
        });
      if (status === Status.retired)
        throw new AppError("UNSUPPORTED_API_VERSION", {
          message: `API version ${asked} is retired and no longer served${header === undefined ? " (it is this credential's pinned version: raise the pin)" : ""}: the oldest version served is ${servedNow[0]}. See the changes since ${asked} in the API changelog.`,
          details: { requested: asked, retired: true, oldestSupported: servedNow[0], supported: servedNow },
        });
      return asked;
    },
    /**
     * The changes after `version` up to the newest declared, newest first: what serving `version`
     * undoes. The same array for the same version every time (the renderer compiles once per it).
     */
    changesAfter(version: string): readonly VersionChange[] {
      return after.get(version) ?? NONE;
    },
  };
}
export type ApiVersions = ReturnType<typeof createApiVersions>;
