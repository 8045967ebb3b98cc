import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import pino from "pino";
import { buildApp } from "./app.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { openDatabase } from "./db/client.ts";
import { startEmbeddedMaintenance } from "./db/maintenance.ts";
import { migrate } from "./db/migrate.ts";
import { waitForDatabase } from "./db/wait-for-database.ts";
import { loadSecretsKey } from "./lib/secret-box.ts";
import { demoCredentialsFile, seedDemo } from "./modules/demo/demo-seed.ts";
import { listenForEvents } from "./modules/webhooks/delivery/notifications.ts";
import { connectRedis, createPlatform } from "./platform.ts";

const LOG_REDACT = ["req.headers.authorization", "req.headers.cookie", 'req.headers["x-api-secret"]'];

async function start(config: Config) {
  const logger = pino({ level: config.LOG_LEVEL, redact: LOG_REDACT });
  const dataDir = resolve(config.DATA_DIR);
  if (!config.DATABASE_URL) mkdirSync(dataDir, { recursive: true });
  const database = await openDatabase({
    url: config.DATABASE_URL,
    dataDir,
    schema: config.DATABASE_SCHEMA,
    poolSize: config.DATABASE_POOL_SIZE,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
  });
  // A server that is down or still starting is waited for (with back-off), not a reason to exit.
  const applied = await waitForDatabase(() => migrate(database), { logger });
  if (applied.length) logger.info({ applied }, "migrations applied");
  const stopMaintenance = startEmbeddedMaintenance(database, (error) =>
    logger.warn({ err: error }, "ANALYZE failed"),
  );
  const redis = config.REDIS_URL
    ? connectRedis(config.REDIS_URL, { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS, logger })
    : null;
  const secretsKey = loadSecretsKey({
    secretsKey: config.SECRETS_KEY,
    dataDir: config.DATABASE_URL ? undefined : dataDir,
  });
  const platform = createPlatform({ config, database, redis, secretsKey, logger });

  let demo: Awaited<ReturnType<typeof seedDemo>> | null = null;
  if (config.DEMO_SEED && config.RUN_MODE !== "worker") {
    demo = await seedDemo(platform, {
      credentialsFile: config.DATABASE_URL ? undefined : demoCredentialsFile(dataDir),
    });
  }

  const app = await buildApp(platform, { logger: { level: config.LOG_LEVEL, redact: LOG_REDACT } });
  if (config.RUN_MODE !== "worker") {
    await app.listen({ port: config.PORT, host: config.HOST });
  } else {
    await app.ready();
  }

  let stopWorker = async () => {};
  if (config.RUN_MODE !== "api") {
    const worker = platform.webhooks.createWorker(app.log);
    const unlisten = await listenForEvents(database, worker.poke, (error) =>
      app.log.warn({ err: error }, "event notifications interrupted; polling meanwhile"),
    );
    worker.start();
    stopWorker = async () => {
      await unlisten();
      await worker.stop();
    };
  }

  const base = config.PUBLIC_BASE_URL;
  logger.info(
    {
      mode: config.RUN_MODE,
      database: config.DATABASE_URL ? "postgresql" : `embedded (${dataDir})`,
      redis: Boolean(redis),
    },
    "merchant platform started",
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

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: draining in-flight requests");
    const force = setTimeout(() => {
      logger.error("shutdown took over 25 s; exiting");
      process.exit(1);
    }, 25_000);
    force.unref();
    try {
      await app.close();
      await stopWorker();
      stopMaintenance();
      await platform.close();
      logger.info("stopped");
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
  console.error(error);
  process.exit(1);
}
