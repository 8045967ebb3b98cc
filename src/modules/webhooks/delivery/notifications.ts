import pg from "pg";
import type { DatabaseHandle } from "../../../db/client.ts";
import { backoffDelayMs } from "../../../lib/backoff.ts";
import { EVENTS_CHANNEL } from "../../events/events-repo.ts";

const RECONNECT_BACKOFF = { firstMs: 1000, maxMs: 15_000 };

/**
 * Calls `onEvent` with the store id when a transaction that wrote outbox events of that store
 * commits (PostgreSQL NOTIFY), so new events reach their first attempt at once. The worker also polls, so a lost notification or a
 * dropped listener connection only delays, never loses, a delivery.
 */
export async function listenForEvents(
  handle: DatabaseHandle,
  onEvent: (storeId: string) => void,
  onError: (error: unknown) => void,
): Promise<() => Promise<void>> {
  if (handle.kind === "pglite") {
    const unsubscribe = await handle.pglite.listen(EVENTS_CHANNEL, (payload) => onEvent(payload ?? ""));
    return unsubscribe;
  }
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;
  const { connectionString, connectionTimeoutMillis } = handle.pool.options as pg.PoolConfig;
  const connect = async () => {
    if (stopped) return;
    const next = new pg.Client({ connectionString, connectionTimeoutMillis, keepAlive: true });
    // One reconnection per broken client, though a connection that dies mid-query reports
    // itself twice (the query's rejection and the client's 'error'); back-off while the server is down.
    let reconnecting = false;
    const reconnect = (error: unknown) => {
      if (reconnecting) return;
      reconnecting = true;
      onError(error);
      next.end().catch(() => {});
      failures++;
      if (!stopped) retry = setTimeout(connect, backoffDelayMs(failures, RECONNECT_BACKOFF));
    };
    next.on("notification", (message) => onEvent(message.payload ?? ""));
    next.on("error", reconnect);
    try {
      await next.connect();
      await next.query(`LISTEN ${EVENTS_CHANNEL}`);
      if (stopped) {
        // Stopped while this (re)connection was under way: nobody would ever end it.
        await next.end().catch(() => {});
        return;
      }
      client = next;
      if (failures > 0) onEvent(""); // Events committed while we were away were not announced (any store).
      failures = 0;
    } catch (error) {
      reconnect(error);
    }
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}
