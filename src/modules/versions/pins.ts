import { AppError } from "../../lib/errors.ts";
import type { ApiVersions } from "./api-versions.ts";

/** How long after raising its app's version a developer may go back to the one before. */
export const PIN_ROLLBACK_MS = 72 * 3600_000;

/** An app's pin as stored: the version in force, and the one before with when it changed. */
export interface AppPin {
  apiVersion: string;
  previous: string | null;
  changedAt: Date | null;
}

/** The version the pin may be rolled back to, and until when; null when none. */
export function rollbackOf(pin: AppPin): { version: string; until: Date } | null {
  if (!pin.previous || !pin.changedAt) return null;
  return { version: pin.previous, until: new Date(pin.changedAt.getTime() + PIN_ROLLBACK_MS) };
}

/**
 * An app's pin after its developer asks for `asked` (issue 29): raised to any version served now
 * that is newer; rolled back to the version before the last change within 72 hours of it; nothing
 * else (409, naming what is allowed). A version not served is 400 UNSUPPORTED_API_VERSION. Null
 * when nothing changes. Versions are dates, so their names compare in order.
 */
export function changedPin(
  pin: AppPin,
  asked: string,
  now: Date,
  versions: Pick<ApiVersions, "resolve">,
): AppPin | null {
  const version = versions.resolve(asked, null, now);
  if (version === pin.apiVersion) return null;
  const rollback = rollbackOf(pin);
  const back = rollback && rollback.version === version && now <= rollback.until;
  if (version > pin.apiVersion || back)
    return { apiVersion: version, previous: pin.apiVersion, changedAt: now };
  throw new AppError("CONFLICT", {
    message: `An app's API version is raised to a newer one, or rolled back to the one before within 72 hours of the change${
      rollback && now <= rollback.until ? ` (${rollback.version}, until ${rollback.until.toISOString()})` : ""
    }: ${version} is older than ${pin.apiVersion}.`,
    details: [{ field: "apiVersion", message: "is older than the app's version" }],
  });
}
