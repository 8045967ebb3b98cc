import { sql } from "kysely";
import type { Db, Executor } from "../../../db/client.ts";
import type { WebhookDelivery } from "../../../db/schema.ts";
import { randomBase62 } from "../../../lib/crypto.ts";

export function newDeliveryId(): string {
  return `whd_${randomBase62(22)}`;
}

/** What a worker needs to make one attempt. */
export interface ClaimedDelivery {
  store_id: string;
  id: string;
  event_name: string;
  subscription_id: string;
  target_url: string;
  target_host: string;
  body: string;
  attempts: number;
  lease_token: string;
  /** The subscription's signing secret, still encrypted. */
  secret_ciphertext: string;
}

export function webhookBody(
  event: { id: string; topic: string; created_at: Date; payload: unknown },
  slug: string,
): string {
  return JSON.stringify({
    id: event.id,
    event: event.topic,
    createdAt: event.created_at.toISOString(),
    store: { slug },
    data: event.payload,
  });
}

/**
 * The delivery engine's storage: fan-out of outbox events to deliveries, claiming due deliveries
 * with a lease (several workers, never two on one delivery), recording outcomes fenced by the
 * lease token, and the sweeps that keep the 8-attempt cap true even across crashes.
 */
export function createDeliveryRepo(db: Db) {
  return {
    /**
     * Turns up to `limit` undispatched events into deliveries, one per matching active
     * subscription created before the event, in one transaction; answers how many events. SKIP LOCKED lets several
     * dispatchers work side by side; the unique key makes a retried dispatch harmless.
     */
    async dispatchEvents(now: Date, limit: number): Promise<number> {
      return db.transaction().execute(async (tx) => {
        const events = await tx
          .selectFrom("events")
          .innerJoin("stores", "stores.id", "events.store_id")
          .select([
            "events.seq",
            "events.id",
            "events.store_id",
            "events.topic",
            "events.created_at",
            "events.payload",
            "events.installation_id",
            "stores.slug",
          ])
          .where("events.dispatched_at", "is", null)
          .orderBy("events.seq")
          .limit(limit)
          .forUpdate("events")
          .skipLocked()
          .execute();
        if (events.length === 0) return 0;
        for (const event of events) {
          let subs = tx
            .selectFrom("webhook_subscriptions as s")
            .innerJoin("installations as i", (j) =>
              j.onRef("i.store_id", "=", "s.store_id").onRef("i.id", "=", "s.installation_id"),
            )
            .select(["s.id", "s.installation_id", "s.app_id", "s.target_url"])
            .where("s.store_id", "=", event.store_id)
            .where("s.event_name", "=", event.topic)
            .where("s.status", "=", "active")
            .where("i.status", "=", "active")
            .where("s.created_at", "<=", event.created_at);
          if (event.installation_id) subs = subs.where("s.installation_id", "=", event.installation_id);
          const rows = (await subs.execute()).map((s) => ({
            store_id: event.store_id,
            id: newDeliveryId(),
            event_id: event.id,
            event_name: event.topic,
            subscription_id: s.id,
            installation_id: s.installation_id,
            app_id: s.app_id,
            target_url: s.target_url,
            target_host: new URL(s.target_url).host,
            body: webhookBody(event, event.slug),
            status: "pending" as const,
            next_attempt_at: now,
            created_at: now,
            updated_at: now,
          }));
          if (rows.length) {
            await tx
              .insertInto("webhook_deliveries")
              .values(rows)
              .onConflict((oc) =>
                oc
                  .expression(sql`store_id, subscription_id, event_id`)
                  .where("redelivery_of", "is", null)
                  .doNothing(),
              )
              .execute();
          }
        }
        await tx
          .updateTable("events")
          .set({ dispatched_at: now })
          .where(
            "seq",
            "in",
            events.map((e) => e.seq),
          )
          .execute();
        return events.length;
      });
    },

    /**
     * Claims up to `limit` due deliveries for `leaseMs`, skipping hosts at their concurrency cap.
     * The attempt counter is raised at claim time, so an attempt whose worker dies still counts
     * and no delivery can be attempted more than `maxAttempts` times.
     */
    async claim(
      now: Date,
      limit: number,
      leaseMs: number,
      maxAttempts: number,
      busyHosts: string[],
    ): Promise<ClaimedDelivery[]> {
      if (limit <= 0) return [];
      const token = randomBase62(16);
      const leaseUntil = new Date(now.getTime() + leaseMs);
      // One statement on purpose: the row locks of the inner SELECT live only as long as the UPDATE.
      const result = await sql<ClaimedDelivery>`
        UPDATE webhook_deliveries AS d
           SET attempts = d.attempts + 1, lease_until = ${leaseUntil}, lease_token = ${token}, updated_at = ${now}
          FROM (
            SELECT store_id, id FROM webhook_deliveries
             WHERE status = 'pending'
               AND next_attempt_at <= ${now}
               AND (lease_until IS NULL OR lease_until <= ${now})
               AND attempts < ${maxAttempts}
               ${busyHosts.length ? sql`AND target_host <> ALL(${busyHosts})` : sql``}
             ORDER BY next_attempt_at
             LIMIT ${limit}
             FOR UPDATE SKIP LOCKED
          ) AS due, webhook_subscriptions AS s
         WHERE d.store_id = due.store_id AND d.id = due.id
           AND s.store_id = d.store_id AND s.id = d.subscription_id
        RETURNING d.store_id, d.id, d.event_name, d.subscription_id, d.target_url, d.target_host, d.body,
                  d.attempts, d.lease_token, s.secret_ciphertext`.execute(db);
      return result.rows;
    },

    /**
     * Records an attempt and moves the delivery on. Fenced: if the lease was lost (another worker
     * took over after it expired, or the delivery was cancelled) the state is left alone.
     */
    async complete(
      d: ClaimedDelivery,
      outcome: {
        startedAt: Date;
        durationMs: number;
        statusCode: number | null;
        error: string | null;
        responseBody: string | null;
        next: { status: "delivered" | "failed" } | { status: "pending"; at: Date };
        now: Date;
      },
    ): Promise<boolean> {
      return db.transaction().execute(async (tx) => {
        await tx
          .insertInto("webhook_attempts")
          .values({
            store_id: d.store_id,
            delivery_id: d.id,
            attempt: d.attempts,
            started_at: outcome.startedAt,
            duration_ms: Math.round(outcome.durationMs),
            status_code: outcome.statusCode,
            error: outcome.error,
            response_body: outcome.responseBody,
          })
          .onConflict((oc) => oc.doNothing())
          .execute();
        const done = outcome.next.status !== "pending";
        const updated = await tx
          .updateTable("webhook_deliveries")
          .set({
            status: outcome.next.status,
            next_attempt_at: outcome.next.status === "pending" ? outcome.next.at : outcome.now,
            lease_until: null,
            lease_token: null,
            last_status_code: outcome.statusCode,
            last_error: outcome.error,
            updated_at: outcome.now,
            completed_at: done ? outcome.now : null,
          })
          .where("store_id", "=", d.store_id)
          .where("id", "=", d.id)
          .where("status", "=", "pending")
          .where("lease_token", "=", d.lease_token)
          .executeTakeFirst();
        return Number(updated.numUpdatedRows) === 1;
      });
    },

    /** Deliveries whose last allowed attempt died with its worker: failed for good once the lease is over. */
    async failExhausted(now: Date, maxAttempts: number): Promise<number> {
      const result = await db
        .updateTable("webhook_deliveries")
        .set({
          status: "failed",
          lease_until: null,
          lease_token: null,
          updated_at: now,
          completed_at: now,
          last_error: "attempt abandoned",
        })
        .where("status", "=", "pending")
        .where("attempts", ">=", maxAttempts)
        .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** When the next delivery falls due (for the worker's sleep), or null. */
    async nextDueAt(): Promise<Date | null> {
      const row = await db
        .selectFrom("webhook_deliveries")
        .select((eb) => eb.fn.min("next_attempt_at").as("at"))
        .where("status", "=", "pending")
        .executeTakeFirst();
      return (row?.at as Date | null | undefined) ?? null;
    },

    async stats(now: Date) {
      const pending = await db
        .selectFrom("webhook_deliveries")
        .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min("created_at").as("oldest")])
        .where("status", "=", "pending")
        .executeTakeFirstOrThrow();
      const undispatched = await db
        .selectFrom("events")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("dispatched_at", "is", null)
        .executeTakeFirstOrThrow();
      const oldest = pending.oldest as Date | null;
      return {
        pending: Number(pending.n),
        undispatchedEvents: Number(undispatched.n),
        oldestPendingAgeSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
      };
    },
  };
}
export type DeliveryRepo = ReturnType<typeof createDeliveryRepo>;

/** Inside an uninstall: what happens to the installation's webhooks (spec 3: app/uninstalled first, then stop). */
export async function stopInstallationWebhooks(
  tx: Executor,
  input: {
    storeId: string;
    installationId: string;
    event: { id: string; created_at: Date; payload: unknown };
    slug: string;
    now: Date;
  },
): Promise<WebhookDelivery[]> {
  const { storeId, installationId, now } = input;
  // Attempts already in flight may still land; app/uninstalled waits until their leases are over,
  // so it is the last thing the app receives for this installation.
  const inflight = await tx
    .selectFrom("webhook_deliveries")
    .select((eb) => eb.fn.max("lease_until").as("until"))
    .where("store_id", "=", storeId)
    .where("installation_id", "=", installationId)
    .where("status", "=", "pending")
    .where("lease_until", ">", now)
    .executeTakeFirst();
  const notBefore = (inflight?.until as Date | null | undefined) ?? now;
  await tx
    .updateTable("webhook_deliveries")
    .set({
      status: "cancelled",
      lease_until: null,
      lease_token: null,
      updated_at: now,
      completed_at: now,
      last_error: "app uninstalled",
    })
    .where("store_id", "=", storeId)
    .where("installation_id", "=", installationId)
    .where("status", "=", "pending")
    .execute();
  const subs = await tx
    .selectFrom("webhook_subscriptions")
    .select(["id", "app_id", "target_url"])
    .where("store_id", "=", storeId)
    .where("installation_id", "=", installationId)
    .where("event_name", "=", "app/uninstalled")
    .where("status", "=", "active")
    .execute();
  const rows = subs.map((s) => ({
    store_id: storeId,
    id: newDeliveryId(),
    event_id: input.event.id,
    event_name: "app/uninstalled",
    subscription_id: s.id,
    installation_id: installationId,
    app_id: s.app_id,
    target_url: s.target_url,
    target_host: new URL(s.target_url).host,
    body: webhookBody(
      {
        id: input.event.id,
        topic: "app/uninstalled",
        created_at: input.event.created_at,
        payload: input.event.payload,
      },
      input.slug,
    ),
    status: "pending" as const,
    next_attempt_at: notBefore,
    created_at: now,
    updated_at: now,
  }));
  const created = rows.length
    ? await tx.insertInto("webhook_deliveries").values(rows).returningAll().execute()
    : [];
  await tx
    .updateTable("webhook_subscriptions")
    .set({ status: "stopped", stopped_at: now })
    .where("store_id", "=", storeId)
    .where("installation_id", "=", installationId)
    .where("status", "=", "active")
    .execute();
  return created;
}
