import { sql } from "kysely";
import type { Executor } from "../../db/client.ts";
import { jsonb } from "../../db/json.ts";
import type { AppMetadataJson } from "../../db/schema.ts";

const pgArray = (values: readonly unknown[]) => values as unknown as string;

/** An event of an erased record, as the erasure reads it. */
export interface ErasedRecordEvent {
  id: string;
  topic: string;
  resource_id: string;
  payload: unknown;
  app_metadata: AppMetadataJson | null;
}

/**
 * The statements of a customer's erasure that reach the stored copies of their data (issue 27,
 * item 2): their events' payloads, the bodies stored with those events' deliveries, and what the
 * receivers answered to them. All run in the transaction that anonymises or deletes the customer,
 * after their row and their orders' rows are locked, so the erasure commits whole or not at all.
 * What to erase is decided by the contract's rule (contracts/erasure.ts) in the service; these
 * only read and write.
 *
 * Copies being made while the erasure runs, and how each is kept from escaping it:
 * - a dispatch that read an event's payload before: it inserts nothing for an event erased since
 *   its read (`redacted_at`, delivery-repo.ts dispatchEvents), or skips one the erasure holds;
 * - a redelivery or a recover copies a stored body: both share-lock the delivery's subscription
 *   and read the body after that lock; `lockSubscriptions` below takes those rows first, so a copy
 *   committed before is read and rewritten here, and one made after reads the erased body;
 * - an attempt on the wire during the erasure: its receiver's answer is recorded after it commits
 *   (at most a lease later), and the worker's follow-up clears it (`clearLateAnswers`).
 */
export function createErasureRepo() {
  return {
    /** Every event of the records (the customer, their orders): events_resource_idx. */
    async eventsOf(
      tx: Executor,
      storeId: string,
      recordIds: readonly string[],
    ): Promise<ErasedRecordEvent[]> {
      if (recordIds.length === 0) return [];
      return tx
        .selectFrom("events")
        .select(["id", "topic", "resource_id", "payload", "app_metadata"])
        .where("store_id", "=", storeId)
        .where("resource_id", "in", recordIds)
        .orderBy("seq")
        .execute();
    },

    /**
     * Writes the erased payloads and app metadata of events, and when (`redacted_at`: a dispatch
     * that read them before leaves them to the next one), any number in one statement.
     */
    async rewriteEvents(
      tx: Executor,
      storeId: string,
      events: ReadonlyArray<{ id: string; payload: unknown; app_metadata: AppMetadataJson | null }>,
      now: Date,
    ) {
      if (events.length === 0) return;
      await sql`
        UPDATE events e
           SET payload = v.payload::jsonb, app_metadata = v.app_metadata::jsonb, redacted_at = ${now}
          FROM unnest(${pgArray(events.map((e) => e.id))}::text[],
                      ${pgArray(events.map((e) => jsonb(e.payload)))}::text[],
                      ${pgArray(events.map((e) => (e.app_metadata === null ? null : jsonb(e.app_metadata))))}::text[])
               AS v(id, payload, app_metadata)
         WHERE e.store_id = ${storeId} AND e.id = v.id`.execute(tx);
    },

    /**
     * Locks the subscriptions of the events' deliveries against a redelivery or a recover (which
     * share-lock them) until the erasure commits, in (store_id, id) order, as a dispatch, a
     * disable and an uninstall take them, so none waits on another in a cycle. Must run before
     * `deliveriesOf`, a statement of its own: after the lock is granted, every copy a redelivery
     * or recover made before has committed, and `deliveriesOf`'s snapshot has it.
     */
    async lockSubscriptions(tx: Executor, storeId: string, eventIds: readonly string[]) {
      if (eventIds.length === 0) return;
      await sql`
        SELECT s.id FROM webhook_subscriptions s
         WHERE s.store_id = ${storeId}
           AND s.id IN (SELECT d.subscription_id FROM webhook_deliveries d
                         WHERE d.store_id = ${storeId} AND d.event_id = ANY(${pgArray(eventIds)}::text[]))
         ORDER BY s.store_id, s.id
           FOR NO KEY UPDATE`.execute(tx);
    },

    /** Every delivery of the events, with the body it stores (webhook_deliveries_event_idx). */
    async deliveriesOf(tx: Executor, storeId: string, eventIds: readonly string[]) {
      if (eventIds.length === 0) return [];
      return tx
        .selectFrom("webhook_deliveries")
        .select(["id", "event_id", "body"])
        .where("store_id", "=", storeId)
        .where("event_id", "in", eventIds)
        .execute();
    },

    /** Writes the erased bodies of deliveries, any number in one statement. */
    async rewriteDeliveries(
      tx: Executor,
      storeId: string,
      deliveries: ReadonlyArray<{ id: string; body: string }>,
    ) {
      if (deliveries.length === 0) return;
      await sql`
        UPDATE webhook_deliveries d SET body = v.body
          FROM unnest(${pgArray(deliveries.map((d) => d.id))}::text[], ${pgArray(deliveries.map((d) => d.body))}::text[])
               AS v(id, body)
         WHERE d.store_id = ${storeId} AND d.id = v.id`.execute(tx);
    },

    /**
     * Forgets what the receivers answered to the deliveries: a receiver may echo the body it got.
     * The status code, the error and the timing of each attempt stay in the log.
     */
    async clearAnswers(tx: Executor, storeId: string, deliveryIds: readonly string[]) {
      if (deliveryIds.length === 0) return;
      await tx
        .updateTable("webhook_attempts")
        .set({ response_body: null })
        .where("store_id", "=", storeId)
        .where("delivery_id", "in", deliveryIds)
        .where("response_body", "is not", null)
        .execute();
    },

    /**
     * The follow-up of the erasures since `since`: clears the answers recorded after them to the
     * deliveries of the events they erased (an attempt on the wire when an erasure committed is
     * recorded up to a lease later). events_redacted_idx finds the few erased events, then their
     * deliveries and attempts by key; when nothing was erased lately it reads one index page.
     * Answers how many answers it cleared.
     */
    async clearLateAnswers(tx: Executor, since: Date): Promise<number> {
      const result = await sql`
        UPDATE webhook_attempts a SET response_body = NULL
          FROM events e
          JOIN webhook_deliveries d ON d.store_id = e.store_id AND d.event_id = e.id
         WHERE e.redacted_at >= ${since}
           AND a.store_id = d.store_id AND a.delivery_id = d.id AND a.response_body IS NOT NULL`.execute(tx);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
export type ErasureRepo = ReturnType<typeof createErasureRepo>;
