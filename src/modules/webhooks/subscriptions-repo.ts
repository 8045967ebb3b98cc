import { sql } from "kysely";
import { type EventName, SubscriptionStatus } from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { WebhookSubscription } from "../../db/schema.ts";

/** How many active subscriptions an installation may hold: of one event, and in all. */
export interface SubscriptionBounds {
  perEvent: number;
  perInstallation: number;
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
          .where("status", "=", SubscriptionStatus.active)
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
            .where(sql.ref("status"), "=", sql.lit(SubscriptionStatus.active))
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
    async listActive(storeId: string, installationId: string, tx: Executor = db) {
      return tx
        .selectFrom("webhook_subscriptions")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("installation_id", "=", installationId)
        .where("status", "=", SubscriptionStatus.active)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
    },
    /** The installation's subscription `id`, if it is active. */
    async findActive(storeId: string, installationId: string, id: string) {
      return db
        .selectFrom("webhook_subscriptions")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("installation_id", "=", installationId)
        .where("id", "=", id)
        .where("status", "=", SubscriptionStatus.active)
        .executeTakeFirst();
    },
    /**
     * Puts `sealed` in force as the subscription's secret and keeps the one it replaces as the
     * previous secret (a secret older than that is dropped), stamped `now`; only an active
     * subscription of the installation, of one of `events`. One statement: the right-hand sides
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
        .where("status", "=", SubscriptionStatus.active)
        .where("event_name", "in", events)
        .returningAll()
        .executeTakeFirst();
    },
    async stop(storeId: string, installationId: string, id: string, now: Date, tx: Executor = db) {
      return tx
        .updateTable("webhook_subscriptions")
        .set({ status: SubscriptionStatus.stopped, stopped_at: now })
        .where("store_id", "=", storeId)
        .where("installation_id", "=", installationId)
        .where("id", "=", id)
        .where("status", "=", SubscriptionStatus.active)
        .returningAll()
        .executeTakeFirst();
    },
  };
  return repo;
}
export type SubscriptionRepo = ReturnType<typeof createSubscriptionRepo>;
