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
        .selectAll("d")
        .select(["s.slug", "sub.status as subscription_status"])
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
     * One page of an app's subscriptions in every store (newest first) that are not deleted, with
     * their store and when their secret was last rotated: the app owner's delivery page.
     */
    async listSubscriptionsForApp(appId: string, plan: PagePlan) {
      const { where, column, id, direction } = keyset(plan, "sub");
      let q = db
        .selectFrom("webhook_subscriptions as sub")
        .innerJoin("stores as s", "s.id", "sub.store_id")
        .select([
          "sub.id",
          "sub.event_name",
          "sub.target_url",
          "sub.created_at",
          "sub.secret_rotated_at",
          "s.slug",
        ])
        .where("sub.app_id", "=", appId)
        // Not deleted (stopped): what still exists, whatever other state it may be in. A literal,
        // so the planner can prove the partial index's predicate from it in a generic plan too.
        .where(sql.ref("sub.status"), "<>", sql.lit(SubscriptionStatus.stopped));
      for (const w of where) q = q.where(w);
      return q
        .orderBy(column, direction)
        .orderBy(id, direction)
        .limit(plan.limit + 1)
        .execute();
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
  };
}
export type DeliveryLogRepo = ReturnType<typeof createDeliveryLogRepo>;
