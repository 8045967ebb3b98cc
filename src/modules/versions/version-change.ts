/**
 * A dated API version change, declared in one module (CONVENTIONS: "A version change is one
 * module", after Stripe's version-change modules). The service always computes the newest shape;
 * a change says how to serve the version before it:
 * - `resources`: a record (by its schema's `title`: `Product`, `Order`) as the newer version shows
 *   it, turned into the older shape. Applied wherever the record appears: in an answer's data
 *   (lists, pages, nested records), in the body of a webhook, in the event feed, in an export line;
 * - `requests`: a request body sent in the older shape (by operationId), turned into the newer one
 *   before it is validated;
 * - `schemas`: the OpenAPI document's component schemas (by name), turned into the older version's.
 * Serving an older version applies the changes between it and the newest, newest first for
 * answers and documents, oldest first for requests. Handlers and services never ask the version.
 */

// biome-ignore lint/suspicious/noExplicitAny: transforms take and give JSON as the wire carries it.
export type Json = any;

export interface VersionChange {
  /** The version that introduced it (`YYYY-MM-DD`): served at this version and after, undone before. */
  version: string;
  /** One line for the changelog (docs/api-changelog.md, the docs' changelog). */
  description: string;
  /** Records by schema title: the newer shape → the older one. */
  resources?: Readonly<Record<string, (record: Json) => Json>>;
  /** Request bodies by operationId: the older shape → the newer one (before validation). */
  requests?: Readonly<Record<string, (body: Json) => Json>>;
  /** The document's component schemas by name: the newer schema → the older one. */
  schemas?: Readonly<Record<string, (schema: Json) => Json>>;
  /** The document's request body schemas by operationId (what `requests` reads): newer → older. */
  requestSchemas?: Readonly<Record<string, (schema: Json) => Json>>;
}

export function defineVersionChange(change: VersionChange): VersionChange {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(change.version))
    throw new Error(`A version is a date, YYYY-MM-DD (got ${change.version})`);
  return change;
}
