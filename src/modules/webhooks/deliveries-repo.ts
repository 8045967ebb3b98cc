import { sql } from "kysely";
import {
  DeliveryStatus,
  type EventName,
  type ListedSubscriptionStatus,
  SENDING_SUBSCRIPTION_STATUS_NAMES,
  SubscriptionStatus,
} from "../../contracts/index.ts";
import type { Db } from "../../db/client.ts";
import type { WebhookDelivery } from "../../db/schema.ts";
import { keysetPage, type PagePlan } from "../../lib/pagination.ts";
import { EVENTS_CHANNEL } from "../events/events-repo.ts";
import { newDeliveryId } from "./delivery/delivery-repo.ts";

/** Which listen sessions of an app: one installation's (the Admin API), one store's, or one session. */
export interface ListenSessionFilter {
  installation?: { storeId: string; installationId: string } | undefined;
  storeSlug?: string | undefined;
  /** Sessions carrying this event (and, in what they streamed, only it). */
  event?: EventName | undefined;
  id?: string | undefined;
}

/** A listen session's row as the delivery log reads it. */
export interface ListenSessionRow {
  store_id: string;
  id: string;
  installation_id: string;
  events: string[];
  connection: string | null;
  position: number;
  start_position: number;
  created_at: Date;
  seen_at: Date;
  stopped_at: Date | null;
  slug: string;
}

/** An event a listen session streamed. */
export interface StreamedEventRow {
  session_id: string;
  position: number;
  id: string;
  topic: string;
  created_at: Date;
  test: boolean;
}

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
      const rows = await keysetPage(q, plan, "d").execute();
      return { rows, attempts: await attemptsOf(rows) };
    },

    /**
     * One page of an app's subscriptions in every store (newest first) that are not deleted
     * (active and disabled, or one of them), with their store, their run of failures and when
     * their secret was last rotated: the app owner's page.
     */
    async listSubscriptionsForApp(
      appId: string,
      plan: PagePlan,
      status: ListedSubscriptionStatus | undefined,
    ) {
      let q = db
        .selectFrom("webhook_subscriptions as sub")
        .innerJoin("stores as s", "s.id", "sub.store_id")
        .leftJoin("webhook_subscription_failures as f", (j) =>
          j.onRef("f.store_id", "=", "sub.store_id").onRef("f.subscription_id", "=", "sub.id"),
        )
        .selectAll("sub")
        .select(["s.slug", "f.failing_since"])
        .where("sub.app_id", "=", appId)
        // Not deleted (stopped): what still exists, whatever other state it may be in. A literal,
        // so the planner can prove the partial index's predicate from it in a generic plan too.
        .where(sql.ref("sub.status"), "<>", sql.lit(SubscriptionStatus.stopped))
        // Nor the platform's privacy channels: they are not the app's subscriptions.
        .where(sql.ref("sub.status"), "<>", sql.lit(SubscriptionStatus.privacy));
      if (status) q = q.where("sub.status", "=", status);
      return keysetPage(q, plan, "sub").execute();
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

    /**
     * One page of an app's listen sessions (newest first). What each streamed is not stored per
     * event: it is the range of the store's feed the session read, see `streamedBy`.
     */
    async listListenSessions(appId: string, filter: ListenSessionFilter, plan: PagePlan) {
      let q = db
        .selectFrom("webhook_listen_sessions as ls")
        .innerJoin("stores as s", "s.id", "ls.store_id")
        .select([
          "ls.store_id",
          "ls.id",
          "ls.installation_id",
          "ls.events",
          "ls.connection",
          "ls.position",
          "ls.start_position",
          "ls.created_at",
          "ls.seen_at",
          "ls.stopped_at",
          "s.slug",
        ])
        .where("ls.app_id", "=", appId);
      if (filter.installation)
        q = q
          .where("ls.store_id", "=", filter.installation.storeId)
          .where("ls.installation_id", "=", filter.installation.installationId);
      if (filter.storeSlug) q = q.where("s.slug", "=", filter.storeSlug);
      if (filter.id) q = q.where("ls.id", "=", filter.id);
      if (filter.event) q = q.where(sql<boolean>`${filter.event} = ANY (ls.events)`);
      const rows = await keysetPage(q, plan, "ls").execute();
      return rows.map(
        (r): ListenSessionRow => ({
          ...r,
          position: Number(r.position),
          start_position: Number(r.start_position),
        }),
      );
    },

    /**
     * What listen sessions streamed, newest first, at most `limit` per session (before the feed
     * position `before`, when given): the events of each session's store in the range of the feed
     * it read, (start_position, position], of its events, untargeted or targeted at its
     * installation, which is what its stream wrote (listen/listen-stream.ts). Events past their
     * retention are gone from the feed and so from this list.
     */
    async streamedBy(
      sessions: ReadonlyArray<Pick<ListenSessionRow, "store_id" | "id">>,
      options: { limit: number; event?: EventName | undefined; before?: number | undefined },
    ): Promise<StreamedEventRow[]> {
      if (!sessions.length) return [];
      const { rows } = await sql<StreamedEventRow>`
        SELECT ls.id AS session_id, e.feed_position AS position, e.id, e.topic, e.created_at, e.test
          FROM webhook_listen_sessions ls
          JOIN LATERAL (
            SELECT feed_position, id, topic, created_at, test FROM events
             WHERE store_id = ls.store_id
               AND feed_position > ls.start_position AND feed_position <= ls.position
               AND topic = ANY (ls.events)
               AND (installation_id IS NULL OR installation_id = ls.installation_id)
               AND (${options.event ?? null}::text IS NULL OR topic = ${options.event ?? null})
               AND (${options.before ?? null}::bigint IS NULL OR feed_position < ${options.before ?? null})
             ORDER BY feed_position DESC LIMIT ${options.limit}) e ON true
         WHERE (ls.store_id, ls.id) IN (
           SELECT * FROM unnest(${sessions.map((s) => s.store_id) as unknown as string}::text[],
                                ${sessions.map((s) => s.id) as unknown as string}::text[]))
         ORDER BY ls.id, e.feed_position DESC`.execute(db);
      return rows.map((r) => ({ ...r, position: Number(r.position) }));
    },

    /**
     * The listen sessions that streamed one resource's events (an order's page), newest event
     * first, with the app of each. At most `limit`.
     */
    async streamedForResource(storeId: string, resourceId: string, limit: number) {
      const { rows } = await sql<{
        session_id: string;
        event_id: string;
        topic: string;
        created_at: Date;
        test: boolean;
        app_name: string;
        client_id: string;
      }>`
        SELECT ls.id AS session_id, e.id AS event_id, e.topic, e.created_at, e.test,
               a.name AS app_name, a.client_id
          FROM events e
          JOIN webhook_listen_sessions ls
            ON ls.store_id = e.store_id
           AND e.feed_position > ls.start_position AND e.feed_position <= ls.position
           AND e.topic = ANY (ls.events)
           AND (e.installation_id IS NULL OR e.installation_id = ls.installation_id)
          JOIN apps a ON a.id = ls.app_id
         WHERE e.store_id = ${storeId} AND e.resource_id = ${resourceId}
         ORDER BY e.created_at DESC, e.id DESC, ls.id
         LIMIT ${limit}`.execute(db);
      return rows;
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
     *
     * The body is read in the insert, after the lock, not taken from `original` (read before it):
     * a customer's erasure locks the subscriptions of the deliveries it rewrites, so a redelivery
     * that comes first has committed its copy before the erasure reads the deliveries (and is
     * rewritten with them), and one that comes later copies the erased body.
     */
    async redeliver(original: WebhookDelivery, now: Date): Promise<string | null> {
      const id = newDeliveryId();
      return db.transaction().execute(async (tx) => {
        const live = await tx
          .selectFrom("webhook_subscriptions")
          .select("id")
          .where("store_id", "=", original.store_id)
          .where("id", "=", original.subscription_id)
          // An active subscription, or a privacy channel (which is never stopped).
          .where("status", "in", SENDING_SUBSCRIPTION_STATUS_NAMES)
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
            body: (eb) =>
              eb
                .selectFrom("webhook_deliveries")
                .select("body")
                .where("store_id", "=", original.store_id)
                .where("id", "=", original.id),
            status: DeliveryStatus.pending,
            next_attempt_at: now,
            redelivery_of: original.id,
            test: original.test,
            // The label of the body it copies; it is sent at its subscription's version then.
            api_version: original.api_version,
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
     * One statement (after the lock below), and the originals are not written to: the unique key
     * on `recovery_of` is what makes a delivery recovered once. Two recovers at once read the same
     * candidates; the second insert of a recovery waits for the first to commit and then inserts
     * nothing (ON CONFLICT DO NOTHING), so each is queued by exactly one of them, and only the
     * insert counts. Nothing is taken unless the subscription is active (share-locked, as a dispatch
     * does, so a disable or an uninstall that comes first is seen). Workers are woken when
     * something was queued. Answers how many were queued, how many were read (fewer than `limit`:
     * the window is done) and where the chunk ended.
     *
     * The subscription is share-locked by a statement of its own first, in the chunk's
     * transaction, so the chunk's statement reads the bodies after the lock is granted: a
     * customer's erasure locks the subscriptions of the deliveries it rewrites, so a chunk either
     * commits its copies before the erasure reads the deliveries (and they are rewritten with
     * them) or reads the erased bodies. One statement alone would read the bodies as they were
     * when it began, before it waited.
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
      const chunk = sql<{
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
             updated_at, api_version)
          SELECT t.store_id, x.id, coalesce(t.webhook_id, t.id), t.event_id, t.event_name, t.subscription_id,
                 t.installation_id, t.app_id, t.target_url, t.target_host, t.body, ${DeliveryStatus.pending}, 0,
                 ${now}, t.id, t.id, t.test, ${now}, ${now}, t.api_version
            FROM numbered t
            JOIN unnest(${ids as unknown as string}::text[]) WITH ORDINALITY AS x(id, n) ON x.n = t.n
          ON CONFLICT (store_id, recovery_of) WHERE recovery_of IS NOT NULL DO NOTHING
          RETURNING 1
        )
        SELECT q.queued, r.read, l.created_at AS last_created_at, l.id AS last_id,
               CASE WHEN q.queued > 0 THEN pg_notify(${EVENTS_CHANNEL}, '')::text END AS notified
          FROM (SELECT count(*)::int AS queued FROM queued) q
          CROSS JOIN (SELECT count(*)::int AS read FROM numbered) r
          LEFT JOIN (SELECT created_at, id FROM numbered ORDER BY n DESC LIMIT 1) l ON true`;
      const rows = await db.transaction().execute(async (tx) => {
        await sql`
          SELECT 1 FROM webhook_subscriptions WHERE store_id = ${storeId} AND id = ${subscriptionId}
             FOR SHARE`.execute(tx);
        return (await chunk.execute(tx)).rows;
      });
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
