import { isDatabaseUnavailable } from "../lib/availability.ts";
import { type BackoffOptions, backoffDelayMs } from "../lib/backoff.ts";

export interface WaitForDatabaseOptions {
  logger: { warn(fields: Record<string, unknown>, message: string): void };
  /** setTimeout by default; tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
  /** 500 ms doubling to 15 s by default. */
  backoff?: Partial<BackoffOptions>;
}

const DEFAULT_BACKOFF: BackoffOptions = { firstMs: 500, maxMs: 15_000 };

/**
 * Runs `attempt` (e.g. the migrations at start) until it succeeds. While it fails because the
 * database is unavailable (down, restarting, starting up), waits with capped exponential back-off
 * and says so at warn with the next delay, so a process started before its database comes up
 * stays up instead of exiting. Any other failure (wrong password, bad migration) is thrown at once.
 */
export async function waitForDatabase<T>(
  attempt: () => Promise<T>,
  options: WaitForDatabaseOptions,
): Promise<T> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
  for (let failures = 1; ; failures++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      const retryInMs = backoffDelayMs(failures, backoff);
      const { code, message } = error as { code?: string; message?: string };
      options.logger.warn(
        { attempt: failures, retryInMs, code, error: message },
        `database unavailable; retrying in ${retryInMs} ms`,
      );
      await sleep(retryInMs);
    }
  }
}
