import { sql } from "kysely";
import { SubscriptionStatus } from "../../contracts/index.ts";
import type { Executor } from "../../db/client.ts";
import type { WebhookSubscription } from "../../db/schema.ts";

export function createSubscriptionRepo(db: Executor) {
  return {
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
    async countActive(storeId: string, installationId: string, tx: Executor = db) {
      const row = await tx
        .selectFrom("webhook_subscriptions")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("store_id", "=", storeId)
        .where("installation_id", "=", installationId)
        .where("status", "=", SubscriptionStatus.active)
        .executeTakeFirstOrThrow();
      return Number(row.n);
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
}
export type SubscriptionRepo = ReturnType<typeof createSubscriptionRepo>;
