import type { FastifyBaseLogger } from "fastify";
import type { Registry } from "prom-client";
import type { Config } from "../../config.ts";
import { DeliveryStatus, EVENT, WebhookChannel } from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { Installation, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { createPeriodicTask } from "../../lib/periodic-task.ts";
import type { SlidingWindowStore } from "../../lib/rate-limit/sliding-window.ts";
import type { SecretBox } from "../../lib/secret-box.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import { createFeedKeeper, type FeedRepo, type FeedSequencer } from "../events/feed-repo.ts";
import type { AccessContext } from "../oauth/token-service.ts";
import { createRetention } from "../retention/retention-repo.ts";
import type { EventVersions } from "../versions/event-versions.ts";
import { createDeliveryLogRepo } from "./deliveries-repo.ts";
import { adminDeliveryRoutes, createDeliveryViews } from "./deliveries-routes.ts";
import { createDeliveryRepo, stopInstallationWebhooks } from "./delivery/delivery-repo.ts";
import { createWebhookMetrics } from "./delivery/metrics.ts";
import { DISABLING_STATUSES, failureReason } from "./delivery/retry-policy.ts";
import { createWebhookAgent, sendWebhook } from "./delivery/sender.ts";
import { inRotationOverlap, webhookHeaders } from "./delivery/signing.ts";
import { assertSafeTargetUrl } from "./delivery/ssrf.ts";
import { createDeliveryWorker } from "./delivery/worker.ts";
import { createListenRepo, stopListenSessions } from "./listen/listen-repo.ts";
import { listenRoutes } from "./listen/listen-routes.ts";
import { listenDeliveryId } from "./listen/listen-stream.ts";
import { createTestEventRepo } from "./listen/test-events-repo.ts";
import { createRecoveryService } from "./recovery-service.ts";
import { createSubscriptionRepo } from "./subscriptions-repo.ts";
import { createSubscriptionService } from "./subscriptions-service.ts";
import { createWebhookLimits } from "./webhook-limits.ts";

/** How often a worker prunes old rows (retention); the first run is at its start. */
const RETENTION_EVERY_MS = 60_000;
/** How often a worker looks for shop.redact that fell due (by the injected clock). */
const SHOP_REDACT_EVERY_MS = 5_000;
/** How often a worker clears answers recorded after a recent erasure (privacy clearLateAnswers). */
const ERASURE_FOLLOW_UP_EVERY_MS = 5_000;
/** Opened subscription secrets a worker keeps (see createWorker). */
const SECRET_CACHE_SIZE = 10_000;

/** Wires subscriptions, the delivery engine, its metrics and the retention of what grows. */
export function createWebhooksModule(deps: {
  db: Db;
  config: Config;
  clock: Clock;
  secretBox: SecretBox;
  recordEvent: RecordEvent;
  /** The platform's Prometheus registry. */
  registry: Registry;
  /** The stores' event feeds (listen streams read them). */
  feed: { repo: FeedRepo; sequencer: FeedSequencer };
  /** Calls `onEvent(storeId)` when events commit (listen streams wake on it); answers how to stop. */
  subscribeEvents(onEvent: (storeId: string) => void): Promise<() => Promise<void>>;
  /** The installation behind an access token (listen streams check theirs again before each write). */
  authenticate(token: string): Promise<Pick<AccessContext, "expiresAt">>;
  /** The platform's rate-limit windows (Redis when configured): test events and redeliveries per app. */
  windowStore: SlidingWindowStore;
  /** The privacy webhooks' shop.redact, swept by the worker when due. */
  shopRedactions: { sweepShopRedactions(): Promise<{ sent: number; skipped: number }> };
  /** The follow-up of customers' erasures (answers to attempts that were on the wire). */
  erasures: { clearLateAnswers(): Promise<number> };
  /** The API's versions: a subscription's, and its bodies rendered at it (modules/versions). */
  apiVersions: { resolve(asked: string | undefined, pinned: string | null, now: Date): string };
  events: EventVersions;
  /** The first API version: what a delivery made before versions was rendered at. */
  firstApiVersion: string;
}) {
  const { db, config, clock, secretBox } = deps;
  const allowPrivate = config.WEBHOOK_ALLOW_PRIVATE_TARGETS;
  const deliveries = createDeliveryRepo(db, { events: deps.events });
  const metrics = createWebhookMetrics({ registry: deps.registry, repo: deliveries, clock });
  const subscriptionRepo = createSubscriptionRepo(db);
  const limits = createWebhookLimits({
    store: deps.windowStore,
    clock,
    testDeliveriesPerMinute: config.WEBHOOK_TEST_DELIVERIES_PER_MINUTE,
    redeliveriesPerMinute: config.WEBHOOK_REDELIVERIES_PER_MINUTE,
    fanOut: (storeId, installationId, event) => subscriptionRepo.countFanOut(storeId, installationId, event),
  });
  const subscriptions = createSubscriptionService({
    repo: subscriptionRepo,
    clock,
    bounds: {
      perEvent: config.WEBHOOK_MAX_SUBSCRIPTIONS_PER_EVENT,
      perInstallation: config.WEBHOOK_MAX_SUBSCRIPTIONS_PER_INSTALLATION,
    },
    secretOverlapSeconds: config.WEBHOOK_SECRET_OVERLAP_SECONDS,
    sealSecret: (secret) => secretBox.seal(secret),
    assertSafeTarget: (url) => assertSafeTargetUrl(url, { allowPrivate }),
    apiVersions: deps.apiVersions,
    payloadSchema: (topic, version) => deps.events.payloadSchema(topic, version),
  });

  /** Uninstall hook: `app/uninstalled` is queued first, then the installation's webhooks stop. */
  async function onUninstall(tx: Executor, installation: Installation, store: Store) {
    const app = await tx
      .selectFrom("apps")
      .select(["client_id", "name"])
      .where("id", "=", installation.app_id)
      .executeTakeFirstOrThrow();
    const now = clock.now();
    const payload = { clientId: app.client_id, appName: app.name, uninstalledAt: now.toISOString() };
    const event = await deps.recordEvent(tx, {
      storeId: store.id,
      topic: EVENT.appUninstalled,
      resourceId: installation.id,
      payload,
      installationId: installation.id,
      dispatchedAt: now,
    });
    await stopInstallationWebhooks(tx, {
      storeId: store.id,
      installationId: installation.id,
      event: { id: event.id, seq: event.seq, created_at: now, payload },
      slug: store.slug,
      now,
      events: deps.events,
    });
    await stopListenSessions(tx, { storeId: store.id, installationId: installation.id, now });
  }

  const retention = createRetention(db, {
    listenSessionIdleSeconds: config.LISTEN_SESSION_IDLE_SECONDS,
    webhookLogDays: config.WEBHOOK_LOG_RETENTION_DAYS,
    eventDays: config.EVENT_RETENTION_DAYS,
    credentialGraceSeconds: config.CREDENTIAL_RETENTION_GRACE_SECONDS,
  });

  function createWorker(logger: FastifyBaseLogger) {
    const agent = createWebhookAgent(config.WEBHOOK_CONCURRENCY);
    const openedSecrets = new Map<string, string>();
    // Opening (AES-GCM) cost more CPU than signing and sending together (7 % of a draining
    // worker's time): a subscription's ciphertext is opened once, not per attempt. A rotated
    // secret is a new ciphertext, so nothing stale is ever used; the bound only caps memory.
    function openSecret(ciphertext: string): string {
      let secret = openedSecrets.get(ciphertext);
      if (secret === undefined) {
        if (openedSecrets.size >= SECRET_CACHE_SIZE) openedSecrets.clear();
        secret = secretBox.open(ciphertext);
        openedSecrets.set(ciphertext, secret);
      }
      return secret;
    }
    const sweeper = createPeriodicTask({
      everyMs: RETENTION_EVERY_MS,
      run: (now) => retention.run(now),
      onResult: (counts) => {
        if (counts && Object.values(counts).some((n) => n > 0)) logger.info({ deleted: counts }, "retention");
      },
      onError: (error) => logger.warn({ err: error }, "retention run failed; trying again later"),
    });
    const redactor = createPeriodicTask({
      everyMs: SHOP_REDACT_EVERY_MS,
      run: () => deps.shopRedactions.sweepShopRedactions(),
      onResult: (result) => {
        if (result.sent > 0 || result.skipped > 0) logger.info(result, `${EVENT.shopRedact} sweep`);
      },
      onError: (error) => logger.warn({ err: error }, "shop.redact sweep failed; trying again later"),
    });
    const erasureFollowUp = createPeriodicTask({
      everyMs: ERASURE_FOLLOW_UP_EVERY_MS,
      run: () => deps.erasures.clearLateAnswers(),
      onResult: (cleared) => {
        if (cleared > 0) logger.info({ cleared }, "answers to erased deliveries cleared");
      },
      onError: (error) => logger.warn({ err: error }, "erasure follow-up failed; trying again later"),
    });
    const keeper = createFeedKeeper({
      repo: deps.feed.repo,
      sequencer: deps.feed.sequencer,
      pollMs: 1000,
      onError: (error) => logger.warn({ err: error }, "numbering the event feed failed; trying again"),
    });
    const worker = createDeliveryWorker({
      // They run beside the deliveries, each at most once at a time; stop() waits for them.
      housekeeping: {
        due(now) {
          sweeper.due(now);
          redactor.due(now);
          erasureFollowUp.due(now);
        },
        async idle() {
          await Promise.all([sweeper.idle(), redactor.idle(), erasureFollowUp.idle()]);
        },
      },
      repo: deliveries,
      clock,
      logger,
      settings: {
        concurrency: config.WEBHOOK_CONCURRENCY,
        perTargetConcurrency: config.WEBHOOK_PER_TARGET_CONCURRENCY,
        leaseMs: config.WEBHOOK_LEASE_MS,
        maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
        pollMs: 1000,
        dispatchBatch: 200,
        backoff: { firstMs: 250, maxMs: 10_000 },
        disableAfterMs: config.WEBHOOK_DISABLE_AFTER_SECONDS * 1000,
      },
      openSecret,
      async attempt({ delivery, secret, timeoutMs }) {
        // Each attempt is signed with its own timestamp. The body is the stored one, unless its
        // subscription's version renders it otherwise (then every attempt renders the same bytes).
        const now = clock.now();
        const body = deps.events.render(
          delivery.body,
          delivery.event_name,
          delivery.body_api_version ?? deps.firstApiVersion,
          delivery.api_version,
        );
        const overlap =
          delivery.previous_secret_ciphertext !== null &&
          inRotationOverlap(delivery.secret_rotated_at, now, config.WEBHOOK_SECRET_OVERLAP_SECONDS);
        const headers = webhookHeaders({
          event: delivery.event_name,
          // The webhook id, not the row's: a recovered delivery keeps its original's.
          deliveryId: delivery.webhook_id,
          attempt: delivery.attempts,
          timestampSeconds: Math.floor(now.getTime() / 1000),
          body,
          secret,
          previousSecret: overlap ? openSecret(delivery.previous_secret_ciphertext!) : null,
          test: delivery.test,
          apiVersion: delivery.api_version,
        });
        const result = await sendWebhook({
          url: delivery.target_url,
          headers,
          body,
          timeoutMs,
          allowPrivate,
          agent,
        });
        return {
          status: result.status,
          retryAfter: result.retryAfter,
          responseBody:
            result.responseBody === null
              ? null
              : `${result.responseBody}${result.truncated ? "\n…[truncated]" : ""}`,
          durationMs: result.durationMs,
          errorKind: result.errorKind,
          error: result.error,
        };
      },
      disablesAtOnce: (status) => DISABLING_STATUSES.has(status),
      failureReason,
      metrics,
    });
    // The worker's process also keeps the stores' event feeds numbered (events/feed-repo.ts).
    return {
      tick: worker.tick,
      settled: worker.settled,
      get inFlight() {
        return worker.inFlight;
      },
      /** Events of `storeId` committed: attempt their deliveries and number them now. */
      poke(storeId = "") {
        worker.poke();
        keeper.notify(storeId);
      },
      start() {
        worker.start();
        keeper.start();
      },
      async stop() {
        await keeper.stop();
        await worker.stop();
      },
    };
  }

  const log = createDeliveryLogRepo(db);
  const recovery = createRecoveryService({ subscriptions: subscriptionRepo, log, clock });
  const deliveryViews = createDeliveryViews({
    log,
    clock,
    listenIdleSeconds: config.LISTEN_SESSION_IDLE_SECONDS,
    admitRedelivery: limits.admitRedelivery,
  });
  const listen = createListenRepo(db);
  /**
   * How one resource's events (an order's page) reached apps, newest first, at most 100: the
   * subscriptions' deliveries and the listen sessions that streamed them.
   */
  async function deliveriesOf(storeId: string, resourceId: string) {
    const [rows, streamed] = await Promise.all([
      log.listForResource(storeId, resourceId, 100),
      log.streamedForResource(storeId, resourceId, 100),
    ]);
    const deliveries = rows.map((r) => ({
      id: r.id,
      via: WebhookChannel.subscription,
      eventName: r.event_name,
      app: { clientId: r.client_id, name: r.app_name },
      status: r.status,
      attempts: r.attempts,
      lastStatusCode: r.last_status_code,
      nextAttemptAt: r.status === DeliveryStatus.pending ? r.next_attempt_at.toISOString() : null,
      createdAt: r.created_at.toISOString(),
      completedAt: r.completed_at ? r.completed_at.toISOString() : null,
    }));
    const streams = streamed.map((r) => ({
      id: listenDeliveryId(r.session_id, r.event_id),
      via: WebhookChannel.listen,
      eventName: r.topic,
      app: { clientId: r.client_id, name: r.app_name },
      listenSessionId: r.session_id,
      createdAt: r.created_at.toISOString(),
    }));
    return [...deliveries, ...streams].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, 100);
  }

  return {
    subscriptions,
    recovery,
    deliveries,
    log,
    deliveryViews,
    listen,
    /** The Admin API's webhook routes besides subscriptions: deliveries, the listen stream, test events. */
    routes: [
      adminDeliveryRoutes(deliveryViews),
      listenRoutes({
        db,
        config,
        repo: listen,
        feed: deps.feed.repo,
        sequencer: deps.feed.sequencer,
        clock,
        secretBox,
        recordEvent: deps.recordEvent,
        testEvents: createTestEventRepo(db),
        authenticate: deps.authenticate,
        subscribeEvents: deps.subscribeEvents,
        admitTestEvent: limits.admitTestEvent,
        events: deps.events,
      }),
    ],
    deliveriesOf,
    metrics,
    retention,
    onUninstall,
    createWorker,
  };
}
export type WebhooksModule = ReturnType<typeof createWebhooksModule>;
