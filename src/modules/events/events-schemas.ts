import Type from "typebox";
import {
  DateTimeInput,
  DeliveryStatus,
  DeliveryStatusSchema,
  EVENT_DATA_RECORD,
  EVENT_NAMES,
  EVENT_PAYLOADS,
  EVENTS,
  type EventDataKind,
  type EventName,
  Id,
  PAGE_SIZE,
  Timestamp,
} from "../../contracts/index.ts";
import { keysOf } from "../../contracts/mirror.ts";
import { PageLimit } from "../../lib/http/schemas.ts";

const FeedDelivery = Type.Object(
  {
    id: Id("delivery"),
    subscriptionId: Id("subscription"),
    status: DeliveryStatusSchema,
    attempts: Type.Integer(),
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
    lastError: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    completedAt: Type.Union([Timestamp, Type.Null()]),
  },
  { title: "EventDelivery" },
);

const common = {
  id: Id("event", "The event's id: the same as the `id` of every webhook body of this event."),
  cursor: Type.String({
    pattern: "^[0-9]{1,15}$",
    examples: ["1042"],
    description:
      "This event's place in the feed: pass it as `after` to read what comes after it (store it once the event is processed to resume exactly there).",
  }),
  createdAt: Timestamp,
  sequence: Type.Integer({
    description:
      "Strictly increasing across the events of one resource, as in the webhook body: drop an update whose `sequence` is lower than the last one applied for that resource.",
  }),
  test: Type.Boolean({ description: "A test event (`POST /webhooks/test`): no real change happened." }),
  deliveries: Type.Array(FeedDelivery, {
    description: "This app's deliveries of the event (none when it has no subscription to it), oldest first.",
  }),
};

/** One item of the feed per kind of data, so generated clients get `data` typed by `type`. */
function itemOf(kind: EventDataKind) {
  const names = keysOf(EVENTS)
    .filter((k) => EVENTS[k].data === kind)
    .map((k) => EVENTS[k].name);
  const title = `${kind.charAt(0).toUpperCase()}${kind.slice(1)}FeedEvent`;
  return Type.Object(
    {
      ...common,
      type: Type.Unsafe<EventName>({ type: "string", enum: names }),
      resource: Type.Object({
        type: Type.Literal(EVENT_DATA_RECORD[kind]),
        id: Type.String(),
      }),
      data: EVENT_PAYLOADS[kind],
    },
    { title },
  );
}

type FeedItem = ReturnType<typeof itemOf>;

export const FeedEventResource = Type.Union(
  // One per kind of data; a tuple to the type system (TypeBox types a union of an array as never).
  keysOf(EVENT_PAYLOADS).map(itemOf) as [FeedItem, ...FeedItem[]],
  { title: "FeedEvent" },
);

export const EventsQuery = Type.Object(
  {
    after: Type.Optional(
      Type.String({
        pattern: "^[0-9]{1,15}$",
        maxLength: 15,
        examples: ["1042"],
        description:
          "Where to continue: the `meta.nextCursor` of the previous page (store it to resume later). Omitted: from the oldest event kept. A cursor past the end of the feed (one it never gave) answers 400 `VALIDATION_FAILED` naming the feed's last position, never an empty page.",
      }),
    ),
    limit: PageLimit(PAGE_SIZE.events),
    types: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: `Comma-separated event names (${EVENT_NAMES.join(", ")}); each within the token's scopes.`,
      }),
    ),
    since: Type.Optional(DateTimeInput("Only events created at or after this instant.")),
    delivery: Type.Optional(
      Type.Literal(DeliveryStatus.failed, {
        description:
          "Only events with a delivery to this app that ended failed (or was recorded skipped while its subscription was disabled).",
      }),
    ),
  },
  { additionalProperties: false },
);

export const FeedMeta = Type.Object({
  nextCursor: Type.String({
    examples: ["1042"],
    description:
      "Never null: pass it as `after` for the next page, now or later. On the last page it is the end of the feed as read, so polling with it returns only what is new.",
  }),
  hasMore: Type.Boolean({ description: "More events can be read now (the page was full or stopped short)." }),
  limit: Type.Integer(),
});
