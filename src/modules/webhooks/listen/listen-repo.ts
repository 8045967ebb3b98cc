import type { Selectable } from "kysely";
import { sql } from "kysely";
import type { Db, Executor } from "../../../db/client.ts";
import type { WebhookListenSessionsTable } from "../../../db/schema.ts";

export type ListenSession = Selectable<WebhookListenSessionsTable>;

/** One item to stream: the event as a delivery carries it. */
export interface ListenItem {
  seq: number;
  /** The item's x-webhook-id: the same if it is streamed again after a reconnect. */
  id: string;
  event_id: string;
  topic: string;
  created_at: Date;
  payload: unknown;
  test: boolean;
}

/**
 * Listen sessions (the CLI's `listen`): an installation's events queued per session by the events
 * trigger (migration 20261125_0012) and streamed in order. A connection owns a session through its
 * `connection` token; a newer connection takes it over and the older one stops at its next write.
 */
export function createListenRepo(db: Db) {
  return {
    async create(row: Omit<ListenSession, "sent" | "stopped_at">): Promise<void> {
      await db.insertInto("webhook_listen_sessions").values(row).execute();
    },

    /**
     * Takes over a session of this installation for a new connection, resuming after `position`:
     * what was streamed after it goes back to the queue (the client never saw it). Null when the
     * session is not this installation's, or has ended.
     */
    async resume(
      storeId: string,
      installationId: string,
      sessionId: string,
      position: number,
      connection: string,
      now: Date,
    ): Promise<ListenSession | null> {
      return db.transaction().execute(async (tx) => {
        const session = await tx
          .updateTable("webhook_listen_sessions")
          .set({ connection, seen_at: now, sent: sql`least(sent, ${position})` })
          .where("store_id", "=", storeId)
          .where("id", "=", sessionId)
          .where("installation_id", "=", installationId)
          .returningAll()
          .executeTakeFirst();
        if (!session) return null;
        await tx
          .updateTable("webhook_listen_items")
          .set({ position: null })
          .where("store_id", "=", storeId)
          .where("session_id", "=", sessionId)
          .where("position", ">", position)
          .execute();
        return session;
      });
    },

    /** The next unsent items of a session, oldest first, with their events. */
    async next(storeId: string, sessionId: string, limit: number): Promise<ListenItem[]> {
      const { rows } = await sql<ListenItem>`
        SELECT i.seq, i.id, i.event_id, e.topic, e.created_at, e.payload, e.test
          FROM webhook_listen_items i
          JOIN events e ON e.id = i.event_id AND e.store_id = i.store_id
         WHERE i.store_id = ${storeId} AND i.session_id = ${sessionId} AND i.position IS NULL
         ORDER BY i.seq
         LIMIT ${limit}`.execute(db);
      return rows;
    },

    /**
     * Records items as streamed at positions `from + 1 …`, if this connection still owns the
     * session; false when another connection took it over (nothing is recorded then).
     */
    async markSent(
      storeId: string,
      sessionId: string,
      connection: string,
      items: ReadonlyArray<{ seq: number; position: number }>,
      now: Date,
    ): Promise<boolean> {
      const last = items.at(-1)?.position;
      return db.transaction().execute(async (tx) => {
        const owned = await tx
          .updateTable("webhook_listen_sessions")
          .set({ seen_at: now, ...(last !== undefined ? { sent: last } : {}) })
          .where("store_id", "=", storeId)
          .where("id", "=", sessionId)
          .where("connection", "=", connection)
          .returning("id")
          .executeTakeFirst();
        if (!owned) return false;
        if (items.length) {
          await sql`
            UPDATE webhook_listen_items AS i SET position = n.position
              FROM unnest(${items.map((x) => x.seq) as unknown as string}::bigint[],
                          ${items.map((x) => x.position) as unknown as string}::bigint[]) AS n(seq, position)
             WHERE i.store_id = ${storeId} AND i.session_id = ${sessionId} AND i.seq = n.seq`.execute(tx);
        }
        return true;
      });
    },

    async get(storeId: string, sessionId: string): Promise<ListenSession | undefined> {
      return db
        .selectFrom("webhook_listen_sessions")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("id", "=", sessionId)
        .executeTakeFirst();
    },
  };
}
export type ListenRepo = ReturnType<typeof createListenRepo>;

/**
 * Inside an uninstall, after the subscriptions stopped: the installation's live sessions stop, and
 * each gets `app/uninstalled` as its last item. The sessions are locked (FOR UPDATE) as the events
 * trigger share-locks them, so every item queued by a transaction that committed first is ahead of it.
 */
export async function stopListenSessions(
  tx: Executor,
  input: { storeId: string; installationId: string; eventId: string; now: Date },
): Promise<void> {
  await sql`
    WITH stopped AS (
      UPDATE webhook_listen_sessions SET stopped_at = ${input.now}
       WHERE store_id = ${input.storeId} AND installation_id = ${input.installationId} AND stopped_at IS NULL
      RETURNING store_id, id
    )
    INSERT INTO webhook_listen_items (store_id, session_id, event_id)
    SELECT store_id, id, ${input.eventId} FROM stopped`.execute(tx);
}
