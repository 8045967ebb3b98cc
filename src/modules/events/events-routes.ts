import Type, { type Static } from "typebox";
import {
  DeliveryStatus,
  EVENT_BY_NAME,
  EVENT_DATA_RECORD,
  type EventName,
  parseDateTime,
  type Scope,
} from "../../contracts/index.ts";
import { AppError } from "../../lib/errors.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { isoString } from "../../lib/iso-string.ts";
import { eventDataFor } from "../app-metadata/app-metadata.ts";
import { accessOf, adminRoute } from "../families/admin-family.ts";
import { eventNamesParam, eventsAllowed } from "./event-scope.ts";
import { EventsQuery, FeedEventResource, FeedMeta } from "./events-schemas.ts";
import type { FeedRepo, FeedSequencer } from "./feed-repo.ts";

/** The event names asked for, each known and within the scopes (400 / 403 otherwise). */
function chosenTypes(asked: string | undefined, scopes: readonly Scope[]): EventName[] {
  if (asked === undefined) return eventsAllowed(scopes);
  return eventNamesParam(asked, scopes, { field: "types", action: "Reading the events of" });
}

/**
 * A cursor past the store's head is not a position this feed gave: an app whose stored cursor was
 * corrupted would otherwise get empty pages, echoing the cursor back, and skip every event that
 * comes before it. Positions are numbered after commit, and the head was read after this request
 * numbered what had committed, so every cursor the feed ever answered is at or below it.
 */
async function assertWithinFeed(after: number, head: () => Promise<number>): Promise<void> {
  if (after === 0) return;
  const last = await head();
  if (after > last)
    throw new AppError("VALIDATION_FAILED", {
      message: `The cursor ${after} is past the end of this store's event feed (its last position is ${last}): pass a cursor the feed gave (\`cursor\` or \`meta.nextCursor\`), or leave \`after\` out to start from the oldest event kept.`,
      details: [{ field: "after", message: `is past the feed's last position, ${last}` }],
    });
}

/**
 * The events API (issue 19): the installation's store events, read back in feed order (Stripe's
 * events API, per installation). The feed is gap-free (events/feed-repo.ts), so an app that
 * stores `nextCursor` and polls with it never misses an event, whatever its webhooks did.
 */
export function eventRoutes(deps: {
  feed: Pick<FeedRepo, "page" | "deliveriesOf" | "head">;
  sequencer: Pick<FeedSequencer, "sequence">;
  retentionDays: number;
}): FeatureRoutes {
  const tags = ["Admin API: events"];
  return {
    tags: {
      "Admin API: events":
        "Any valid access token; each event type needs its own scope, as for subscribing. The store's events in the order they became visible, to read back what webhooks carried and resume from a stored cursor.",
    },
    admin(app) {
      app.get(
        "/events",
        {
          ...adminRoute({
            operationId: "adminListEvents",
            scope: "authenticated",
            tags,
            summary: "Read this store's events back, in order (the event feed)",
            description: [
              "Every event of the installation's store that the token's scopes allow, whether or not the app subscribes to it, oldest first, with this app's deliveries of each. The order is the order events became visible, and it never changes: an event committed after you read past a position is never placed before it, so paging with `after` misses nothing even while the store is busy.",
              "",
              "`meta.nextCursor` is never null: store it, and poll with it as `after` to get only what is new (an empty page when nothing is). `delivery=failed` lists the events whose delivery to this app failed or was skipped, to recover them (`POST /webhooks/{id}/recover`) or process them from here.",
              "",
              `Events are kept ${deps.retentionDays} days (and never while a delivery of them is pending). \`since\` starts from events created at or after an instant (exact while no transaction stays open, and no two servers' clocks disagree, for more than 5 minutes).`,
            ].join("\n"),
            querystring: EventsQuery,
            // Written as stored (below), at an older version too (modules/versions).
            config: { serializeAsIs: true },
            response: {
              200: Type.Object(
                { success: Type.Literal(true), data: Type.Array(FeedEventResource), meta: FeedMeta },
                { description: "One page of the feed" },
              ),
            },
          }),
          // `data` is each event's payload exactly as its webhooks carried it, recorded when the change
          // committed: written as stored, not re-serialised through today's schema (which would drop
          // a field a newer version removed, and refuse an event recorded before a field existed).
          serializerCompiler: () => (data: unknown) => JSON.stringify(data),
        },
        async (request) => {
          const access = accessOf(request);
          const q = request.query;
          const topics = chosenTypes(q.types, access.scopes);
          const since = q.since === undefined ? null : parseDateTime(q.since);
          // What committed before this request is numbered before it is read.
          await deps.sequencer.sequence(access.store.id);
          const after = q.after === undefined ? 0 : Number(q.after);
          await assertWithinFeed(after, () => deps.feed.head(access.store.id));
          const page = await deps.feed.page({
            storeId: access.store.id,
            installationId: access.installationId,
            topics,
            after,
            since,
            failedOnly: q.delivery === DeliveryStatus.failed,
            failedStatuses: [DeliveryStatus.failed, DeliveryStatus.skipped],
            limit: q.limit,
          });
          const deliveries = await deps.feed.deliveriesOf(
            access.store.id,
            access.installationId,
            page.events.map((e) => e.id),
          );
          const data = page.events.map((e): Static<typeof FeedEventResource> => {
            const kind = EVENT_BY_NAME[e.topic as EventName].data;
            // The payload was stored from the event's own schema when the change committed, and the
            // topic picks the union member: the row fits, which the compiler cannot see.
            return {
              id: e.id,
              cursor: String(e.position),
              type: e.topic as EventName,
              createdAt: isoString(e.created_at),
              sequence: e.seq,
              test: e.test,
              resource: { type: EVENT_DATA_RECORD[kind], id: e.resource_id },
              // What the webhook bodies carried: the payload with this app's own metadata only.
              data: eventDataFor(e, access.appId) as never,
              deliveries: deliveries
                .filter((d) => d.event_id === e.id)
                .map((d) => ({
                  id: d.id,
                  subscriptionId: d.subscription_id,
                  status: d.status,
                  attempts: d.attempts,
                  lastStatusCode: d.last_status_code,
                  lastError: d.last_error,
                  createdAt: isoString(d.created_at),
                  completedAt: d.completed_at ? isoString(d.completed_at) : null,
                })),
            };
          });
          return {
            success: true as const,
            data,
            meta: { nextCursor: String(page.readTo), hasMore: page.more, limit: q.limit },
          };
        },
      );
    },
  };
}
