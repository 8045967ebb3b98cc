import type { Executor } from "../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { newId } from "../../lib/ids.ts";
import type { EventName } from "./event-names.ts";

export interface OutboxEvent {
  storeId: string;
  topic: EventName;
  resourceId: string;
  /** The resource as the APIs return it, frozen at the time of the change. */
  payload: unknown;
}

/**
 * Appends events to the outbox. Call it with the transaction of the change itself, so the event
 * exists if and only if the change committed.
 */
export function createEventRecorder(deps: { clock: Clock }) {
  return async function recordEvent(tx: Executor, event: OutboxEvent): Promise<string> {
    const id = newId("event");
    await tx
      .insertInto("events")
      .values({
        id,
        store_id: event.storeId,
        topic: event.topic,
        resource_id: event.resourceId,
        payload: JSON.stringify(event.payload),
        created_at: deps.clock.now(),
      })
      .execute();
    return id;
  };
}
export type RecordEvent = ReturnType<typeof createEventRecorder>;
