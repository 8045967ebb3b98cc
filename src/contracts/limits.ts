/**
 * The sizes and bounds a client meets, declared once: every list's page size (what a client may
 * ask for, and what it gets without asking) and the other bounds the document states. Route
 * schemas, services and the dashboard read them from here.
 */

/** Page sizes, per kind of list. */
export const PAGE_SIZE = {
  /** Keyset lists of the Admin API and the dashboard (`limit`, `cursor`). */
  cursor: { default: 50, max: 250 },
  /** The developer API's page-numbered lists (`page`, `perPage`). */
  numbered: { default: 20, max: 100 },
  /** The events feed (`GET /events`). */
  events: { default: 100, max: 250 },
  /** Delivery logs, subscriptions and listen sessions in the dashboard. */
  log: { default: 20, max: 100 },
  /** What a dashboard list page asks for at a time. */
  dashboard: 20,
} as const;

/**
 * How deep the developer API's offset pages reach: page × perPage ≤ PAGE_WINDOW. An OFFSET costs
 * a walk over every row it skips, so without a bound the cost of a page grows with the list;
 * within it, a page costs at most 10,000 index entries.
 */
export const PAGE_WINDOW = 10_000;

/** Usable (unrevoked, unexpired) key pairs per store: enough for one per integration, bounded for the list. */
export const MAX_ACTIVE_KEYS_PER_STORE = 100;

/**
 * How far back a listen session's resume may go: the store's last feed positions before what the
 * session had streamed. A client resumes from the last item it received, which is at most what was
 * still in its socket behind it; anything further back (`<session>.0`) would stream again what it
 * already had, at every request.
 */
export const LISTEN_RESUME_WINDOW = 1000;

/** A variant (or a product, across its variants) with at most this much to sell is low on stock. */
export const LOW_STOCK_THRESHOLD = 5;

/**
 * People who may work in one store besides its owner: members and open invitations together, so a
 * burst of invitations cannot exceed it (staff-service reserves the seat under the store's staff lock).
 */
export const MAX_STAFF_PER_STORE = 50;

/** How long an invitation to join a store can be accepted. */
export const INVITATION_TTL_DAYS = 7;
