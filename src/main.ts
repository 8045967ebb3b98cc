import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { collectDefaultMetrics } from "prom-client";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { openDatabase } from "./db/client.ts";
import { type DataDirLock, lockDataDir } from "./db/data-dir-lock.ts";
import { startEmbeddedMaintenance } from "./db/maintenance.ts";
import { migrate } from "./db/migrate.ts";
import { waitForDatabase } from "./db/wait-for-database.ts";
import { createLogger } from "./lib/logger.ts";
import { serveMetrics } from "./lib/metrics.ts";
import { assertPortFree, StartupError } from "./lib/preflight.ts";
import { loadSecretsKey } from "./lib/secret-box.ts";
import { demoCredentialsFile, seedDemo } from "./modules/demo/demo-seed.ts";
import { listenForEvents } from "./modules/webhooks/delivery/notifications.ts";
import { connectRedis, createPlatform } from "./platform.ts";

/** How long SIGTERM/SIGINT waits for in-flight requests and deliveries before exiting anyway. */
const DRAIN_LIMIT_MS = 25_000;

/**
 * Runs before anything opens the database, so a start that cannot succeed fails before it migrates
 * or seeds. First the embedded data directory is taken for this process (a second start of the
 * same service is told which process has it); then what can be checked is checked: the ports are
 * free, the secrets key is valid.
 */
async function prepare(
  config: Config,
): Promise<{ dataDir: string; lock: DataDirLock | null; secretsKey: Buffer }> {
  const dataDir = resolve(config.DATA_DIR);
  const lock = config.DATABASE_URL ? null : lockDataDir(dataDir);
  try {
    const api = config.RUN_MODE !== "worker";
    if (api && config.METRICS_PORT !== 0 && config.METRICS_PORT === config.PORT)
      throw new StartupError(`METRICS_PORT ${config.METRICS_PORT} must differ from PORT.`);
    if (api) await assertPortFree("PORT", config.PORT, config.HOST);
    if (config.METRICS_PORT !== 0)
      await assertPortFree("METRICS_PORT", config.METRICS_PORT, config.METRICS_HOST);
    let secretsKey: Buffer;
    try {
      secretsKey = loadSecretsKey({
        secretsKey: config.SECRETS_KEY,
        dataDir: config.DATABASE_URL ? undefined : dataDir,
      });
    } catch (error) {
      // SECRETS_KEY missing or malformed, or the key file standing in for it: a setting to fix.
      throw new ConfigError((error as Error).message);
    }
    return { dataDir, lock, secretsKey };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

async function start(config: Config) {
  const logger = await createLogger({ level: config.LOG_LEVEL });
  const { dataDir, lock, secretsKey } = await prepare(config);
  if (!config.DATABASE_URL && !existsSync(join(dataDir, "pgdata", "PG_VERSION")))
    logger.info(
      { dataDir },
      `First start: creating the embedded database in ${dataDir} (about 20 seconds, once)`,
    );
  const database = await openDatabase({
    url: config.DATABASE_URL,
    dataDir,
    schema: config.DATABASE_SCHEMA,
    poolSize: config.DATABASE_POOL_SIZE,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    embeddedSharedBuffersMb: config.EMBEDDED_SHARED_BUFFERS_MB,
  });
  // A server that is down or still starting is waited for (with back-off), not a reason to exit.
  const applied = await waitForDatabase(() => migrate(database), { logger });
  if (applied.length) logger.info({ applied }, `${applied.length} database migrations applied`);
  const stopMaintenance = startEmbeddedMaintenance(database, (error) =>
    logger.warn({ err: error }, "ANALYZE failed"),
  );
  const redis = config.REDIS_URL
    ? connectRedis(config.REDIS_URL, { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS, logger })
    : null;
  const platform = createPlatform({ config, database, redis, secretsKey, logger });

  let demo: Awaited<ReturnType<typeof seedDemo>> | null = null;
  if (config.DEMO_SEED && config.RUN_MODE !== "worker") {
    logger.info("Checking the demo store (made on the first start)");
    demo = await seedDemo(platform, {
      credentialsFile: config.DATABASE_URL ? undefined : demoCredentialsFile(dataDir),
    });
  }

  // A worker serves no HTTP: it skips building the app (compiling every route's schemas and
  // serializers took most of its start-up) and begins delivering at once.
  const app =
    config.RUN_MODE === "worker"
      ? null
      : await (await import("./app.ts")).buildApp(platform, { loggerInstance: logger });
  await app?.listen({ port: config.PORT, host: config.HOST });
  // The process's own figures beside the platform's (heap, RSS, event-loop delay, GC): what an
  // operator reads first when a process grows or stalls. Only where they are scraped.
  if (config.METRICS_PORT !== 0) collectDefaultMetrics({ register: platform.metrics.registry });
  const metrics =
    config.METRICS_PORT === 0
      ? null
      : await serveMetrics(platform.metrics.registry, {
          port: config.METRICS_PORT,
          host: config.METRICS_HOST,
          onError: (error) => logger.warn({ err: error }, "metrics scrape failed"),
        });

  let stopWorker = async () => {};
  if (config.RUN_MODE !== "api") {
    const worker = platform.webhooks.createWorker(app?.log ?? logger);
    const unlisten = await listenForEvents(database, worker.poke, (error) =>
      logger.warn({ err: error }, "event notifications interrupted; polling meanwhile"),
    );
    worker.start();
    platform.mail.worker.start();
    stopWorker = async () => {
      await unlisten();
      await worker.stop();
      await platform.mail.worker.stop();
    };
  }

  const base = config.PUBLIC_BASE_URL;
  logger.info(
    {
      mode: config.RUN_MODE,
      database: config.DATABASE_URL ? "postgresql" : `embedded (${dataDir})`,
      redis: Boolean(redis),
      metrics: metrics?.url ?? "off",
    },
    "merchant platform started",
  );
  if (platform.mail.transport === "smtp") {
    const smtp = new URL(config.SMTP_URL!);
    logger.info(
      { smtp: `${smtp.protocol}//${smtp.host}` },
      `E-mail:       sent through ${smtp.protocol}//${smtp.host}`,
    );
  } else {
    const outbox = platform.mail.outboxUrl(base);
    logger.info(
      { mail: "outbox", url: outbox },
      `E-mail:       not sent (no SMTP_URL); every message is kept in the mail outbox: ${outbox}`,
    );
  }
  // A guard that is off says so at every start: it is a development setting.
  if (config.WEBHOOK_ALLOW_PRIVATE_TARGETS)
    logger.warn(
      { setting: "WEBHOOK_ALLOW_PRIVATE_TARGETS" },
      "webhook targets on private addresses are allowed (and http on localhost): for development only, never in production",
    );
  if (config.RUN_MODE !== "worker") {
    // One record per line so both humans tailing the log and log pipelines read them.
    logger.info({ url: `${base}/` }, `Dashboard:    ${base}/`);
    logger.info({ url: `${base}/api/docs/ui` }, `API docs:     ${base}/api/docs/ui`);
    logger.info({ url: `${base}/api/docs/openapi.json` }, `OpenAPI JSON: ${base}/api/docs/openapi.json`);
    if (demo) {
      const password = demo.password ?? "(printed by the first start only)";
      logger.info(
        { email: demo.email, store: demo.storeSlug },
        `Demo login:   ${demo.email} / ${password} (store "${demo.storeSlug}")`,
      );
    }
  }

  // The demo store's catalogue, customers and 90 days of orders are written behind the running
  // service (20,000 statements: the first start does not wait for them); its pages fill in as
  // they land.
  if (demo?.history && app) {
    logger.info("demo store: writing its products, customers and 90 days of orders in the background");
    demo
      .history()
      .then(({ orders, seconds }) =>
        logger.info({ orders, seconds: Number(seconds.toFixed(1)) }, `demo store: ${orders} orders written`),
      )
      .catch((error) => logger.warn({ err: error }, "demo store: writing its orders failed"));
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: draining in-flight requests");
    const force = setTimeout(() => {
      logger.error(`shutdown took over ${DRAIN_LIMIT_MS / 1000} s; exiting`);
      process.exit(1);
    }, DRAIN_LIMIT_MS);
    force.unref();
    try {
      await app?.close();
      await metrics?.close();
      await stopWorker();
      stopMaintenance();
      await platform.close();
      lock?.release();
      logger.info("shut down cleanly");
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, "error during shutdown");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

try {
  await start(loadConfig());
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(78);
  }
  if (error instanceof StartupError) {
    console.error(error.message);
    process.exit(1);
  }
  console.error(error);
  process.exit(1);
}
