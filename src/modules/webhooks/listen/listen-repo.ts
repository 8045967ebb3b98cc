import type { Selectable } from "kysely";
import { sql } from "kysely";
import type { Db, Executor } from "../../../db/client.ts";
import type { WebhookListenSessionsTable } from "../../../db/schema.ts";

export type ListenSession = Selectable<WebhookListenSessionsTable>;

/** Why a session could not be opened: the installation has its cap of sessions connected. */
export interface SessionsFull {
  full: true;
}

/**
 * Listen sessions (the CLI's `listen`). A session reads its store's event feed (events/feed-repo.ts)
 * from `position`; nothing is written per event. A connection owns a session through its
 * `connection` token; a newer connection takes it over and the older one stops at its next write.
 * A session is live while it is connected or was seen within the idle time; the number of live
 * sessions per installation is capped.
 */
export function createListenRepo(db: Db) {
  return {
    /**
     * Opens a session unless the installation already has `max` live ones. At the cap, the live
     * session seen longest ago that no connection holds (closed, or not seen for `staleBefore`)
     * is stopped to make room; if every one is held, nothing is opened. The installation's row
     * is locked first, so a burst of opens is counted one at a time (reserve, then check).
     */
    async open(
      row: Omit<ListenSession, "stopped_at">,
      limits: { max: number; liveAfter: Date; staleBefore: Date },
    ): Promise<ListenSession | SessionsFull> {
      return db.transaction().execute(async (tx) => {
        // NO KEY UPDATE: serialises opens of this installation without blocking the inserts that
        // reference the row (their foreign-key checks take KEY SHARE).
        await sql`SELECT 1 FROM installations WHERE store_id = ${row.store_id} AND id = ${row.installation_id}
                  FOR NO KEY UPDATE`.execute(tx);
        const live = await tx
          .selectFrom("webhook_listen_sessions")
          .select(["id", "connection", "seen_at"])
          .where("store_id", "=", row.store_id)
          .where("installation_id", "=", row.installation_id)
          .where("stopped_at", "is", null)
          .where("seen_at", ">", limits.liveAfter)
          .orderBy("seen_at")
          .execute();
        if (live.length >= limits.max) {
          const free = live.filter((s) => s.connection === null || s.seen_at < limits.staleBefore);
          const evict = free.slice(0, live.length - limits.max + 1);
          if (evict.length < live.length - limits.max + 1) return { full: true };
          await tx
            .updateTable("webhook_listen_sessions")
            .set({ stopped_at: row.created_at, connection: null })
            .where("store_id", "=", row.store_id)
            .where(
              "id",
              "in",
              evict.map((s) => s.id),
            )
            .execute();
        }
        await tx.insertInto("webhook_listen_sessions").values(row).execute();
        return { ...row, stopped_at: null };
      });
    },

    /**
     * Takes over a live session of this installation for a new connection, to read on after
     * `position` (already bounded by the caller): the session answered carries that position,
     * while the row keeps how far the session has streamed (a resume streams part of it again; it
     * does not unsay it). Null when the session is not this installation's, has ended or has
     * expired.
     */
    async resume(input: {
      storeId: string;
      installationId: string;
      sessionId: string;
      position: (session: ListenSession) => number;
      connection: string;
      now: Date;
      liveAfter: Date;
    }): Promise<ListenSession | null> {
      return db.transaction().execute(async (tx) => {
        const session = await tx
          .selectFrom("webhook_listen_sessions")
          .selectAll()
          .where("store_id", "=", input.storeId)
          .where("id", "=", input.sessionId)
          .where("installation_id", "=", input.installationId)
          .where("stopped_at", "is", null)
          .where("seen_at", ">", input.liveAfter)
          .forUpdate()
          .executeTakeFirst();
        if (!session) return null;
        const position = input.position(session);
        await tx
          .updateTable("webhook_listen_sessions")
          .set({ connection: input.connection, seen_at: input.now })
          .where("store_id", "=", input.storeId)
          .where("id", "=", input.sessionId)
          .execute();
        return { ...session, connection: input.connection, seen_at: input.now, position };
      });
    },

    /**
     * Records how far the session has read, if this connection still owns it; false when another
     * connection took it over (nothing is recorded then). One statement, one row. `position` only
     * grows: with `start_position` it is the record of what the session streamed (every event of
     * its topics it may see in between), which the delivery log lists (deliveries-repo.ts).
     */
    async advance(
      storeId: string,
      sessionId: string,
      connection: string,
      position: number,
      now: Date,
    ): Promise<boolean> {
      const owned = await db
        .updateTable("webhook_listen_sessions")
        .set((eb) => ({ seen_at: now, position: sql<number>`greatest(${eb.ref("position")}, ${position})` }))
        .where("store_id", "=", storeId)
        .where("id", "=", sessionId)
        .where("connection", "=", connection)
        .returning("id")
        .executeTakeFirst();
      return owned !== undefined;
    },

    /** The connection went: the session is free (resumable until it expires). One row. */
    async release(storeId: string, sessionId: string, connection: string, now: Date): Promise<void> {
      await db
        .updateTable("webhook_listen_sessions")
        .set({ connection: null, seen_at: now })
        .where("store_id", "=", storeId)
        .where("id", "=", sessionId)
        .where("connection", "=", connection)
        .execute();
    },
  };
}
export type ListenRepo = ReturnType<typeof createListenRepo>;

/**
 * Inside an uninstall: the installation's sessions stop (they cannot be resumed). Their open
 * streams end when they read the installation's `app/uninstalled` from the feed, which the same
 * transaction records, or at their next token check.
 */
export async function stopListenSessions(
  tx: Executor,
  input: { storeId: string; installationId: string; now: Date },
): Promise<void> {
  await tx
    .updateTable("webhook_listen_sessions")
    .set({ stopped_at: input.now })
    .where("store_id", "=", input.storeId)
    .where("installation_id", "=", input.installationId)
    .where("stopped_at", "is", null)
    .execute();
}
