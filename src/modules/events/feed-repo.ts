import { sql } from "kysely";
import { EVENT } from "../../contracts/index.ts";
import type { Db } from "../../db/client.ts";
import type { AppMetadataJson } from "../../db/schema.ts";

/**
 * How long an event may wait between its creation and its number (its transaction's duration, plus
 * how far the clocks of two processes may disagree) for `since` to be exact (see `page`).
 */
export const SINCE_MARGIN_MS = 5 * 60_000;

/** Events numbered per sequencing transaction at most (a backlog takes several). */
const SEQUENCE_BATCH = 1000;

/** An event as the feed carries it. */
export interface FeedEvent {
  position: number;
  /** Insertion number: strictly increasing across one resource's events (the webhook body's `sequence`). */
  seq: number;
  id: string;
  topic: string;
  created_at: Date;
  payload: unknown;
  test: boolean;
  installation_id: string | null;
  /** Every app's metadata on the event's record (webhookBody gives each app its own); null when none. */
  app_metadata: AppMetadataJson | null;
}

/**
 * Each store's event feed: its events in the order they became visible, numbered 1, 2, 3, ...
 * (migration 20261126_0010). Events are inserted in their change's transaction without a number;
 * the sequencer numbers them after they commit.
 *
 * Why numbers are given after commit, by one sequencer at a time per store: an id, a timestamp or
 * a sequence value taken at insert time is not commit order (a transaction that inserted first
 * may commit last), so a reader paging "after n" would skip an event that committed late below n.
 * The sequencer locks the store's head row, then reads, in a new statement (and so a new
 * snapshot), every event of the store that has committed unnumbered, numbers them after the head
 * in insertion order and commits. Sequencers of one store take turns on that lock, so a number is
 * visible only after every smaller number is: whoever has read the feed up to n will never find a
 * new event at n or below.
 *
 * Insertion order within a batch also keeps the events of one resource in order: a change to a
 * record inserts its event after the previous change to it committed (it waited for its row lock),
 * and that earlier event, having committed, is numbered in the same batch or before.
 */
export function createFeedRepo(db: Db) {
  return {
    /** True when the store has committed events not yet numbered (one read of a partial index). */
    async hasUnsequenced(storeId: string): Promise<boolean> {
      const { rows } = await sql`
        SELECT 1 FROM events WHERE store_id = ${storeId} AND feed_position IS NULL LIMIT 1`.execute(db);
      return rows.length > 0;
    },

    /** Numbers up to SEQUENCE_BATCH of the store's committed events; answers how many. */
    async sequenceBatch(storeId: string): Promise<number> {
      return db.transaction().execute(async (tx) => {
        // The lock every sequencer of this store waits on (an upsert locks the row it finds).
        const { rows: heads } = await sql<{ position: number }>`
          INSERT INTO event_feed_heads (store_id, position) VALUES (${storeId}, 0)
          ON CONFLICT (store_id) DO UPDATE SET position = event_feed_heads.position
          RETURNING position`.execute(tx);
        const head = Number(heads[0]!.position);
        // A statement of its own, so its snapshot is taken after the lock was granted: it sees
        // everything the previous holder numbered, and every event committed before now.
        const { rows } = await sql<{ n: number }>`
          WITH batch AS (
            SELECT seq, row_number() OVER (ORDER BY seq) AS rn
              FROM (SELECT seq FROM events WHERE store_id = ${storeId} AND feed_position IS NULL
                     ORDER BY seq LIMIT ${SEQUENCE_BATCH}) b
          ), numbered AS (
            UPDATE events e SET feed_position = ${head} + batch.rn FROM batch
             WHERE e.seq = batch.seq RETURNING 1
          )
          UPDATE event_feed_heads SET position = ${head} + (SELECT count(*) FROM numbered)
           WHERE store_id = ${storeId}
          RETURNING position - ${head} AS n`.execute(tx);
        return Number(rows[0]?.n ?? 0);
      });
    },

    /**
     * Stores with committed events not yet numbered (the sequencer's catch-up after a lost
     * notification). One probe of the partial index per store found, from store to next store (a
     * skip scan): `SELECT DISTINCT store_id` read every unnumbered event instead, 9 ms at a
     * backlog of 20,000 events, run every second by each worker while the backlog lasted.
     */
    async storesWithUnsequenced(limit: number): Promise<string[]> {
      const { rows } = await sql<{ store_id: string }>`
        WITH RECURSIVE stores AS (
          (SELECT store_id FROM events WHERE feed_position IS NULL ORDER BY store_id LIMIT 1)
          UNION ALL
          SELECT (SELECT e.store_id FROM events e
                   WHERE e.feed_position IS NULL AND e.store_id > stores.store_id
                   ORDER BY e.store_id LIMIT 1)
            FROM stores WHERE stores.store_id IS NOT NULL
        )
        SELECT store_id FROM stores WHERE store_id IS NOT NULL LIMIT ${limit}`.execute(db);
      return rows.map((r) => r.store_id);
    },

    /** The last position given in the store's feed (0 before its first event). */
    async head(storeId: string): Promise<number> {
      const row = await db
        .selectFrom("event_feed_heads")
        .select("position")
        .where("store_id", "=", storeId)
        .executeTakeFirst();
      return Number(row?.position ?? 0);
    },

    /** The installation's own `app/uninstalled` after `after`, if it has been numbered. */
    async uninstalledAfter(
      storeId: string,
      installationId: string,
      after: number,
    ): Promise<FeedEvent | null> {
      const { rows } = await sql<FeedEvent>`
        SELECT feed_position AS position, seq, id, topic, created_at, payload, test, installation_id, app_metadata FROM events
         WHERE store_id = ${storeId} AND feed_position > ${after} AND installation_id = ${installationId}
           AND topic = ${EVENT.appUninstalled} AND NOT test
         ORDER BY feed_position LIMIT 1`.execute(db);
      const row = rows[0];
      return row ? { ...row, position: Number(row.position) } : null;
    },

    /**
     * A page of the events API: the store's events after `after` that the installation may see
     * (its topics; untargeted or targeted at it), oldest first, at most `limit`; with `since`, those
     * created at or after it; with `failedOnly`, those with a delivery to the installation in one of
     * `failedStatuses`. `readTo` is where the next page starts: the last event's position when the
     * page is full, otherwise the head read in the same snapshot (every position up to it is final,
     * so a reader polling from there misses nothing and scans nothing twice).
     */
    async page(input: {
      storeId: string;
      installationId: string;
      topics: readonly string[];
      after: number;
      since: Date | null;
      failedOnly: boolean;
      failedStatuses: readonly string[];
      limit: number;
    }): Promise<{ events: Array<FeedEvent & { resource_id: string }>; readTo: number; more: boolean }> {
      let after = input.after;
      if (input.since) {
        // Where `since` starts in the feed: after the position of the last event created more than
        // SINCE_MARGIN_MS before it. An event created at or after `since` was numbered after that
        // one unless an event waited longer than the margin between creation and numbering (a
        // transaction open that long, or clocks that far apart); see docs/decisions.md.
        const { rows } = await sql<{ position: number | null }>`
          SELECT feed_position AS position FROM events
           WHERE store_id = ${input.storeId}
             AND created_at < ${new Date(input.since.getTime() - SINCE_MARGIN_MS)}
             AND feed_position IS NOT NULL
           ORDER BY created_at DESC LIMIT 1`.execute(db);
        after = Math.max(after, Number(rows[0]?.position ?? 0));
      }
      const filters = sql`
               AND topic = ANY (${input.topics as unknown as string}::text[])
               AND (installation_id IS NULL OR installation_id = ${input.installationId})
               AND (${input.since}::timestamptz IS NULL OR created_at >= ${input.since})`;
      // With `failedOnly`, the installation's failed deliveries lead (few, through their index),
      // not the feed: scanning the feed for them read a million rows for a page at a million events.
      const source = input.failedOnly
        ? sql`SELECT e.* FROM events e
               WHERE e.store_id = h.store_id AND e.feed_position > ${after}
                 AND e.id IN (SELECT d.event_id FROM webhook_deliveries d
                               WHERE d.store_id = h.store_id AND d.installation_id = ${input.installationId}
                                 AND d.status = ANY (${input.failedStatuses as unknown as string}::text[])
                                 -- Its subscription's newest delivery of the event: one a redelivery
                                 -- or a recovery replaced does not count.
                                 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries n
                                                  WHERE n.store_id = d.store_id AND n.event_id = d.event_id
                                                    AND n.subscription_id = d.subscription_id
                                                    AND n.created_at > d.created_at))
                 ${filters}
               ORDER BY e.feed_position LIMIT ${input.limit}`
        : sql`SELECT * FROM events
               WHERE store_id = h.store_id AND feed_position > ${after}
                 ${filters}
               ORDER BY feed_position LIMIT ${input.limit}`;
      const { rows } = await sql<FeedEvent & { resource_id: string; head: number }>`
        SELECT h.position AS head, e.feed_position AS position, e.seq, e.id, e.topic, e.resource_id,
               e.created_at, e.payload, e.test, e.installation_id, e.app_metadata
          FROM event_feed_heads h
          LEFT JOIN LATERAL (${source}) e ON true
         WHERE h.store_id = ${input.storeId}
         ORDER BY e.feed_position`.execute(db);
      if (!rows.length) return { events: [], readTo: after, more: false };
      const head = Number(rows[0]!.head);
      const events = rows
        .filter((r) => r.id !== null)
        .map((r) => ({ ...r, position: Number(r.position), seq: Number(r.seq) }));
      const readTo = events.length === input.limit ? events.at(-1)!.position : Math.max(after, head);
      return { events, readTo, more: readTo < head };
    },

    /** The installation's deliveries of these events (the events API shows them with each event). */
    async deliveriesOf(storeId: string, installationId: string, eventIds: readonly string[]) {
      if (!eventIds.length) return [];
      return db
        .selectFrom("webhook_deliveries")
        .select([
          "id",
          "event_id",
          "subscription_id",
          "status",
          "attempts",
          "last_status_code",
          "last_error",
          "created_at",
          "completed_at",
        ])
        .where("store_id", "=", storeId)
        .where("event_id", "in", eventIds)
        .where("installation_id", "=", installationId)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
    },

    /**
     * What a listen stream reads: the store's events at positions in (after, after + span] of the
     * given topics, untargeted or targeted at `installationId`, oldest first, at most `limit`.
     * `readTo` is how far the feed has been read: the last item's position when the page is full,
     * otherwise the end of the span or the head, whichever is first (every position up to the head
     * is final, so nothing below `readTo` can appear later). `more`: the feed goes on past it.
     */
    async readForInstallation(input: {
      storeId: string;
      installationId: string;
      topics: readonly string[];
      after: number;
      span: number;
      limit: number;
    }): Promise<{ events: FeedEvent[]; readTo: number; more: boolean }> {
      // One statement: the head and the events in the same snapshot.
      const { rows } = await sql<FeedEvent & { head: number }>`
        SELECT h.position AS head, e.feed_position AS position, e.seq, e.id, e.topic, e.created_at,
               e.payload, e.test, e.installation_id, e.app_metadata
          FROM event_feed_heads h
          LEFT JOIN LATERAL (
            SELECT feed_position, seq, id, topic, created_at, payload, test, installation_id, app_metadata FROM events
             WHERE store_id = h.store_id
               AND feed_position > ${input.after} AND feed_position <= ${input.after + input.span}
               AND topic = ANY (${input.topics as unknown as string}::text[])
               AND (installation_id IS NULL OR installation_id = ${input.installationId})
             ORDER BY feed_position LIMIT ${input.limit}) e ON true
         WHERE h.store_id = ${input.storeId}
         ORDER BY e.feed_position`.execute(db);
      if (!rows.length) return { events: [], readTo: input.after, more: false };
      const head = Number(rows[0]!.head);
      const events = rows
        .filter((r) => r.id !== null)
        .map((r) => ({ ...r, position: Number(r.position) }) as FeedEvent);
      const readTo =
        events.length === input.limit
          ? events.at(-1)!.position
          : Math.max(input.after, Math.min(input.after + input.span, head));
      return { events, readTo, more: readTo < head };
    },
  };
}
export type FeedRepo = ReturnType<typeof createFeedRepo>;

/**
 * Runs the sequencer for a store when asked, one run at a time per store in this process. A
 * caller that arrives while a run is under way waits for the next run, which starts after it: the
 * run under way may have taken its snapshot before the caller's event committed.
 */
export function createFeedSequencer(deps: { repo: Pick<FeedRepo, "hasUnsequenced" | "sequenceBatch"> }) {
  const runs = new Map<string, { current: Promise<void>; next: Promise<void> | null }>();

  async function run(storeId: string): Promise<void> {
    // Cheap when there is nothing to do (the common case): one indexed read, no lock.
    if (!(await deps.repo.hasUnsequenced(storeId))) return;
    while ((await deps.repo.sequenceBatch(storeId)) > 0) {
      /* a backlog: numbered one batch per transaction */
    }
  }

  function start(storeId: string): Promise<void> {
    const current = run(storeId).finally(() => {
      const state = runs.get(storeId);
      if (state?.current !== current) return;
      if (state.next) return; // the queued run takes over (see below)
      runs.delete(storeId);
    });
    return current;
  }

  return {
    /** Numbers every event of the store that had committed when this was called. */
    sequence(storeId: string): Promise<void> {
      const state = runs.get(storeId);
      if (!state) {
        const current = start(storeId);
        runs.set(storeId, { current, next: null });
        return current;
      }
      // One run queued behind the current one serves every caller that arrives meanwhile.
      state.next ??= state.current
        .catch(() => {})
        .then(() => {
          const next = start(storeId);
          runs.set(storeId, { current: next, next: null });
          return next;
        });
      return state.next;
    },
  };
}
export type FeedSequencer = ReturnType<typeof createFeedSequencer>;

/**
 * Keeps every store's feed numbered in the background, in the processes that run the delivery
 * worker: a store is sequenced when its events' notification arrives, and a sweep every `pollMs`
 * catches what a lost notification left. Readers of the feed (listen streams, the events API)
 * also sequence their store before reading, so the feed never depends on this to be complete;
 * this keeps their reads from having to.
 */
export function createFeedKeeper(deps: {
  repo: Pick<FeedRepo, "storesWithUnsequenced">;
  sequencer: Pick<FeedSequencer, "sequence">;
  pollMs: number;
  onError(error: unknown): void;
}) {
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let sweeping = false;
  let stopped = true;
  const track = (work: Promise<void>) => {
    const tracked = work.catch(deps.onError).finally(() => running.delete(tracked));
    running.add(tracked);
  };
  const sweep = async () => {
    if (sweeping || stopped) return;
    sweeping = true;
    try {
      for (const storeId of await deps.repo.storesWithUnsequenced(100))
        track(deps.sequencer.sequence(storeId));
    } catch (error) {
      deps.onError(error);
    } finally {
      sweeping = false;
    }
  };
  return {
    /** Events of `storeId` committed (an empty id: of any store, so sweep). */
    notify(storeId: string) {
      if (stopped) return;
      if (storeId) track(deps.sequencer.sequence(storeId));
      else void sweep();
    },
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setInterval(() => void sweep(), deps.pollMs);
      timer.unref();
      void sweep();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.allSettled([...running]);
    },
  };
}
export type FeedKeeper = ReturnType<typeof createFeedKeeper>;
