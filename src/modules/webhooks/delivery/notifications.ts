import pg from "pg";
import type { DatabaseHandle } from "../../../db/client.ts";
import { EVENTS_CHANNEL } from "../../events/events-repo.ts";

/**
 * Calls `onEvent` when a transaction that wrote outbox events commits (PostgreSQL NOTIFY), so new
 * events reach their first attempt at once. The worker also polls, so a lost notification or a
 * dropped listener connection only delays, never loses, a delivery.
 */
export async function listenForEvents(
  handle: DatabaseHandle,
  onEvent: () => void,
  onError: (error: unknown) => void,
): Promise<() => Promise<void>> {
  if (handle.kind === "pglite") {
    const unsubscribe = await handle.pglite.listen(EVENTS_CHANNEL, onEvent);
    return unsubscribe;
  }
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    if (stopped) return;
    const next = new pg.Client({
      connectionString: (handle.pool.options as { connectionString?: string }).connectionString,
    });
    next.on("notification", onEvent);
    next.on("error", (error) => {
      onError(error);
      next.end().catch(() => {});
      if (!stopped) retry = setTimeout(connect, 1000);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${EVENTS_CHANNEL}`);
      client = next;
    } catch (error) {
      onError(error);
      next.end().catch(() => {});
      if (!stopped) retry = setTimeout(connect, 1000);
    }
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}
