import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { sql } from "kysely";
import pino, { type Logger } from "pino";
import { Gauge } from "prom-client";
import type { Config } from "./config.ts";
import { ActorKind } from "./contracts/index.ts";
import type { DatabaseHandle, Db } from "./db/client.ts";
import { type Clock, systemClock } from "./lib/clock.ts";
import type { FeatureRoutes } from "./lib/http/feature-routes.ts";
import { createMetrics } from "./lib/metrics.ts";
import { createCredentialGuard, createRateLimiter } from "./lib/rate-limit/limiters.ts";
import { createSharedWindowStore, type RedisStatus } from "./lib/rate-limit/redis-window-store.ts";
import { createMemoryWindowStore, type SlidingWindowStore } from "./lib/rate-limit/sliding-window.ts";
import { createSecretBox, parseSecretsKey } from "./lib/secret-box.ts";
import { deriveKey } from "./lib/secrets-key.ts";
import { createAccountLinksRepo } from "./modules/accounts/account-links-repo.ts";
import { createAccountLinkService } from "./modules/accounts/account-links-service.ts";
import { createAccountRepo } from "./modules/accounts/accounts-repo.ts";
import { accountRoutes } from "./modules/accounts/accounts-routes.ts";
import { createAccountService } from "./modules/accounts/accounts-service.ts";
import { createDeviceCookies } from "./modules/accounts/device-cookie.ts";
import { argon2idPasswords, type PasswordHashing } from "./modules/accounts/password.ts";
import { createSessionGuard } from "./modules/accounts/session-auth.ts";
import { createApiKeyRepo } from "./modules/api-keys/api-keys-repo.ts";
import { apiKeyRoutes } from "./modules/api-keys/api-keys-routes.ts";
import { createApiKeyService } from "./modules/api-keys/api-keys-service.ts";
import { createAppListingRepo } from "./modules/app-listings/app-listings-repo.ts";
import { appListingRoutes } from "./modules/app-listings/app-listings-routes.ts";
import { createAppListingService } from "./modules/app-listings/app-listings-service.ts";
import { createAppMetadataRepo } from "./modules/app-metadata/app-metadata-repo.ts";
import { appDataRoutes } from "./modules/app-metadata/app-metadata-routes.ts";
import { createAppRepo } from "./modules/apps/apps-repo.ts";
import { appRoutes } from "./modules/apps/apps-routes.ts";
import { createAppService } from "./modules/apps/apps-service.ts";
import { collectionRoutes } from "./modules/collections/collections-routes.ts";
import { createCollectionService } from "./modules/collections/collections-service.ts";
import { createCustomerRepo } from "./modules/customers/customers-repo.ts";
import { customerRoutes } from "./modules/customers/customers-routes.ts";
import { createCustomerService } from "./modules/customers/customers-service.ts";
import { createDiscountRepo } from "./modules/discounts/discounts-repo.ts";
import { discountRoutes } from "./modules/discounts/discounts-routes.ts";
import { createDiscountService } from "./modules/discounts/discounts-service.ts";
import { createEventRecorder, type RecordEvent } from "./modules/events/events-repo.ts";
import { eventRoutes } from "./modules/events/events-routes.ts";
import { createFeedRepo, createFeedSequencer } from "./modules/events/feed-repo.ts";
import { createExportSlotRepo } from "./modules/exports/exports-repo.ts";
import { exportRoutes } from "./modules/exports/exports-routes.ts";
import { createExportService } from "./modules/exports/exports-service.ts";
import { createIdempotencyRepo } from "./modules/idempotency/idempotency-repo.ts";
import { createIdempotencyService } from "./modules/idempotency/idempotency-service.ts";
import { createImportRepo } from "./modules/imports/imports-repo.ts";
import { importRoutes } from "./modules/imports/imports-routes.ts";
import { createImportService } from "./modules/imports/imports-service.ts";
import { createImportWorker } from "./modules/imports/imports-worker.ts";
import { createInstallationRepo } from "./modules/installations/installations-repo.ts";
import { installationRoutes } from "./modules/installations/installations-routes.ts";
import {
  createInstallationService,
  type UninstallHook,
} from "./modules/installations/installations-service.ts";
import { createInventoryRepo } from "./modules/inventory/inventory-repo.ts";
import { inventoryRoutes } from "./modules/inventory/inventory-routes.ts";
import { createInventoryService } from "./modules/inventory/inventory-service.ts";
import { createLocationRepo } from "./modules/inventory/locations-repo.ts";
import { createLocationService } from "./modules/inventory/locations-service.ts";
import { createMailModule } from "./modules/mail/mail-module.ts";
import { createAccessCache } from "./modules/oauth/access-cache.ts";
import { consentRoutes } from "./modules/oauth/consent-routes.ts";
import { createConsentService } from "./modules/oauth/consent-service.ts";
import { createOAuthRepo } from "./modules/oauth/oauth-repo.ts";
import { tokenRoutes } from "./modules/oauth/oauth-routes.ts";
import { type AccessContext, createTokenService } from "./modules/oauth/token-service.ts";
import { createOrderEditRepo } from "./modules/order-edits/order-edits-repo.ts";
import { orderEditRoutes } from "./modules/order-edits/order-edits-routes.ts";
import { createOrderEditService } from "./modules/order-edits/order-edits-service.ts";
import { createOrderLines } from "./modules/orders/order-lines.ts";
import { createOrderErasure } from "./modules/orders/orders-erasure.ts";
import { createOrderRepo } from "./modules/orders/orders-repo.ts";
import { orderRoutes } from "./modules/orders/orders-routes.ts";
import { createOrderService } from "./modules/orders/orders-service.ts";
import { createOverviewRepo } from "./modules/overview/overview-repo.ts";
import { overviewRoutes } from "./modules/overview/overview-routes.ts";
import { createOverviewService } from "./modules/overview/overview-service.ts";
import { createErasureRepo } from "./modules/privacy/erasure-repo.ts";
import { createPrivacyRepo } from "./modules/privacy/privacy-repo.ts";
import { privacyRoutes } from "./modules/privacy/privacy-routes.ts";
import { createPrivacyService } from "./modules/privacy/privacy-service.ts";
import { probeRoutes } from "./modules/probes/probes-routes.ts";
import { createImageFetcher } from "./modules/product-images/image-fetch.ts";
import { imageObjectStoreFrom } from "./modules/product-images/image-storage.ts";
import { createProductImageRepo } from "./modules/product-images/product-images-repo.ts";
import { productImageRoutes } from "./modules/product-images/product-images-routes.ts";
import {
  createImageViews,
  createProductImageService,
} from "./modules/product-images/product-images-service.ts";
import { createProductRepo } from "./modules/products/products-repo.ts";
import { productRoutes } from "./modules/products/products-routes.ts";
import { createProductService, type ProductService } from "./modules/products/products-service.ts";
import { createRefundRepo } from "./modules/refunds/refunds-repo.ts";
import { refundRoutes } from "./modules/refunds/refunds-routes.ts";
import { createRefundService } from "./modules/refunds/refunds-service.ts";
import { returnRoutes } from "./modules/returns/returns-routes.ts";
import { createReturnService } from "./modules/returns/returns-service.ts";
import { createStaffRepo } from "./modules/staff/staff-repo.ts";
import { staffRoutes } from "./modules/staff/staff-routes.ts";
import { createStaffService } from "./modules/staff/staff-service.ts";
import { createStoreRepo } from "./modules/stores/stores-repo.ts";
import { storeRoutes } from "./modules/stores/stores-routes.ts";
import { createStoreService } from "./modules/stores/stores-service.ts";
import { createTaxService, taxRoutes } from "./modules/taxes/taxes.ts";
import { createApiVersions, type VersionSpec } from "./modules/versions/api-versions.ts";
import { createDeprecatedCallCounter } from "./modules/versions/deprecated-calls.ts";
import { createDeprecatedCallRepo } from "./modules/versions/deprecated-calls-repo.ts";
import { createEventVersions } from "./modules/versions/event-versions.ts";
import { createRenderer } from "./modules/versions/render.ts";
import { createSchemaVersions } from "./modules/versions/schema-versions.ts";
import { API_VERSIONS, CHANGELOG_PATH } from "./modules/versions/versions.ts";
import { versionRoutes } from "./modules/versions/versions-routes.ts";
import { appDeliveryRoutes } from "./modules/webhooks/deliveries-routes.ts";
import { listenForEvents } from "./modules/webhooks/delivery/notifications.ts";
import { assertSafeTargetUrl } from "./modules/webhooks/delivery/ssrf.ts";
import { subscriptionRoutes } from "./modules/webhooks/subscriptions-routes.ts";
import { createWebhooksModule } from "./modules/webhooks/webhooks-module.ts";

/** How often the calls counted at deprecated API versions are written. */
const DEPRECATED_CALLS_FLUSH_MS = 10_000;

/**
 * The one place where repositories and services are wired together. main.ts and the test harness
 * both build the application from this.
 */
export function createPlatform(input: {
  config: Config;
  database: DatabaseHandle;
  clock?: Clock;
  redis?: Redis | null;
  /** The secrets key (loadSecretsKey): seals webhook secrets and stored idempotent responses; device cookies are signed with a key derived from it. */
  secretsKey?: Buffer;
  /** Operational events (Redis lost and back). Default: silent. */
  logger?: Logger;
  /** How dashboard passwords are hashed and checked. Default: argon2id (password.ts). */
  passwords?: PasswordHashing;
  /** The API's versions (versions/versions.ts); a test may declare its own. */
  apiVersions?: readonly VersionSpec[];
}) {
  const { config, database } = input;
  const db = database.db;
  const clock = input.clock ?? systemClock;
  // Without a configured key (in-memory databases: tests, the OpenAPI generator) secrets live as
  // long as the process; main.ts always passes a persistent key.
  const secretsKey =
    input.secretsKey ?? (config.SECRETS_KEY ? parseSecretsKey(config.SECRETS_KEY) : randomBytes(32));
  const redis = input.redis ?? null;
  /** The API's dated versions, and how an older one is served (modules/versions). */
  const declaredVersions = input.apiVersions ?? API_VERSIONS;
  const versionParts = {
    declared: declaredVersions,
    registry: createApiVersions(declaredVersions),
    renderer: createRenderer(),
    schemas: createSchemaVersions(),
    changelogUrl: `${config.PUBLIC_BASE_URL}${CHANGELOG_PATH}`,
  };
  const deprecatedCallRepo = createDeprecatedCallRepo(db);
  const deprecatedCalls = createDeprecatedCallCounter({
    write: (calls) => deprecatedCallRepo.add(calls),
    onError: (error) =>
      input.logger?.warn(
        { err: error },
        "could not record calls at deprecated API versions; kept for the next try",
      ),
  });
  // Counted in memory, written every few seconds and at close (never a write per request).
  const flushCalls = setInterval(() => void deprecatedCalls.flush(), DEPRECATED_CALLS_FLUSH_MS);
  flushCalls.unref();
  const versions = {
    ...versionParts,
    events: createEventVersions({
      versions: versionParts.registry,
      renderer: versionParts.renderer,
      schemas: versionParts.schemas,
    }),
    deprecatedCalls: {
      count: deprecatedCalls.count,
      /** An app's calls at deprecated versions over the last 30 days (this process's counted first). */
      async ofApp(appId: string) {
        await deprecatedCalls.flush();
        const since = new Date(clock.now().getTime() - 30 * 24 * 3600_000).toISOString().slice(0, 10);
        return deprecatedCallRepo.ofApp(appId, since);
      },
    },
  };
  // With Redis, limits and throttles are shared by every instance, and fall back to per-instance
  // memory while Redis does not answer: Redis accelerates, it is not a single point of failure.
  const sharedCounters = redis
    ? createSharedWindowStore(redis, { clock, logger: input.logger ?? pino({ level: "silent" }) })
    : null;
  const windowStore: SlidingWindowStore = sharedCounters?.store ?? createMemoryWindowStore();

  /**
   * E-mail (modules/mail): services take `mail.mailer` (send({ to, subject, text, html }, tx?));
   * messages wait in the mail outbox until the worker sends them.
   */
  const mail = createMailModule({
    db,
    config,
    clock,
    logger: input.logger,
    outboxKey: deriveKey(secretsKey, "mail-outbox").toString("base64url"),
  });

  const recordEvent = createEventRecorder({ clock });
  /** Each store's event feed, numbered after commit (events/feed-repo.ts). */
  const feedRepo = createFeedRepo(db);
  const feed = { repo: feedRepo, sequencer: createFeedSequencer({ repo: feedRepo }) };
  /** One Prometheus registry for every module; main.ts serves it on the metrics listener. */
  const metrics = createMetrics();
  // Product images (issue 32): their rows in the database, their files there too or in S3_BUCKET.
  const imageRepo = createProductImageRepo(db);
  const imageObjects = imageObjectStoreFrom(config);
  const imageViews = createImageViews({
    repo: imageRepo,
    objects: imageObjects,
    baseUrl: config.PUBLIC_BASE_URL,
    log: (error) => input.logger?.warn({ err: error }, "could not delete a deleted image's objects"),
  });
  const imageFetcher = createImageFetcher({
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    maxBytes: config.IMAGE_UPLOAD_MAX_BYTES,
    timeoutMs: config.IMAGE_FETCH_TIMEOUT_MS,
  });
  const repos = {
    accounts: createAccountRepo(db),
    stores: createStoreRepo(db),
    products: createProductRepo(db),
    customers: createCustomerRepo(db),
    orders: createOrderRepo(db),
    inventory: createInventoryRepo(db),
    locations: createLocationRepo(db),
  };
  const passwords = input.passwords ?? argon2idPasswords;
  /** "Forgot password" and the confirmation of a new sign-in address: links sent by e-mail. */
  const accountLinks = createAccountLinkService({
    db,
    accounts: repos.accounts,
    links: createAccountLinksRepo(db),
    mailer: mail.mailer,
    passwords,
    clock,
    baseUrl: config.PUBLIC_BASE_URL,
    limits: {
      resetPerAddress: createRateLimiter({ store: windowStore, clock }, 3, 3_600_000),
      resetPerIp: createRateLimiter({ store: windowStore, clock }, 20, 3_600_000),
      emailChangePerAccount: createRateLimiter({ store: windowStore, clock }, 5, 3_600_000),
    },
    guard: createCredentialGuard(
      { store: windowStore, clock },
      {
        maxFailures: config.CREDENTIAL_MAX_FAILURES,
        windowMs: config.CREDENTIAL_FAILURE_WINDOW_SECONDS * 1000,
        secret: "random",
      },
    ),
    onError: (error) => input.logger?.error({ err: error }, "a password reset request failed"),
  });
  const accounts = createAccountService({
    repo: repos.accounts,
    emailChanges: accountLinks,
    clock,
    sessionTtlSeconds: config.SESSION_TTL_SECONDS,
    guard: createCredentialGuard(
      { store: windowStore, clock },
      {
        maxFailures: config.LOGIN_MAX_FAILURES,
        windowMs: config.LOGIN_FAILURE_WINDOW_SECONDS * 1000,
        secret: "password",
      },
    ),
    devices: createDeviceCookies({ key: deriveKey(secretsKey, "device-cookie"), clock }),
    passwords,
  });
  // The privacy webhooks (issue 21): customer.redact from the customer service, shop.redact from
  // the uninstall hook and the worker's sweep, data requests from the dashboard.
  const privacyOn = (on: Clock, record: RecordEvent, onDb: Db = db) =>
    createPrivacyService({
      db: onDb,
      repo: createPrivacyRepo(onDb, { events: versions.events }),
      recordEvent: record,
      clock: on,
      shopRedactDelaySeconds: config.SHOP_REDACT_DELAY_SECONDS,
      erasure: createErasureRepo(),
      idempotency: createIdempotencyRepo(onDb),
      erasureFollowUpMs: 2 * config.WEBHOOK_LEASE_MS + 60_000,
    });
  const privacyRepo = createPrivacyRepo(db, { events: versions.events });
  const privacy = privacyOn(clock, recordEvent);
  /** A store's commerce services (stores, products, customers, orders), their times from `on`. */
  const commerce = (on: Clock, record: RecordEvent, db: Db = database.db) => {
    const customers = createCustomerService({
      db,
      repo: repos.customers,
      recordEvent: record,
      clock: on,
      orders: createOrderErasure(repos.orders),
      // Stateless: the customers service's own, on the same clock, recorder and database.
      privacy: privacyOn(on, record, db),
    });
    // Stock and products call each other: the inventory refreshes a product's figures and has it
    // announce a stock change; a product's create and edit write its first stock.
    let products: ProductService | undefined;
    const inventory = createInventoryService({
      db,
      repo: repos.inventory,
      locations: repos.locations,
      recordEvent: record,
      clock: on,
      productStockChanged: (tx, store, productId) => products!.stockChanged(tx, store, productId),
    });
    products = createProductService({
      db,
      repo: repos.products,
      stores: repos.stores,
      locations: repos.locations,
      inventory,
      recordEvent: record,
      images: imageViews,
      clock: on,
    });
    const collections = createCollectionService({
      db,
      products: repos.products,
      images: imageViews,
      recordEvent: record,
      clock: on,
    });
    const discounts = createDiscountService({
      db,
      repo: createDiscountRepo(db),
      collections,
      recordEvent: record,
      clock: on,
    });
    const taxes = createTaxService({ db, clock: on });
    const refunds = createRefundService({
      db,
      repo: createRefundRepo(db),
      orders: repos.orders,
      catalogue: repos.inventory,
      locations: repos.locations,
      inventory,
      recordEvent: record,
      clock: on,
    });
    const returns = createReturnService({
      db,
      orders: repos.orders,
      refunds,
      catalogue: repos.inventory,
      locations: repos.locations,
      inventory,
      recordEvent: record,
      clock: on,
    });
    const orderEdits = createOrderEditService({
      db,
      repo: createOrderEditRepo(db),
      orders: repos.orders,
      lines: createOrderLines({
        catalogue: { ...repos.inventory, variantsOf: repos.products.variantsOf },
        locations: repos.locations,
      }),
      customers: repos.customers,
      stores: repos.stores,
      inventory,
      discounts,
      taxes,
      recordEvent: record,
      clock: on,
    });
    return {
      stores: createStoreService({
        db,
        repo: repos.stores,
        recordEvent: record,
        clock: on,
        firstLocation: (storeId, now, tx) => repos.locations.first(storeId, now, tx),
      }),
      products,
      inventory,
      collections,
      discounts,
      taxes,
      refunds,
      returns,
      orderEdits,
      locations: createLocationService({ db, repo: repos.locations, recordEvent: record, clock: on }),
      customers,
      orders: createOrderService({
        db,
        repo: repos.orders,
        customers: repos.customers,
        customerService: customers,
        stores: repos.stores,
        catalogue: { ...repos.inventory, variantsOf: repos.products.variantsOf },
        locations: repos.locations,
        inventory,
        discounts,
        taxes,
        recordEvent: record,
        clock: on,
      }),
    };
  };
  const domain = { accounts, ...commerce(clock, recordEvent) };
  const services = {
    ...domain,
    overview: createOverviewService({ repo: createOverviewRepo(db), orders: domain.orders, clock }),
  };

  // App integration: apps, installations, the token rules and consent.
  const appRepo = createAppRepo(db);
  const credentialGuard = createCredentialGuard(
    { store: windowStore, clock },
    {
      maxFailures: config.CREDENTIAL_MAX_FAILURES,
      windowMs: config.CREDENTIAL_FAILURE_WINDOW_SECONDS * 1000,
      secret: "random",
    },
  );
  const secretBox = createSecretBox(secretsKey);
  const apps = createAppService({
    repo: appRepo,
    clock,
    guard: credentialGuard,
    apiVersions: versions.registry,
    privacy: {
      assertSafeTarget: (url) =>
        assertSafeTargetUrl(url, {
          allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
          field: "privacyWebhookUrl",
        }),
      sealSecret: (secret) => secretBox.seal(secret),
      syncChannels: (appId, now) => privacyRepo.syncChannels(appId, now),
      secretOverlapSeconds: config.WEBHOOK_SECRET_OVERLAP_SECONDS,
    },
  });
  const appListings = createAppListingService({ repo: createAppListingRepo(db), apps, clock });
  // One per process, shared by the token rules (which verify and revoke) and uninstall.
  const accessCache = createAccessCache<AccessContext>({ ttlMs: config.ACCESS_TOKEN_CACHE_MS });
  const tokens = createTokenService({
    db,
    cache: accessCache,
    repo: createOAuthRepo(db),
    clients: apps,
    clock,
    ttl: {
      accessSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
      refreshSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
      codeSeconds: config.AUTH_CODE_TTL_SECONDS,
      replaySeconds: config.REFRESH_REPLAY_SECONDS,
    },
  });
  const webhooks = createWebhooksModule({
    db,
    config,
    clock,
    secretBox,
    recordEvent,
    shopRedactions: privacy,
    erasures: privacy,
    apiVersions: versions.registry,
    events: versions.events,
    firstApiVersion: versions.declared[0]!.version,
    registry: metrics.registry,
    feed,
    subscribeEvents: (onEvent) => listenForEvents(database, onEvent, () => {}),
    authenticate: (token) => tokens.authenticate(token),
    windowStore,
  });
  for (const metric of sharedCounters?.metrics ?? []) metrics.registry.registerMetric(metric);
  const uninstallHooks: UninstallHook[] = [webhooks.onUninstall, privacy.onUninstall];
  const developer = {
    keys: createApiKeyService({
      db,
      repo: createApiKeyRepo(db),
      clock,
      guard: credentialGuard,
      apiVersions: versions.registry,
    }),
    /** Developer API quota: RATE_LIMIT_PER_MINUTE accepted requests per key pair in any 60 s. */
    limiter: createRateLimiter({ store: windowStore, clock }, config.RATE_LIMIT_PER_MINUTE, 60_000),
  };
  const installations = createInstallationService({
    db,
    repo: createInstallationRepo(db),
    apps: appRepo,
    clock,
    accessCache,
    onUninstall: uninstallHooks,
  });
  const integration = {
    apps,
    installations,
    tokens,
    consent: createConsentService({
      db,
      apps: appRepo,
      installations,
      tokens,
      issuer: config.PUBLIC_BASE_URL,
    }),
    /** Admin API quota: RATE_LIMIT_PER_MINUTE accepted requests per installation in any 60 s. */
    adminLimiter: createRateLimiter({ store: windowStore, clock }, config.RATE_LIMIT_PER_MINUTE, 60_000),
    /** Hooks run inside the uninstall transaction (the webhook engine adds `app/uninstalled`). */
    uninstallHooks,
  };

  /** An app in an order's history: its name as it is when it acts. */
  const appActor = async (appId: string) => ({
    kind: ActorKind.app,
    id: appId,
    name: (await appRepo.findById(appId))?.name ?? "An app",
  });
  /** Bulk exports (modules/exports): slots shared by every process, in the database. */
  const exports = createExportService({
    slots: createExportSlotRepo(db),
    clock,
    limits: {
      perHolder: config.EXPORT_MAX_CONCURRENT,
      perStore: config.EXPORT_MAX_PER_STORE,
      perAccount: config.EXPORT_MAX_PER_ACCOUNT,
      perProcess: config.EXPORT_MAX_PER_PROCESS,
      batchRows: config.EXPORT_BATCH_ROWS,
      batchChars: config.EXPORT_BATCH_CHARS,
      idleMs: config.EXPORT_IDLE_SECONDS * 1000,
    },
    onReleaseError: (error) =>
      input.logger?.warn({ err: error }, "could not give an export slot back; its lease lapses in a minute"),
  });
  new Gauge({
    name: "merchant_exports_running",
    help: "Bulk exports this process is streaming (EXPORT_MAX_PER_PROCESS bounds it).",
    registers: [metrics.registry],
    collect() {
      this.set(exports.running());
    },
  });
  /** CSV imports (modules/imports): checked at upload, run by the worker through the commerce services. */
  let importWorker: ReturnType<typeof createImportWorker> | null = null;
  const imports = createImportService({
    db,
    repo: createImportRepo(db),
    stores: repos.stores,
    // The run's batch transaction as the services' database: the items and the progress commit together.
    services: (onDb) => commerce(clock, recordEvent, onDb),
    clock,
    onQueued: () => importWorker?.poke(),
  });
  const requireSession = createSessionGuard(accounts);
  const staff = createStaffService({
    db,
    repo: createStaffRepo(db),
    clock,
    endSessions: (accountId, tx) => repos.accounts.deleteSessionsOf(accountId, null, tx),
    acceptUrl: (token) => `${config.PUBLIC_BASE_URL}/invitation#token=${token}`,
    // Queued in the invitation's transaction: it leaves only if the invitation commits.
    send: async (message, tx) => {
      await mail.mailer.send(message, tx);
    },
  });
  /**
   * Readiness: throws unless the database answers. Redis is reported, not required: while it is
   * down the service still serves, with per-instance limits. Answers at once while degraded.
   */
  const ping = async (): Promise<{ redis: RedisStatus }> => {
    await sql`SELECT 1`.execute(db);
    return { redis: sharedCounters ? await sharedCounters.status() : "not_configured" };
  };
  const issuer = config.PUBLIC_BASE_URL;
  const productImages = createProductImageService({
    db,
    repo: imageRepo,
    products: repos.products,
    changed: (tx, store, productId) => services.products.imagesChanged(tx, store, productId),
    fetcher: imageFetcher,
    objects: imageObjects,
    limits: {
      imagesPerStore: config.IMAGE_MAX_PER_STORE,
      bytesPerStore: config.IMAGE_MAX_BYTES_PER_STORE,
      uploadBytes: config.IMAGE_UPLOAD_MAX_BYTES,
    },
    baseUrl: config.PUBLIC_BASE_URL,
    clock,
  });
  /**
   * The service's route table: every route of every feature, per API family (FeatureRoutes). app.ts
   * installs each family's scope and guard and registers these into it, in this order. A new
   * resource is one entry here, beside the line that builds its service.
   */
  const routes: FeatureRoutes[] = [
    probeRoutes(ping),
    versionRoutes({
      versions: versions.registry,
      declared: versions.declared,
      clock,
      changelogUrl: versions.changelogUrl,
    }),
    tokenRoutes({ apps, tokens, issuer }),
    consentRoutes({ consent: integration.consent, stores: services.stores, requireSession, issuer }),
    accountRoutes({
      accounts,
      links: accountLinks,
      requireSession,
      secureCookies: config.PUBLIC_BASE_URL.startsWith("https://"),
    }),
    mail.routes(config.PUBLIC_BASE_URL.startsWith("https://")),
    storeRoutes(services.stores, requireSession),
    staffRoutes(staff, requireSession),
    appRoutes({
      apps,
      uninstallEverywhere: installations.uninstallEverywhere,
      requireSession,
      deprecatedCalls: versions.deprecatedCalls.ofApp,
    }),
    appListingRoutes({ listings: appListings, requireSession }),
    appDeliveryRoutes({
      views: webhooks.deliveryViews,
      recovery: webhooks.recovery,
      apps,
      requireSession,
    }),
    productRoutes(services.products),
    productImageRoutes(productImages, { uploadBytes: config.IMAGE_UPLOAD_MAX_BYTES }),
    inventoryRoutes({ inventory: services.inventory, locations: services.locations }),
    collectionRoutes(services.collections),
    discountRoutes(services.discounts),
    taxRoutes(services.taxes),
    customerRoutes(services.customers),
    privacyRoutes(privacy),
    orderRoutes(services.orders, webhooks.deliveriesOf, appActor),
    refundRoutes(services.refunds, appActor),
    orderEditRoutes(services.orderEdits, appActor),
    returnRoutes(services.returns, appActor),
    overviewRoutes(services.overview),
    appDataRoutes(createAppMetadataRepo(db)),
    installationRoutes(installations),
    apiKeyRoutes(developer.keys),
    subscriptionRoutes(webhooks.subscriptions, webhooks.recovery),
    ...webhooks.routes,
    eventRoutes({ feed: feed.repo, sequencer: feed.sequencer, retentionDays: config.EVENT_RETENTION_DAYS }),
    importRoutes(imports),
    exportRoutes({
      exports,
      products: services.products,
      orders: services.orders,
      customers: services.customers,
      inventory: services.inventory,
      renderAt: (apiVersion, schema, record) =>
        apiVersion === null
          ? record
          : versions.renderer.render(schema, record, versions.registry.changesAfter(apiVersion)),
      orderBatchRows: Math.max(100, Math.floor(config.EXPORT_BATCH_ROWS / 2)),
    }),
  ];

  return {
    config,
    database,
    versions,
    routes,
    db,
    clock,
    redis,
    repos,
    services,
    /** Password resets and e-mail confirmations (modules/accounts/account-links-service.ts). */
    accountLinks,
    /**
     * The same commerce services on another clock (events recorded at its times too), and on
     * another database handle if given (transactionAsDatabase: a batch): the demo seed writes 90
     * days of history through them, with the rules and events of today's.
     */
    commerceAt: (on: Clock, db?: Db) => commerce(on, createEventRecorder({ clock: on }), db),
    integration,
    webhooks,
    /** E-mail: `mail.mailer` for services, `mail.worker` drains the outbox (main.ts starts it). */
    mail,
    /** The privacy webhooks (customer.redact, customer.data_request, shop.redact). */
    privacy,
    developer,
    exports,
    imports,
    /** The worker's loop of CSV imports (main.ts starts it where the worker runs). */
    createImportWorker(logger: Pick<Logger, "warn">) {
      importWorker = createImportWorker({ imports, logger });
      return importWorker;
    },
    windowStore,
    /** Idempotency keys of create requests (the HTTP side is lib/http/idempotency.ts). */
    idempotency: createIdempotencyService({ repo: createIdempotencyRepo(db), clock, secretsKey }),
    sharedCounters,
    metrics,
    requireSession,
    staff,
    ping,
    productImages,
    async close() {
      clearInterval(flushCalls);
      await accountLinks.idle();
      await mail.worker.stop();
      await imageFetcher.close();
      await deprecatedCalls.flush();
      sharedCounters?.close();
      if (redis) redis.disconnect();
      await database.close();
    },
  };
}
export type Platform = ReturnType<typeof createPlatform>;

/**
 * The Redis client of an instance. Every call fails fast instead of waiting for Redis (short
 * time-out, no offline queue, no retry), so the window store answers from memory at once; the
 * connection itself is retried forever in the background.
 */
export function connectRedis(
  url: string,
  options: { commandTimeoutMs: number; logger?: Pick<Logger, "debug"> },
): Redis {
  const redis = new Redis(url, {
    commandTimeout: options.commandTimeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A server that swallows connection attempts is tried again after 2 s, not after 10.
    connectTimeout: 2000,
    // Reconnect forever: 100 ms, 200 ms, ... capped at 2 s between attempts.
    retryStrategy: (attempt) => Math.min(100 * 2 ** Math.min(attempt - 1, 5), 2000),
  });
  // Without a listener an 'error' event would be thrown. One arrives per failed reconnect, so they
  // go to debug: the window store logs the outage itself, once.
  redis.on("error", (err) => options.logger?.debug({ err }, "Redis connection error"));
  return redis;
}
