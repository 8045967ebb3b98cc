import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { Redis } from "ioredis";
import { TEST_REDIS_URL } from "./harness.ts";
import { postgresBinDir } from "./pg-server.ts";

/**
 * Some tests need a service beyond Node: Redis (multi-instance rate limits) and Chromium (UI).
 * On a developer machine without them those tests are skipped with the reason printed; under CI
 * (CI=true, set by .ci/run, which installs and starts both) a missing service fails the run.
 */
function unavailable(reason: string): string {
  if (process.env.CI === "true") throw new Error(`${reason} (required under CI)`);
  return reason;
}

/** undefined when Redis answers; otherwise the skip reason. */
export async function redisSkipReason(): Promise<string | undefined> {
  const redis = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1000,
  });
  redis.on("error", () => {});
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch {
    return unavailable(`Redis is not reachable at ${TEST_REDIS_URL}; start it or set TEST_REDIS_URL`);
  } finally {
    redis.disconnect();
  }
}

/** The redis-server binary fault tests start (and kill) themselves. */
export const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? "redis-server";

/** undefined when redis-server can be started; otherwise the skip reason. */
export function redisServerSkipReason(): string | undefined {
  const probe = spawnSync(REDIS_SERVER, ["--version"], { stdio: "ignore", timeout: 10_000 });
  return probe.error || probe.status !== 0
    ? unavailable(`${REDIS_SERVER} not found (apt-get install redis-server, or set REDIS_SERVER_PATH)`)
    : undefined;
}

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** undefined when Chromium is installed; otherwise the skip reason. */
export function chromiumSkipReason(): string | undefined {
  return existsSync(CHROMIUM_PATH)
    ? undefined
    : unavailable(`Chromium not found at ${CHROMIUM_PATH} (apt-get install chromium)`);
}

/** undefined when PostgreSQL's server binaries (initdb, pg_ctl) are installed; otherwise the skip reason. */
export function postgresServerSkipReason(): string | undefined {
  return postgresBinDir()
    ? undefined
    : unavailable(
        "PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin or PG_BIN (apt-get install postgresql)",
      );
}
