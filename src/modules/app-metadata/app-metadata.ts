import { METADATA_LIMITS } from "../../contracts/index.ts";
import type { AppMetadataJson } from "../../db/schema.ts";
import { AppError } from "../../lib/errors.ts";
import type { Viewer } from "../families/operation.ts";

/**
 * App metadata: each app's key-value pairs on a product, order or customer, stored per record as
 * one JSON object keyed by app id (migration 20261126_0041). Pure rules here; the services store
 * the result in the record's own transaction, so two apps writing one record at once each keep
 * their pairs (the row is locked, and each merges into what the other committed).
 */

/** The pairs `appId` keeps on a record (a copy; empty when it keeps none). */
export function ownMetadata(all: AppMetadataJson | null | undefined, appId: string): Record<string, string> {
  const own = all?.[appId];
  return own ? { ...own } : {};
}

/**
 * An event's `data` as one app sees it (its webhook bodies, its listen stream, its event feed):
 * the payload with that app's own pairs as `metadata`. Events keep every app's pairs beside the
 * payload (`events.app_metadata`); those without (other kinds, older events) are as recorded.
 */
export function eventDataFor(
  event: { payload: unknown; app_metadata?: AppMetadataJson | null },
  appId: string | undefined,
): unknown {
  return event.app_metadata && appId !== undefined && event.payload && typeof event.payload === "object"
    ? { ...event.payload, metadata: ownMetadata(event.app_metadata, appId) }
    : event.payload;
}

/**
 * `appId`'s pairs merged with `patch` (RFC 7396: a string sets a key, null removes it), the other
 * apps' untouched. Refuses with 400 naming `metadata` when the app would keep more than the bound
 * on the record. Answers the new whole object and whether the app's pairs changed.
 */
export function mergeMetadata(
  all: AppMetadataJson | null | undefined,
  appId: string,
  patch: Record<string, string | null> | undefined,
): { metadata: AppMetadataJson; changed: boolean } {
  const current = all ?? {};
  if (!patch || Object.keys(patch).length === 0) return { metadata: current, changed: false };
  const mine = ownMetadata(current, appId);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete mine[key];
    // As stored (db/json.ts): a lone surrogate reads back as U+FFFD, so compare with that.
    else mine[key] = value.toWellFormed();
  }
  const count = Object.keys(mine).length;
  if (count > METADATA_LIMITS.keys) {
    throw new AppError("VALIDATION_FAILED", {
      message: `An app keeps at most ${METADATA_LIMITS.keys} metadata keys on a record.`,
      details: [
        {
          field: "metadata",
          message: `would hold ${count} keys; at most ${METADATA_LIMITS.keys} per app and record (set a key to null to remove it)`,
        },
      ],
    });
  }
  const before = JSON.stringify(Object.entries(current[appId] ?? {}).sort());
  const changed = before !== JSON.stringify(Object.entries(mine).sort());
  const next: AppMetadataJson = { ...current };
  if (count === 0) delete next[appId];
  else next[appId] = mine;
  return { metadata: next, changed };
}

/** The ids of the apps that keep pairs on a record. */
export function appsWithMetadata(all: AppMetadataJson | null | undefined): string[] {
  return Object.entries(all ?? {})
    .filter(([, pairs]) => Object.keys(pairs).length > 0)
    .map(([appId]) => appId);
}

/**
 * Who reads or writes a record, for metadata: an app on the Admin API (its own pairs shown and
 * written), or undefined for the dashboard and developer keys (no pairs shown, none written).
 */
export type { Viewer };

/**
 * A resource as its viewer sees it: an app gets its own `metadata`, and only its own; others get
 * `view` as is. `view` is the object the caller's mapper has just built (it must not carry
 * `metadata` already): the pairs are added to it, not to a copy, since a list maps up to 251
 * records a request and a second object for each is garbage for the collector (issue 22).
 */
export function forViewer<T extends object>(
  view: T,
  all: AppMetadataJson | null | undefined,
  viewer: Viewer,
): T & { metadata?: Record<string, string> } {
  if (viewer) (view as T & { metadata?: Record<string, string> }).metadata = ownMetadata(all, viewer.appId);
  return view;
}
