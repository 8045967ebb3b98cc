import { sql } from "kysely";
import { DeliveryStatus, type EventName, SubscriptionStatus } from "../../contracts/index.ts";
import type { Db } from "../../db/client.ts";
import type { WebhookDelivery } from "../../db/schema.ts";
import { keyset, type PagePlan } from "../../lib/pagination.ts";
import { EVENTS_CHANNEL } from "../events/events-repo.ts";
import { newDeliveryId } from "./delivery/delivery-repo.ts";

export interface DeliveryFilter {
  id?: string | undefined;
  status?: DeliveryStatus | undefined;
  event?: EventName | undefined;
  storeSlug?: string | undefined;
}

/**
 * The delivery log as people read it: an app owner's deliveries with their attempts, a merchant's
 * view of what one resource (an order) caused, and redelivery. The engine's own statements are in
 * delivery/delivery-repo.ts.
 */
export function createDeliveryLogRepo(db: Db) {
  async function attemptsOf(rows: ReadonlyArray<{ store_id: string; id: string }>) {
    if (rows.length === 0) return [];
    return db
      .selectFrom("webhook_attempts")
      .selectAll()
      .where((eb) =>
        eb.or(rows.map((r) => eb.and([eb("store_id", "=", r.store_id), eb("delivery_id", "=", r.id)]))),
      )
      .orderBy("attempt")
      .execute();
  }

  return {
    /** One page of an app's deliveries (newest first), each with its attempts and its subscription's state. */
    async listForApp(appId: string, filter: DeliveryFilter, plan: PagePlan) {
      const { where, column, id, direction } = keyset(plan, "d");
      let q = db
        .selectFrom("webhook_deliveries as d")
        .innerJoin("stores as s", "s.id", "d.store_id")
        .innerJoin("webhook_subscriptions as sub", (j) =>
          j.onRef("sub.store_id", "=", "d.store_id").onRef("sub.id", "=", "d.subscription_id"),
        )
        // Its recovery, if recover queued it again (one at most: webhook_deliveries_recovery_key).
        .leftJoin("webhook_deliveries as rec", (j) =>
          j
            .onRef("rec.store_id", "=", "d.store_id")
            .onRef("rec.recovery_of", "=", "d.id")
            // Said outright, so the planner can use the partial unique index.
            .on("rec.recovery_of", "is not", null),
        )
        .selectAll("d")
        .select(["s.slug", "sub.status as subscription_status", "rec.id as recovered_by"])
        .where("d.app_id", "=", appId);
      if (filter.id) q = q.where("d.id", "=", filter.id);
      if (filter.status) q = q.where("d.status", "=", filter.status);
      if (filter.event) q = q.where("d.event_name", "=", filter.event);
      if (filter.storeSlug) q = q.where("s.slug", "=", filter.storeSlug);
      for (const w of where) q = q.where(w);
      const rows = await q
        .orderBy(column, direction)
        .orderBy(id, direction)
        .limit(plan.limit + 1)
        .execute();
      return { rows, attempts: await attemptsOf(rows) };
    },

    /**
     * The deliveries caused by one resource of a store (an order's events), newest first, with the
     * app each went to. At most `limit`.
     */
    async listForResource(storeId: string, resourceId: string, limit: number) {
      return db
        .selectFrom("events as e")
        .innerJoin("webhook_deliveries as d", (j) =>
          j.onRef("d.store_id", "=", "e.store_id").onRef("d.event_id", "=", "e.id"),
        )
        .innerJoin("apps as a", "a.id", "d.app_id")
        .select([
          "d.id",
          "d.event_name",
          "d.status",
          "d.attempts",
          "d.last_status_code",
          "d.next_attempt_at",
          "d.created_at",
          "d.completed_at",
          "a.name as app_name",
          "a.client_id",
        ])
        .where("e.store_id", "=", storeId)
        .where("e.resource_id", "=", resourceId)
        .orderBy("d.created_at", "desc")
        .orderBy("d.id", "desc")
        .limit(limit)
        .execute();
    },

    /** A delivery of the app with its subscription's state, for a redelivery. */
    async findWithSubscription(appId: string, deliveryId: string) {
      return db
        .selectFrom("webhook_deliveries as d")
        .innerJoin("webhook_subscriptions as s", (j) =>
          j.onRef("s.store_id", "=", "d.store_id").onRef("s.id", "=", "d.subscription_id"),
        )
        .selectAll("d")
        .select("s.status as subscription_status")
        .where("d.app_id", "=", appId)
        .where("d.id", "=", deliveryId)
        .executeTakeFirst();
    },

    /**
     * A new delivery of the same body to the same subscription, due now, if the subscription is
     * still active (checked under a share lock, as a dispatch does: an uninstall that stopped it
     * first wins). Answers the new id, or null when the subscription has stopped.
     */
    async redeliver(original: WebhookDelivery, now: Date): Promise<string | null> {
      const id = newDeliveryId();
      return db.transaction().execute(async (tx) => {
        const live = await tx
          .selectFrom("webhook_subscriptions")
          .select("id")
          .where("store_id", "=", original.store_id)
          .where("id", "=", original.subscription_id)
          .where("status", "=", SubscriptionStatus.active)
          .forShare()
          .executeTakeFirst();
        if (!live) return null;
        await tx
          .insertInto("webhook_deliveries")
          .values({
            store_id: original.store_id,
            id,
            event_id: original.event_id,
            event_name: original.event_name,
            subscription_id: original.subscription_id,
            installation_id: original.installation_id,
            app_id: original.app_id,
            target_url: original.target_url,
            target_host: original.target_host,
            body: original.body,
            status: DeliveryStatus.pending,
            next_attempt_at: now,
            redelivery_of: original.id,
            test: original.test,
            created_at: now,
            updated_at: now,
          })
          .execute();
        await sql`SELECT pg_notify(${EVENTS_CHANNEL}, '')`.execute(tx);
        return id;
      });
    },

    /**
     * Recover, one chunk: of the subscription's deliveries created in [since, until), after
     * `after` (where the previous chunk of this recover ended: a keyset walk), takes up to `limit`
     * whose final state is failed or skipped and that are the newest delivery of their event for
     * the subscription, leaving out an event that has a delivery that succeeded or is on its way
     * (a redelivery, an earlier recovery). For each, one new delivery: the same body, due now,
     * attempts from 1, its webhook id (so the original `x-webhook-id`), naming it in
     * `recovery_of` and `redelivery_of`.
     *
     * One statement, and the originals are not written to: the unique key on `recovery_of` is
     * what makes a delivery recovered once. Two recovers at once read the same candidates; the
     * second insert of a recovery waits for the first to commit and then inserts nothing (ON
     * CONFLICT DO NOTHING), so each is queued by exactly one of them, and only the insert
     * counts. Nothing is taken unless the subscription is active (share-locked, as a dispatch
     * does, so a disable or an uninstall that comes first is seen). Workers are woken when
     * something was queued. Answers how many were queued, how many were read (fewer than `limit`:
     * the window is done) and where the chunk ended.
     */
    async recoverChunk(input: {
      storeId: string;
      subscriptionId: string;
      since: Date;
      until: Date;
      now: Date;
      limit: number;
      /** Where the previous chunk of this recover ended (see the answer's `last`). */
      after?: RecoverPosition | null | undefined;
    }): Promise<{ queued: number; read: number; last: RecoverPosition | null }> {
      const { storeId, subscriptionId, now, after } = input;
      const ids = Array.from({ length: input.limit }, newDeliveryId);
      const { rows } = await sql<{
        queued: number;
        read: number;
        last_created_at: Date | null;
        last_id: string | null;
      }>`
        WITH sub AS (
          SELECT store_id, id FROM webhook_subscriptions
           WHERE store_id = ${storeId} AND id = ${subscriptionId} AND status = ${SubscriptionStatus.active}
             FOR SHARE
        ), candidates AS (
          SELECT c.* FROM webhook_deliveries c
           WHERE c.store_id = ${storeId} AND c.subscription_id = ${subscriptionId}
             AND c.status IN ('failed', 'skipped')
             AND c.created_at >= ${input.since} AND c.created_at < ${input.until}
             ${after ? sql`AND (c.created_at, c.id) > (${after.createdAt}, ${after.id})` : sql``}
             AND EXISTS (SELECT 1 FROM sub)
             -- OFFSET 0 keeps this a probe of (store_id, subscription_id, event_id) per candidate.
             -- Pulled up into an anti-join, it was planned on statistics that had not seen the
             -- deliveries the previous chunks had just queued (one row estimated, 15,500 there):
             -- a nested loop over all of them per candidate, 18 s for a chunk of 5,000.
             AND NOT EXISTS (
                   SELECT 1 FROM webhook_deliveries o
                    WHERE o.store_id = c.store_id AND o.subscription_id = c.subscription_id
                      AND o.event_id = c.event_id AND o.id <> c.id
                      AND (o.status IN ('delivered', 'pending') OR (o.created_at, o.id) > (c.created_at, c.id))
                   OFFSET 0)
           ORDER BY c.created_at, c.id
           LIMIT ${input.limit}
        ), numbered AS (
          SELECT c.*, row_number() OVER (ORDER BY c.created_at, c.id) AS n FROM candidates c
        ), queued AS (
          INSERT INTO webhook_deliveries
            (store_id, id, webhook_id, event_id, event_name, subscription_id, installation_id, app_id, target_url,
             target_host, body, status, attempts, next_attempt_at, redelivery_of, recovery_of, test, created_at,
             updated_at)
          SELECT t.store_id, x.id, coalesce(t.webhook_id, t.id), t.event_id, t.event_name, t.subscription_id,
                 t.installation_id, t.app_id, t.target_url, t.target_host, t.body, ${DeliveryStatus.pending}, 0,
                 ${now}, t.id, t.id, t.test, ${now}, ${now}
            FROM numbered t
            JOIN unnest(${ids as unknown as string}::text[]) WITH ORDINALITY AS x(id, n) ON x.n = t.n
          ON CONFLICT (store_id, recovery_of) WHERE recovery_of IS NOT NULL DO NOTHING
          RETURNING 1
        )
        SELECT q.queued, r.read, l.created_at AS last_created_at, l.id AS last_id,
               CASE WHEN q.queued > 0 THEN pg_notify(${EVENTS_CHANNEL}, '')::text END AS notified
          FROM (SELECT count(*)::int AS queued FROM queued) q
          CROSS JOIN (SELECT count(*)::int AS read FROM numbered) r
          LEFT JOIN (SELECT created_at, id FROM numbered ORDER BY n DESC LIMIT 1) l ON true`.execute(db);
      const row = rows[0];
      return {
        queued: row?.queued ?? 0,
        read: row?.read ?? 0,
        last:
          row?.last_created_at && row.last_id ? { createdAt: row.last_created_at, id: row.last_id } : null,
      };
    },

    /**
     * The app's active subscriptions with something recover would take in [since, until): for
     * the dashboard's "Recover failed since …" over all of an app's subscriptions.
     */
    async recoverableSubscriptions(appId: string, since: Date, until: Date) {
      return db
        .selectFrom("webhook_deliveries as d")
        .innerJoin("webhook_subscriptions as s", (j) =>
          j.onRef("s.store_id", "=", "d.store_id").onRef("s.id", "=", "d.subscription_id"),
        )
        .select(["d.store_id", "d.subscription_id"])
        .distinct()
        .where("d.app_id", "=", appId)
        .where("d.created_at", ">=", since)
        .where("d.created_at", "<", until)
        .where("d.status", "in", RECOVERABLE)
        .where("s.status", "=", SubscriptionStatus.active)
        .execute();
    },
  };
}
export type DeliveryLogRepo = ReturnType<typeof createDeliveryLogRepo>;

/** Where a recover chunk ended: the (created_at, id) of the last delivery it took. */
export interface RecoverPosition {
  createdAt: Date;
  id: string;
}

/** The final states recover sends again. */
export const RECOVERABLE = [DeliveryStatus.failed, DeliveryStatus.skipped];
