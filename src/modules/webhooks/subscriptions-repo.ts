import { sql } from "kysely";
import {
  type EventName,
  LISTED_SUBSCRIPTION_STATUS_NAMES,
  SubscriptionStatus,
} from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { WebhookSubscription } from "../../db/schema.ts";

/** How many active subscriptions an installation may hold: of one event, and in all. */
export interface SubscriptionBounds {
  perEvent: number;
  perInstallation: number;
}

/** A subscription row with when its current run of failed attempts began (null when it is not failing). */
export type SubscriptionRow = WebhookSubscription & { failing_since: Date | null };

/** Subscriptions (`s`) with their run of failures. */
function withFailingSince(db: Executor) {
  return db
    .selectFrom("webhook_subscriptions as s")
    .leftJoin("webhook_subscription_failures as f", (j) =>
      j.onRef("f.store_id", "=", "s.store_id").onRef("f.subscription_id", "=", "s.id"),
    )
    .selectAll("s")
    .select("f.failing_since");
}

export function createSubscriptionRepo(db: Db) {
  const repo = {
    /**
     * Inserts an active subscription unless its installation is at a bound: answers the row, or
     * which bound refused it, or "duplicate" (the same event and URL is already subscribed). The
     * installation's row is locked for the count and the insert, so concurrent creates of one
     * installation take turns and a bound is never overrun (uninstall locks the same row first,
     * then the subscriptions: the same order).
     */
    async insertWithinBounds(
      row: WebhookSubscription,
      bounds: SubscriptionBounds,
    ): Promise<{ row: WebhookSubscription } | { refused: "event" | "installation" | "duplicate" }> {
      return db.transaction().execute(async (tx) => {
        await tx
          .selectFrom("installations")
          .select("id")
          .where("store_id", "=", row.store_id)
          .where("id", "=", row.installation_id)
          .forUpdate()
          .execute();
        const counts = await tx
          .selectFrom("webhook_subscriptions")
          .select((eb) => [
            eb.fn.countAll<number>().as("all"),
            eb.fn.countAll<number>().filterWhere("event_name", "=", row.event_name).as("event"),
          ])
          .where("store_id", "=", row.store_id)
          .where("installation_id", "=", row.installation_id)
          // A disabled subscription is still the app's (enabling it must not overrun a bound).
          .where("status", "in", LISTED_SUBSCRIPTION_STATUS_NAMES)
          .executeTakeFirstOrThrow();
        if (Number(counts.all) >= bounds.perInstallation) return { refused: "installation" as const };
        if (Number(counts.event) >= bounds.perEvent) return { refused: "event" as const };
        const inserted = await repo.insert(row, tx);
        return inserted ? { row: inserted } : { refused: "duplicate" as const };
      });
    },
    async insert(row: WebhookSubscription, tx: Executor = db) {
      return tx
        .insertInto("webhook_subscriptions")
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(["store_id", "installation_id", "event_name", "target_url"])
            // A literal, not a parameter: PostgreSQL picks the partial unique index as the arbiter
            // by proving its predicate from this clause, which it cannot do for a parameter once
            // the prepared statement gets a generic plan (42P10 from the sixth insert on).
            .where(
              sql.ref("status"),
              "in",
              sql`(${sql.join(LISTED_SUBSCRIPTION_STATUS_NAMES.map((n) => sql.lit(n)))})`,
            )
            .doNothing(),
        )
        .returningAll()
        .executeTakeFirst();
    },
    /**
     * What one event of an installation fans out to: its active subscriptions of the event (a
     * delivery each) and its listen sessions carrying it (each streams it from the feed; at most
     * LISTEN_MAX_STREAMS live ones, and retention removes expired ones). A test event is charged
     * this many (webhook-limits.ts).
     */
    async countFanOut(storeId: string, installationId: string, event: EventName): Promise<number> {
      const { rows } = await sql<{ n: string | number }>`
        SELECT (SELECT count(*) FROM webhook_subscriptions
                 WHERE store_id = ${storeId} AND installation_id = ${installationId}
                   AND event_name = ${event} AND status = ${SubscriptionStatus.active})
             + (SELECT count(*) FROM webhook_listen_sessions
                 WHERE store_id = ${storeId} AND installation_id = ${installationId}
                   AND stopped_at IS NULL AND ${event} = ANY (events)) AS n`.execute(db);
      return Number(rows[0]?.n ?? 0);
    },
    /** The installation's subscriptions an app sees: active and disabled, oldest first. */
    async listListed(storeId: string, installationId: string, tx: Executor = db) {
      return withFailingSince(tx)
        .where("s.store_id", "=", storeId)
        .where("s.installation_id", "=", installationId)
        .where("s.status", "in", LISTED_SUBSCRIPTION_STATUS_NAMES)
        .orderBy("s.created_at")
        .orderBy("s.id")
        .execute();
    },
    /** One of the installation's subscriptions the app sees (active or disabled), or undefined. */
    /** Renders an active or disabled subscription's deliveries at `apiVersion` from now on; false when there is none. */
    async setApiVersion(storeId: string, installationId: string, id: string, apiVersion: string) {
      const result = await db
        .updateTable("webhook_subscriptions")
        .set({ api_version: apiVersion })
        .where("store_id", "=", storeId)
        .where("installation_id", "=", installationId)
        .where("id", "=", id)
        .where("status", "in", LISTED_SUBSCRIPTION_STATUS_NAMES)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async findListed(storeId: string, installationId: string, id: string) {
      return withFailingSince(db)
        .where("s.store_id", "=", storeId)
        .where("s.installation_id", "=", installationId)
        .where("s.id", "=", id)
        .where("s.status", "in", LISTED_SUBSCRIPTION_STATUS_NAMES)
        .executeTakeFirst();
    },
    /**
     * Puts `sealed` in force as the subscription's secret and keeps the one it replaces as the
     * previous secret (a secret older than that is dropped), stamped `now`; only an active
     * or disabled subscription of the installation, of one of `events`. One statement: the right-hand sides
     * read the row as it was, so the previous secret is exactly the one replaced, even when two
     * rotations race (the second waits for the first's row lock and reads its result).
     */
    async rotateSecret(
      key: { storeId: string; installationId: string; id: string },
      events: readonly EventName[],
      sealed: string,
      now: Date,
    ) {
      if (events.length === 0) return undefined;
      return db
        .updateTable("webhook_subscriptions")
        .set((eb) => ({
          previous_secret_ciphertext: eb.ref("secret_ciphertext"),
          secret_ciphertext: sealed,
          secret_rotated_at: now,
        }))
        .where("store_id", "=", key.storeId)
        .where("installation_id", "=", key.installationId)
        .where("id", "=", key.id)
        .where("status", "in", LISTED_SUBSCRIPTION_STATUS_NAMES)
        .where("event_name", "in", events)
        .returningAll()
        .executeTakeFirst();
    },
    /** One of the app's subscriptions (active or disabled) with its store's slug, or undefined. */
    async findForApp(appId: string, id: string) {
      return withFailingSince(db)
        .innerJoin("stores as st", "st.id", "s.store_id")
        .select("st.slug")
        .where("s.app_id", "=", appId)
        .where("s.id", "=", id)
        .where("s.status", "in", LISTED_SUBSCRIPTION_STATUS_NAMES)
        .executeTakeFirst();
    },
    /**
     * Deleted by the app: stopped for good (from active or disabled). Answers the row as it was
     * (its status before), or undefined when it is not one the app sees.
     */
    async stop(storeId: string, installationId: string, id: string, now: Date, tx: Executor = db) {
      const { rows } = await sql<WebhookSubscription>`
        WITH was AS (
          SELECT * FROM webhook_subscriptions
           WHERE store_id = ${storeId} AND installation_id = ${installationId} AND id = ${id}
             AND status IN ('active', 'disabled')
             FOR NO KEY UPDATE
        ), stopped AS (
          UPDATE webhook_subscriptions s SET status = ${SubscriptionStatus.stopped}, stopped_at = ${now}
            FROM was WHERE s.store_id = was.store_id AND s.id = was.id
        )
        SELECT * FROM was`.execute(tx);
      return rows[0];
    },
    /**
     * Active again (from disabled; an active one stays as it is): events are delivered from now on,
     * and the run of failures that disabled it is forgotten, so the next failure starts a new one.
     * One statement. Answers the row, or undefined when it is not one the app sees.
     */
    async enable(storeId: string, id: string) {
      const { rows } = await sql<WebhookSubscription>`
        WITH enabled AS (
          UPDATE webhook_subscriptions
             SET status = ${SubscriptionStatus.active}, disabled_at = NULL, disabled_reason = NULL
           WHERE store_id = ${storeId} AND id = ${id} AND status IN ('active', 'disabled')
          RETURNING *
        ), forgotten AS (
          DELETE FROM webhook_subscription_failures f USING enabled e
           WHERE f.store_id = e.store_id AND f.subscription_id = e.id
        )
        SELECT * FROM enabled`.execute(db);
      return rows[0];
    },
  };
  return repo;
}
export type SubscriptionRepo = ReturnType<typeof createSubscriptionRepo>;
