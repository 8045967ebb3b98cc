import {
  DeliveryStatus,
  EVENT,
  EVENT_BY_NAME,
  EVENTS,
  eraseAppMetadata,
  eraseRecord,
  isErasableKind,
  isEventName,
  type PrivacyEventName,
} from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { Installation, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import type { IdempotencyRepo } from "../idempotency/idempotency-repo.ts";
import { erasedWebhookBody } from "../webhooks/delivery/delivery-repo.ts";
import type { ErasureRepo } from "./erasure-repo.ts";
import type { PrivacyRepo, PrivacyTarget } from "./privacy-repo.ts";

/** How many shop.redact one claim takes (the sweep claims again while it gets a full batch). */
const SHOP_REDACT_BATCH = 100;
/** How many data requests a customer's page lists. */
const DATA_REQUESTS_LISTED = 50;

/**
 * The privacy webhooks (issue 21): `customer.redact` when a customer is deleted or anonymised,
 * `customer.data_request` when the merchant asks, `shop.redact` a while after an uninstall. Each
 * is recorded as an event (the event feed shows it to the apps it concerns) and queued to those
 * apps' privacy endpoints in the same transaction.
 */
export function createPrivacyService(deps: {
  db: Db;
  repo: PrivacyRepo;
  recordEvent: RecordEvent;
  clock: Clock;
  /** SHOP_REDACT_DELAY_SECONDS. */
  shopRedactDelaySeconds: number;
  /** The statements that reach an erased customer's stored copies (erasure-repo.ts). */
  erasure: ErasureRepo;
  /** The stored idempotent answers naming an erased customer. */
  idempotency: Pick<IdempotencyRepo, "eraseAnswersAbout">;
  /**
   * How long after an erasure the receivers' answers to its deliveries are still cleared (an
   * attempt on the wire during it is recorded up to a lease later): twice WEBHOOK_LEASE_MS and a
   * minute, for the clocks of two processes and a worker's turn.
   */
  erasureFollowUpMs: number;
}) {
  const { db, repo, clock } = deps;

  /** Records a privacy event and queues it to the endpoints of the apps it concerns. */
  async function send(
    tx: Executor,
    store: Pick<Store, "id" | "slug">,
    input: {
      topic: PrivacyEventName;
      resourceId: string;
      payload: unknown;
      target: PrivacyTarget;
      /** The time the payload already names (a data request's `requestedAt`): the event's too. */
      now?: Date;
    },
  ) {
    const now = input.now ?? clock.now();
    const event = await deps.recordEvent(tx, {
      storeId: store.id,
      topic: input.topic,
      resourceId: input.resourceId,
      payload: input.payload,
      // Targeted at the one installation it is for (shop.redact), else seen in the feed by every
      // app with the event's scope, which is whom it was sent to.
      ...("installationId" in input.target ? { installationId: input.target.installationId } : {}),
      // Its deliveries are made here: dispatch never looks at it.
      dispatchedAt: now,
      createdAt: now,
    });
    const queued = await repo.enqueue(tx, {
      storeId: store.id,
      slug: store.slug,
      event: {
        id: event.id,
        seq: event.seq,
        topic: input.topic,
        created_at: event.createdAt,
        payload: input.payload,
      },
      target: input.target,
      now,
    });
    return { event, ...queued };
  }

  const customerScope = EVENTS.customerRedact.scope;

  return {
    /**
     * In the transaction that deletes or anonymises a customer, after their row and their orders'
     * rows (locked, and erased by the same rule): every stored copy of their data is erased by the
     * contract's rule (contracts/erasure.ts). The payloads of the events of the customer and of
     * their orders (the event feed, `listen`, what a later dispatch renders), those events' app
     * metadata where the rule erases it, the bodies stored with every delivery of them (what a
     * retry, a redelivery or a recover sends; a body cut to a subscription's `fields` stays cut),
     * the receivers' answers to those deliveries (cleared: a receiver may echo the body), and the
     * stored idempotent answers naming the customer or their orders. The events stay where they
     * were in the feed, with their ids and times.
     */
    async eraseStoredCopies(tx: Executor, store: Store, customerId: string, orderIds: readonly string[]) {
      const { erasure } = deps;
      const events = await erasure.eventsOf(tx, store.id, [customerId, ...orderIds]);
      const erased = events.flatMap((e) => {
        const kind = isEventName(e.topic) ? EVENT_BY_NAME[e.topic].data : null;
        // customer.redact and customer.data_request name the customer too: ids only.
        if (kind === null || !isErasableKind(kind)) return [];
        return [
          {
            id: e.id,
            kind,
            resourceId: e.resource_id,
            payload: eraseRecord(kind, e.payload, e.resource_id),
            app_metadata: eraseAppMetadata(kind, e.app_metadata),
          },
        ];
      });
      if (erased.length > 0) {
        await erasure.rewriteEvents(tx, store.id, erased, clock.now());
        const byId = new Map(erased.map((e) => [e.id, e]));
        const eventIds = [...byId.keys()];
        // Before reading the deliveries, in a statement of its own (lockSubscriptions says why).
        await erasure.lockSubscriptions(tx, store.id, eventIds);
        const deliveries = await erasure.deliveriesOf(tx, store.id, eventIds);
        await erasure.rewriteDeliveries(
          tx,
          store.id,
          deliveries.map((d) => {
            const event = byId.get(d.event_id)!;
            return { id: d.id, body: erasedWebhookBody(d.body, event.kind, event.resourceId) };
          }),
        );
        await erasure.clearAnswers(
          tx,
          store.id,
          deliveries.map((d) => d.id),
        );
      }
      await deps.idempotency.eraseAnswersAbout(tx, store.id, customerId);
    },

    /**
     * The worker's follow-up of recent erasures: clears what receivers answered after an erasure
     * to the deliveries it erased (an attempt was on the wire while it ran). Answers how many.
     */
    async clearLateAnswers(): Promise<number> {
      const since = new Date(clock.now().getTime() - deps.erasureFollowUpMs);
      return deps.erasure.clearLateAnswers(db, since);
    },

    /**
     * In the transaction that deletes or anonymises a customer: `customer.redact` to every app
     * installed with read_customers, with the customer's order ids (read before a deletion).
     */
    async customerRemoved(tx: Executor, store: Store, customerId: string, orderIds: string[]) {
      await send(tx, store, {
        topic: EVENT.customerRedact,
        resourceId: customerId,
        payload: { customerId, orderIds },
        target: { scope: customerScope },
      });
    },

    /**
     * The merchant asks the installed apps with read_customers what they hold on a customer:
     * `customer.data_request` to each one's privacy endpoint. Answers the request as listed.
     */
    async requestCustomerData(store: Store, customerId: string) {
      const sent = await db.transaction().execute(async (tx) => {
        const customer = await repo.lockCustomer(store.id, customerId, tx);
        if (!customer) throw notFound("Customer");
        if (customer.anonymized_at)
          throw new AppError("CONFLICT", {
            message:
              "This customer was deleted: the apps were sent customer.redact, and there is nothing left to ask about.",
          });
        const orderIds = await repo.orderIdsOf(store.id, customerId, tx);
        const now = clock.now();
        return send(tx, store, {
          topic: EVENT.customerDataRequest,
          resourceId: customerId,
          payload: { customerId, orderIds, requestedAt: now.toISOString() },
          target: { scope: customerScope },
          now,
        });
      });
      const [request] = await this.listDataRequests(store, customerId, [sent.event.id]);
      return { ...request!, appsWithoutEndpoint: sent.withoutEndpoint };
    },

    /**
     * A customer's data requests, newest first, each with the apps it was sent to and how each
     * delivery went (the newest delivery per app: a redelivery replaces what the page shows).
     */
    async listDataRequests(store: Store, customerId: string, only?: string[]) {
      if (!only && !(await repo.customerExists(store.id, customerId))) throw notFound("Customer");
      const events = (await repo.dataRequestsOf(store.id, customerId, DATA_REQUESTS_LISTED)).filter(
        (e) => !only || only.includes(e.id),
      );
      const deliveries = await repo.deliveriesOf(
        store.id,
        events.map((e) => e.id),
      );
      return events.map((e) => {
        const newest = new Map<string, (typeof deliveries)[number]>();
        for (const d of deliveries) if (d.event_id === e.id) newest.set(d.app_id, d);
        return {
          id: e.id,
          requestedAt: e.created_at.toISOString(),
          apps: [...newest.values()]
            .sort((a, b) => a.name.localeCompare(b.name))
            .map((d) => ({
              app: { clientId: d.client_id, name: d.name },
              delivery: {
                id: d.id,
                status: d.status,
                attempts: d.attempts,
                lastStatusCode: d.last_status_code,
                lastError: d.last_error,
                nextAttemptAt: d.status === DeliveryStatus.pending ? d.next_attempt_at.toISOString() : null,
                createdAt: d.created_at.toISOString(),
                completedAt: d.completed_at ? d.completed_at.toISOString() : null,
              },
            })),
        };
      });
    },

    /** The installed apps with read_customers that have no privacy endpoint (they are sent nothing). */
    appsWithoutEndpoint: (store: Store) => repo.withoutEndpoint(store.id, customerScope),

    /** Uninstall hook: shop.redact falls due SHOP_REDACT_DELAY_SECONDS from now. */
    async onUninstall(tx: Executor, installation: Installation, store: Store) {
      const due = new Date(clock.now().getTime() + deps.shopRedactDelaySeconds * 1000);
      await repo.scheduleShopRedact(tx, store.id, installation.id, due);
    },

    /**
     * Sends every shop.redact that is due: each claimed and its event recorded and queued in one
     * transaction, so each is sent once whichever worker runs it; one whose app was installed in
     * the store again meanwhile is marked done and sends nothing. Answers how many were sent.
     */
    async sweepShopRedactions(): Promise<{ sent: number; skipped: number }> {
      let sent = 0;
      let skipped = 0;
      for (;;) {
        const claimed = await db.transaction().execute(async (tx) => {
          const due = await repo.claimDueShopRedactions(tx, clock.now(), SHOP_REDACT_BATCH);
          for (const d of due) {
            if (d.reinstalled) {
              skipped++;
              continue;
            }
            await send(
              tx,
              { id: d.store_id, slug: d.slug },
              {
                topic: EVENT.shopRedact,
                resourceId: d.installation_id,
                payload: { clientId: d.client_id, uninstalledAt: d.uninstalled_at.toISOString() },
                target: { installationId: d.installation_id },
              },
            );
            sent++;
          }
          return due.length;
        });
        if (claimed < SHOP_REDACT_BATCH) return { sent, skipped };
      }
    },
  };
}
export type PrivacyService = ReturnType<typeof createPrivacyService>;
