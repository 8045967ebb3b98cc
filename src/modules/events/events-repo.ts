import { sql } from "kysely";
import type { EventName } from "../../contracts/events.ts";
import type { Executor } from "../../db/client.ts";
import { jsonb } from "../../db/json.ts";
import type { AppMetadataJson } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { newId } from "../../lib/ids.ts";

export interface OutboxEvent {
  storeId: string;
  topic: EventName;
  resourceId: string;
  /** The resource as the APIs return it, frozen at the time of the change. */
  payload: unknown;
  /** Targets the event at one installation's subscriptions only (app/uninstalled). */
  installationId?: string;
  /** Set when the caller has already created the event's deliveries itself. */
  dispatchedAt?: Date;
  /** When it happened, if the caller already read the clock for its payload (default: now). */
  createdAt?: Date;
  /** A test event: its body says `"test": true`, its attempts send `x-webhook-test: true`. */
  test?: boolean;
  /**
   * Every app's metadata on the record (products, orders, customers), kept beside the payload:
   * the delivery to each app carries only that app's pairs (delivery-repo.ts webhookBody).
   */
  appMetadata?: AppMetadataJson;
}

/**
 * The channel a committed event is announced on, with its store id as the payload, so delivery
 * workers wake at once and listen streams of that store (only) read on.
 */
export const EVENTS_CHANNEL = "mp_events";

/**
 * Appends events to the outbox. Call it with the transaction of the change itself, so the event
 * exists if and only if the change committed.
 */
export function createEventRecorder(deps: { clock: Clock }) {
  return async function recordEvent(tx: Executor, event: OutboxEvent): Promise<RecordedEvent> {
    const id = newId("event");
    const createdAt = event.createdAt ?? deps.clock.now();
    const row = await tx
      .insertInto("events")
      .values({
        id,
        store_id: event.storeId,
        topic: event.topic,
        resource_id: event.resourceId,
        payload: jsonb(event.payload),
        created_at: createdAt,
        installation_id: event.installationId ?? null,
        dispatched_at: event.dispatchedAt ?? null,
        test: event.test ?? false,
        app_metadata: event.appMetadata ? jsonb(event.appMetadata) : null,
      })
      .returning("seq")
      .executeTakeFirstOrThrow();
    // Sent by PostgreSQL only if and when the transaction commits; repeats within one transaction
    // (same channel and payload) are sent once.
    await sql`SELECT pg_notify(${EVENTS_CHANNEL}, ${event.storeId})`.execute(tx);
    return { id, seq: Number(row.seq), createdAt };
  };
}
export type RecordEvent = ReturnType<typeof createEventRecorder>;

/** A recorded event: its id, and its `sequence` (strictly increasing across a resource's events). */
export interface RecordedEvent {
  id: string;
  seq: number;
  /** Its `created_at`, as stored (the webhook body's `createdAt`). */
  createdAt: Date;
}
