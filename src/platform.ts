import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { sql } from "kysely";
import type { Config } from "./config.ts";
import type { DatabaseHandle } from "./db/client.ts";
import { type Clock, systemClock } from "./lib/clock.ts";
import { createMetrics } from "./lib/metrics.ts";
import { createCredentialGuard, createRateLimiter } from "./lib/rate-limit/limiters.ts";
import { createRedisWindowStore } from "./lib/rate-limit/redis-window-store.ts";
import { createMemoryWindowStore, type SlidingWindowStore } from "./lib/rate-limit/sliding-window.ts";
import { createSecretBox, parseSecretsKey } from "./lib/secret-box.ts";
import { createAccountRepo } from "./modules/accounts/accounts-repo.ts";
import { createAccountService } from "./modules/accounts/accounts-service.ts";
import { createSessionGuard } from "./modules/accounts/session-auth.ts";
import { createApiKeyRepo } from "./modules/api-keys/api-keys-repo.ts";
import { createApiKeyService } from "./modules/api-keys/api-keys-service.ts";
import { createAppRepo } from "./modules/apps/apps-repo.ts";
import { createAppService } from "./modules/apps/apps-service.ts";
import { createCustomerRepo } from "./modules/customers/customers-repo.ts";
import { createCustomerService } from "./modules/customers/customers-service.ts";
import { createEventRecorder } from "./modules/events/events-repo.ts";
import { createInstallationRepo } from "./modules/installations/installations-repo.ts";
import {
  createInstallationService,
  type UninstallHook,
} from "./modules/installations/installations-service.ts";
import { createConsentService } from "./modules/oauth/consent-service.ts";
import { createOAuthRepo } from "./modules/oauth/oauth-repo.ts";
import { createTokenService } from "./modules/oauth/token-service.ts";
import { createOrderRepo } from "./modules/orders/orders-repo.ts";
import { createOrderService } from "./modules/orders/orders-service.ts";
import { createProductRepo } from "./modules/products/products-repo.ts";
import { createProductService } from "./modules/products/products-service.ts";
import { createStoreRepo } from "./modules/stores/stores-repo.ts";
import { createStoreService } from "./modules/stores/stores-service.ts";
import { createWebhooksModule } from "./modules/webhooks/webhooks-module.ts";

/**
 * The one place where repositories and services are wired together. main.ts and the test harness
 * both build the application from this.
 */
export function createPlatform(input: {
  config: Config;
  database: DatabaseHandle;
  clock?: Clock;
  redis?: Redis | null;
  /** The AES-256 key for webhook secrets (loadSecretsKey). */
  secretsKey?: Buffer;
}) {
  const { config, database } = input;
  const db = database.db;
  const clock = input.clock ?? systemClock;
  const redis = input.redis ?? null;
  const windowStore: SlidingWindowStore = redis ? createRedisWindowStore(redis) : createMemoryWindowStore();

  const recordEvent = createEventRecorder({ clock });
  /** One Prometheus registry for every module; main.ts serves it on the metrics listener. */
  const metrics = createMetrics();
  const repos = {
    accounts: createAccountRepo(db),
    stores: createStoreRepo(db),
    products: createProductRepo(db),
    customers: createCustomerRepo(db),
    orders: createOrderRepo(db),
  };
  const accounts = createAccountService({
    repo: repos.accounts,
    clock,
    sessionTtlSeconds: config.SESSION_TTL_SECONDS,
    guard: createCredentialGuard(
      { store: windowStore, clock },
      { maxFailures: config.LOGIN_MAX_FAILURES, windowMs: config.LOGIN_FAILURE_WINDOW_SECONDS * 1000 },
    ),
  });
  const services = {
    accounts,
    stores: createStoreService({ repo: repos.stores, clock }),
    products: createProductService({ db, repo: repos.products, recordEvent, clock }),
    customers: createCustomerService({ db, repo: repos.customers, recordEvent, clock }),
    orders: createOrderService({
      db,
      repo: repos.orders,
      customers: repos.customers,
      stores: repos.stores,
      recordEvent,
      clock,
    }),
  };

  // App integration: apps, installations, the token rules and consent.
  const appRepo = createAppRepo(db);
  const credentialGuard = createCredentialGuard(
    { store: windowStore, clock },
    {
      maxFailures: config.CREDENTIAL_MAX_FAILURES,
      windowMs: config.CREDENTIAL_FAILURE_WINDOW_SECONDS * 1000,
    },
  );
  const webhooks = createWebhooksModule({
    db,
    config,
    clock,
    // Without a configured key (in-memory databases: tests, the OpenAPI generator) secrets live as
    // long as the process; main.ts always passes a persistent key.
    secretBox: createSecretBox(
      input.secretsKey ?? (config.SECRETS_KEY ? parseSecretsKey(config.SECRETS_KEY) : randomBytes(32)),
    ),
    recordEvent,
    registry: metrics.registry,
  });
  const uninstallHooks: UninstallHook[] = [webhooks.onUninstall];
  const developer = {
    keys: createApiKeyService({ db, repo: createApiKeyRepo(db), clock, guard: credentialGuard }),
    /** Developer API quota: RATE_LIMIT_PER_MINUTE accepted requests per key pair in any 60 s. */
    limiter: createRateLimiter({ store: windowStore, clock }, config.RATE_LIMIT_PER_MINUTE, 60_000),
  };
  const tokens = createTokenService({
    db,
    repo: createOAuthRepo(db),
    clock,
    ttl: {
      accessSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
      refreshSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
      codeSeconds: config.AUTH_CODE_TTL_SECONDS,
      retrySeconds: 120,
    },
  });
  const installations = createInstallationService({
    db,
    repo: createInstallationRepo(db),
    apps: appRepo,
    clock,
    onUninstall: uninstallHooks,
  });
  const integration = {
    apps: createAppService({ repo: appRepo, clock, guard: credentialGuard }),
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

  return {
    config,
    database,
    db,
    clock,
    redis,
    repos,
    services,
    integration,
    webhooks,
    developer,
    windowStore,
    metrics,
    requireSession: createSessionGuard(accounts),
    /** Readiness: the database answers (and Redis, when configured). */
    async ping() {
      await sql`SELECT 1`.execute(db);
      if (redis) await redis.ping();
    },
    async close() {
      if (redis) redis.disconnect();
      await database.close();
    },
  };
}
export type Platform = ReturnType<typeof createPlatform>;

export function connectRedis(url: string): Redis {
  // Fail fast rather than queue commands forever while Redis is down: requests then answer 503.
  return new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
}
