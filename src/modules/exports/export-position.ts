import { isStorableInstant, parseDateTime } from "../../contracts/date-time.ts";
import type { IdKind } from "../../contracts/index.ts";
import { AppError } from "../../lib/errors.ts";
import type { ExportWindow } from "../../lib/pagination.ts";

/**
 * Pure rules of a bulk export (the streaming is exports-service.ts): what it may export, its
 * snapshot token, where a request starts, and whether the answer is gzipped.
 */

/** What can be exported, and the kind of id each record has (the resume position `after`). */
export const EXPORT_RESOURCES = {
  products: "product",
  orders: "order",
  customers: "customer",
  /** Stock levels (a variant at a location), optionally of one location. */
  inventory: "inventoryLevel",
} as const satisfies Record<string, IdKind>;
export type ExportResource = keyof typeof EXPORT_RESOURCES;

/**
 * The snapshot an export reads, carried from its first request to every resume: the snapshot time
 * (records created after it are left out) and the `updatedSince` it was asked with.
 */
export interface ExportSnapshot {
  resource: ExportResource;
  asOf: Date;
  updatedSince: Date | null;
  /** The inventory export's `locationId`: the one location it covers (null: every location). */
  locationId: string | null;
}

const TOKEN_VERSION = 1;
/** How far ahead of this process's clock a snapshot time may be (another process's clock, a little ahead). */
const FUTURE_SKEW_MS = 60_000;

/** The opaque `snapshot` token of the `X-Export-Snapshot` header (base64url JSON, not a secret). */
export function encodeSnapshot(snapshot: ExportSnapshot): string {
  const body = [
    TOKEN_VERSION,
    snapshot.resource,
    snapshot.asOf.getTime(),
    snapshot.updatedSince ? snapshot.updatedSince.getTime() : null,
    // A fifth element only where there is one: the tokens of the other exports stay as they were.
    ...(snapshot.locationId ? [snapshot.locationId] : []),
  ];
  return Buffer.from(JSON.stringify(body)).toString("base64url");
}

function invalid(field: string, message: string, hint?: string): AppError {
  return new AppError("VALIDATION_FAILED", {
    message: hint ?? `The ${field} is invalid.`,
    details: [{ field, message }],
  });
}

/**
 * The snapshot a token names for `resource`, or a 400. Forging one gains nothing: it holds two
 * instants and a resource name, and every read is still the caller's own store within its scope.
 */
export function decodeSnapshot(token: string, resource: ExportResource, now: Date): ExportSnapshot {
  const bad = () => invalid("snapshot", "is not an X-Export-Snapshot this API sent");
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed.length < 4 || parsed.length > 5 || parsed[0] !== TOKEN_VERSION)
    throw bad();
  const [, kind, asOf, updatedSince, locationId = null] = parsed as [
    number,
    unknown,
    unknown,
    unknown,
    unknown,
  ];
  if (typeof kind !== "string" || !(kind in EXPORT_RESOURCES)) throw bad();
  if (kind !== resource)
    throw invalid(
      "snapshot",
      `belongs to an export of ${kind}, not ${resource}`,
      "The snapshot is another export's.",
    );
  const instant = (v: unknown) => (typeof v === "number" && isStorableInstant(v) ? new Date(v) : null);
  const at = instant(asOf);
  if (!at || at.getTime() > now.getTime() + FUTURE_SKEW_MS) throw bad();
  if (updatedSince !== null && !instant(updatedSince)) throw bad();
  if (
    locationId !== null &&
    (resource !== "inventory" || typeof locationId !== "string" || locationId.length > 64)
  )
    throw bad();
  return {
    resource,
    asOf: at,
    updatedSince: updatedSince === null ? null : new Date(updatedSince as number),
    locationId,
  };
}

/** Where one request of an export starts: a new export (snapshot now), or a resume after `after`. */
export function startOf(
  resource: ExportResource,
  query: {
    updatedSince?: string | undefined;
    snapshot?: string | undefined;
    after?: string | undefined;
    locationId?: string | undefined;
  },
  now: Date,
): { snapshot: ExportSnapshot; after: string | null } {
  const updatedSince = query.updatedSince ? parseDateTime(query.updatedSince) : null;
  // The route's schema has already refused it; a caller without one gets the same answer.
  if (query.updatedSince && !updatedSince)
    throw invalid("updatedSince", "must be a date-time in the years 1 to 9999");
  if (query.snapshot === undefined) {
    if (query.after !== undefined)
      throw invalid(
        "after",
        "is a resume position: send it with the snapshot of the export it belongs to",
        "`after` needs `snapshot`.",
      );
    return {
      snapshot: { resource, asOf: now, updatedSince, locationId: query.locationId ?? null },
      after: null,
    };
  }
  const snapshot = decodeSnapshot(query.snapshot, resource, now);
  if (updatedSince && updatedSince.getTime() !== snapshot.updatedSince?.getTime())
    throw invalid(
      "updatedSince",
      "differs from the snapshot's: leave it out when resuming (the snapshot carries it)",
      "The updatedSince is not the snapshot's.",
    );
  if (query.locationId !== undefined && query.locationId !== snapshot.locationId)
    throw invalid(
      "locationId",
      "differs from the snapshot's: leave it out when resuming (the snapshot carries it)",
      "The locationId is not the snapshot's.",
    );
  return { snapshot, after: query.after ?? null };
}

/** The window of the batch after `after`. */
export function windowOf(snapshot: ExportSnapshot, after: string | null, limit: number): ExportWindow {
  return {
    after,
    asOf: snapshot.asOf,
    updatedSince: snapshot.updatedSince,
    locationId: snapshot.locationId,
    limit,
  };
}

/**
 * Whether `Accept-Encoding` accepts gzip (RFC 9110 12.5.3): `gzip` or `x-gzip`, or `*` when gzip
 * is not named, with a q-value above 0.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  const text = Array.isArray(header) ? header.join(",") : header;
  let star: boolean | null = null;
  for (const part of text.split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const weight = q ? Number(q.slice(2)) : 1;
    const accepted = Number.isFinite(weight) && weight > 0;
    if (name.trim() === "gzip" || name.trim() === "x-gzip") return accepted;
    if (name.trim() === "*") star = accepted;
  }
  return star === true;
}
