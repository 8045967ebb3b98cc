import { sql } from "kysely";
import {
  DeliveryStatus,
  EVENT,
  InstallationStatus,
  type PrivacyEventName,
  type Scope,
  SubscriptionStatus,
} from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import { newId } from "../../lib/ids.ts";
import type { EventVersion } from "../versions/event-versions.ts";
import { newDeliveryId, webhookBody } from "../webhooks/delivery/delivery-repo.ts";

/** A privacy event just recorded, as its deliveries' body needs it. */
export interface PrivacyEvent {
  id: string;
  seq: number;
  topic: PrivacyEventName;
  created_at: Date;
  payload: unknown;
}

/** Who a privacy event concerns: the active installations holding a scope, or one installation. */
export type PrivacyTarget = { scope: Scope } | { installationId: string };

/** What a shop.redact claim took (see claimDueShopRedactions). */
export interface DueShopRedaction {
  store_id: string;
  installation_id: string;
  app_id: string;
  client_id: string;
  slug: string;
  uninstalled_at: Date;
  /** The app was installed in the store again after this uninstall: nothing is sent. */
  reinstalled: boolean;
}

/**
 * The storage of the privacy webhooks. The privacy events travel on the delivery engine as it is:
 * each installation that receives them has one subscription row of status `privacy` (its privacy
 * channel: the app's privacy endpoint and sealed secret, copied from the app), and each event is
 * a delivery of that row, inserted in the event's own transaction. So the worker claims, signs,
 * retries and logs them like any delivery, and nothing in dispatch, claim or completion changed.
 */
export function createPrivacyRepo(
  db: Db,
  deps: {
    /** A privacy webhook is stored labelled with its app's API version (modules/versions). */
    events: { stored(apiVersion: string): EventVersion };
  },
) {
  /** The literal, so the partial unique index can be the arbiter in a generic plan too. */
  const privacyStatus = sql.lit(SubscriptionStatus.privacy);
  return {
    /**
     * Queues `event` to the privacy endpoint of each app it concerns (`target`) that has declared
     * one: upserts their installations' privacy channels from the apps' current endpoint and
     * secrets, then inserts one pending delivery per channel, due now. Runs in the caller's
     * transaction (the one that recorded the event), so the deliveries exist exactly when the
     * event does. Answers the deliveries, and the apps concerned that have no endpoint.
     */
    async enqueue(
      tx: Executor,
      input: { storeId: string; slug: string; event: PrivacyEvent; target: PrivacyTarget; now: Date },
    ) {
      const { storeId, now } = input;
      let q = tx
        .selectFrom("installations as i")
        .innerJoin("apps as a", "a.id", "i.app_id")
        .select([
          "i.id as installation_id",
          "i.status",
          "a.id as app_id",
          "a.client_id",
          "a.name",
          "a.privacy_webhook_url",
          "a.privacy_secret_ciphertext",
          "a.privacy_previous_secret_ciphertext",
          "a.privacy_secret_rotated_at",
          "a.api_version",
        ])
        .where("i.store_id", "=", storeId)
        // An app its developer deleted receives nothing more.
        .where("a.deleted_at", "is", null);
      if ("scope" in input.target) {
        q = q
          .where("i.status", "=", InstallationStatus.active)
          .where(sql<boolean>`i.scopes @> jsonb_build_array(${input.target.scope}::text)`);
      } else q = q.where("i.id", "=", input.target.installationId);
      const targets = await q.orderBy("a.name").orderBy("a.id").execute();
      const reachable = targets.filter(
        (t): t is typeof t & { privacy_webhook_url: string; privacy_secret_ciphertext: string } =>
          t.privacy_webhook_url !== null && t.privacy_secret_ciphertext !== null,
      );
      const withoutEndpoint = targets
        .filter((t) => !reachable.includes(t as (typeof reachable)[number]))
        .map((t) => ({ clientId: t.client_id, name: t.name }));
      if (reachable.length === 0) return { deliveries: [], withoutEndpoint };
      // The channels, as the apps' endpoints and secrets are now (a channel made earlier follows
      // a change of either here too, besides the update the change itself makes).
      const channels = await tx
        .insertInto("webhook_subscriptions")
        .values(
          reachable.map((t) => ({
            store_id: storeId,
            id: newId("subscription"),
            installation_id: t.installation_id,
            app_id: t.app_id,
            // No event has this name: a channel is never matched by dispatch (it is not active
            // or disabled either); what it carries is each delivery's own event_name.
            event_name: SubscriptionStatus.privacy,
            target_url: t.privacy_webhook_url,
            secret_ciphertext: t.privacy_secret_ciphertext,
            previous_secret_ciphertext: t.privacy_previous_secret_ciphertext,
            secret_rotated_at: t.privacy_secret_rotated_at,
            status: SubscriptionStatus.privacy,
            // Rendered at the app's pin, as every delivery to it.
            api_version: t.api_version,
            created_at: now,
            stopped_at: null,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(["store_id", "installation_id"])
            .where(sql.ref("status"), "=", privacyStatus)
            .doUpdateSet((eb) => ({
              target_url: eb.ref("excluded.target_url"),
              secret_ciphertext: eb.ref("excluded.secret_ciphertext"),
              previous_secret_ciphertext: eb.ref("excluded.previous_secret_ciphertext"),
              secret_rotated_at: eb.ref("excluded.secret_rotated_at"),
              // The app's pin as it is now: a privacy webhook is rendered at it.
              api_version: eb.ref("excluded.api_version"),
            })),
        )
        .returning(["id", "installation_id", "app_id", "target_url", "api_version"])
        .execute();
      const deliveries = await tx
        .insertInto("webhook_deliveries")
        .values(
          channels.map((c) => ({
            store_id: storeId,
            id: newDeliveryId(),
            event_id: input.event.id,
            event_name: input.event.topic,
            subscription_id: c.id,
            installation_id: c.installation_id,
            app_id: c.app_id,
            target_url: c.target_url,
            target_host: new URL(c.target_url).host,
            body: webhookBody(input.event, input.slug, deps.events.stored(c.api_version)),
            api_version: c.api_version,
            status: DeliveryStatus.pending,
            next_attempt_at: now,
            created_at: now,
            updated_at: now,
          })),
        )
        .returning(["id", "app_id", "installation_id"])
        .execute();
      return { deliveries, withoutEndpoint };
    },

    /**
     * Puts the app's current endpoint and secrets on its privacy channels in every store, and
     * its new endpoint on their pending deliveries (an attempt already in flight keeps the URL it
     * was claimed with). Called after the app's privacy settings change.
     */
    async syncChannels(appId: string, now: Date) {
      const app = await db
        .selectFrom("apps")
        .select([
          "privacy_webhook_url",
          "privacy_secret_ciphertext",
          "privacy_previous_secret_ciphertext",
          "privacy_secret_rotated_at",
        ])
        .where("id", "=", appId)
        .executeTakeFirst();
      // Without an endpoint the channels keep the last one: what is queued still goes there.
      if (!app?.privacy_webhook_url || !app.privacy_secret_ciphertext) return;
      const url = app.privacy_webhook_url;
      await db.transaction().execute(async (tx) => {
        await tx
          .updateTable("webhook_subscriptions")
          .set({
            target_url: url,
            secret_ciphertext: app.privacy_secret_ciphertext!,
            previous_secret_ciphertext: app.privacy_previous_secret_ciphertext,
            secret_rotated_at: app.privacy_secret_rotated_at,
          })
          .where("app_id", "=", appId)
          .where("status", "=", SubscriptionStatus.privacy)
          .execute();
        await sql`
          UPDATE webhook_deliveries d
             SET target_url = ${url}, target_host = ${new URL(url).host}
            FROM webhook_subscriptions s
           WHERE s.app_id = ${appId} AND s.status = ${privacyStatus}
             AND d.store_id = s.store_id AND d.subscription_id = s.id
             AND d.status = ${DeliveryStatus.pending} AND d.target_url <> ${url}
             AND (d.lease_until IS NULL OR d.lease_until <= ${now})`.execute(tx);
      });
    },

    /** The ids of a customer's orders, oldest first (what customer.redact and data_request name). */
    async orderIdsOf(storeId: string, customerId: string, tx: Executor = db): Promise<string[]> {
      const rows = await tx
        .selectFrom("orders")
        .select("id")
        .where("store_id", "=", storeId)
        .where("customer_id", "=", customerId)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      return rows.map((r) => r.id);
    },

    /** The customer, locked for the transaction (a data request of a customer being deleted waits). */
    async lockCustomer(storeId: string, customerId: string, tx: Executor) {
      return tx
        .selectFrom("customers")
        .select(["id", "anonymized_at"])
        .where("store_id", "=", storeId)
        .where("id", "=", customerId)
        .forUpdate()
        .executeTakeFirst();
    },

    async customerExists(storeId: string, customerId: string) {
      const row = await db
        .selectFrom("customers")
        .select("id")
        .where("store_id", "=", storeId)
        .where("id", "=", customerId)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** A customer's data requests, newest first (at most `limit`): the events. */
    async dataRequestsOf(storeId: string, customerId: string, limit: number) {
      return db
        .selectFrom("events")
        .select(["id", "created_at"])
        .where("store_id", "=", storeId)
        .where("resource_id", "=", customerId)
        .where("topic", "=", EVENT.customerDataRequest)
        .where("test", "=", false)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(limit)
        .execute();
    },

    /** The deliveries of some events, with their apps, oldest first. */
    async deliveriesOf(storeId: string, eventIds: readonly string[]) {
      if (eventIds.length === 0) return [];
      return db
        .selectFrom("webhook_deliveries as d")
        .innerJoin("apps as a", "a.id", "d.app_id")
        .select([
          "d.id",
          "d.event_id",
          "d.status",
          "d.attempts",
          "d.last_status_code",
          "d.last_error",
          "d.next_attempt_at",
          "d.created_at",
          "d.completed_at",
          "a.id as app_id",
          "a.client_id",
          "a.name",
        ])
        .where("d.store_id", "=", storeId)
        .where("d.event_id", "in", eventIds)
        .orderBy("d.created_at")
        .orderBy("d.id")
        .execute();
    },

    /** The store's active installations holding `scope` whose app has no privacy endpoint. */
    async withoutEndpoint(storeId: string, scope: Scope) {
      return db
        .selectFrom("installations as i")
        .innerJoin("apps as a", "a.id", "i.app_id")
        .select(["a.client_id", "a.name"])
        .where("i.store_id", "=", storeId)
        .where("i.status", "=", InstallationStatus.active)
        .where(sql<boolean>`i.scopes @> jsonb_build_array(${scope}::text)`)
        .where("a.privacy_webhook_url", "is", null)
        .orderBy("a.name")
        .execute();
    },

    /** In the uninstall transaction: shop.redact becomes due at `dueAt`. */
    async scheduleShopRedact(tx: Executor, storeId: string, installationId: string, dueAt: Date) {
      await tx
        .updateTable("installations")
        .set({ shop_redact_due_at: dueAt })
        .where("store_id", "=", storeId)
        .where("id", "=", installationId)
        .execute();
    },

    /**
     * Claims up to `limit` shop.redact that are due, for the caller's transaction: marks them done
     * and answers them. One statement; rows another worker holds are skipped (SKIP LOCKED) and a
     * row it marked is no longer due, so each is taken by exactly one transaction, and the event
     * the caller records in the same transaction exists exactly when the mark does.
     */
    async claimDueShopRedactions(tx: Executor, now: Date, limit: number): Promise<DueShopRedaction[]> {
      const { rows } = await sql<DueShopRedaction>`
        WITH due AS (
          SELECT store_id, id FROM installations
           WHERE shop_redact_due_at IS NOT NULL AND shop_redact_done_at IS NULL
             AND shop_redact_due_at <= ${now}
           ORDER BY shop_redact_due_at
           LIMIT ${limit}
             FOR UPDATE SKIP LOCKED
        )
        UPDATE installations i SET shop_redact_done_at = ${now}
          FROM due
         WHERE i.store_id = due.store_id AND i.id = due.id
        RETURNING i.store_id, i.id AS installation_id, i.app_id, i.uninstalled_at,
                  (SELECT a.client_id FROM apps a WHERE a.id = i.app_id) AS client_id,
                  (SELECT st.slug FROM stores st WHERE st.id = i.store_id) AS slug,
                  EXISTS (SELECT 1 FROM installations j
                           WHERE j.store_id = i.store_id AND j.app_id = i.app_id AND j.id <> i.id
                             AND j.created_at >= i.uninstalled_at) AS reinstalled`.execute(tx);
      return rows;
    },
  };
}
export type PrivacyRepo = ReturnType<typeof createPrivacyRepo>;
