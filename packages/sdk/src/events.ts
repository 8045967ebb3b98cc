import type { AdminClient } from "./clients.ts";
import type { paths } from "./generated/api.ts";

type ListEvents = paths["/api/v1/apps/api/events"]["get"];
/** One event of the feed, typed by its `type` (its `data` is the resource the event is about). */
export type FeedEvent = ListEvents["responses"]["200"]["content"]["application/json"]["data"][number];
type Query = NonNullable<ListEvents["parameters"]["query"]>;

export interface EventListOptions {
  /** Start after this cursor (an event's `cursor`, or a page's `meta.nextCursor`); omitted: the oldest kept. */
  after?: string;
  /** Only these event types (each within the token's scopes). */
  types?: string[];
  /** Only events created at or after this instant. */
  since?: Date | string;
  /** Only events whose delivery to this app failed or was skipped. */
  failedOnly?: boolean;
  /** Page size (1-250, default 100). */
  limit?: number;
  /**
   * Keep polling for new events once the feed is read to its end, every `pollIntervalMs` (default
   * 5 s), until `signal` aborts. Without it the iteration ends at the end of the feed.
   */
  follow?: boolean;
  pollIntervalMs?: number;
  signal?: AbortSignal;
  /** Waits between polls (tests inject one). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Where `events.resume` keeps its place: a file, a database row, a key in Redis. */
export interface CursorStore {
  get(): Promise<string | undefined>;
  set(cursor: string): Promise<void>;
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * The events API (`GET /api/v1/apps/api/events`) as iterators. The feed's order never changes and
 * nothing is ever inserted behind a position already read, so a stored cursor is an exact place to
 * resume: nothing missed, nothing twice (unless you stored it before processing).
 */
export function eventFeed(admin: AdminClient) {
  async function* list(options: EventListOptions = {}): AsyncGenerator<FeedEvent> {
    const sleep = options.sleep ?? defaultSleep;
    let after = options.after;
    const query: Query = {
      limit: options.limit ?? 100,
      ...(options.types?.length ? { types: options.types.join(",") } : {}),
      ...(options.since
        ? { since: typeof options.since === "string" ? options.since : options.since.toISOString() }
        : {}),
      ...(options.failedOnly ? { delivery: "failed" as const } : {}),
    };
    while (!options.signal?.aborted) {
      const { data } = await admin.GET("/api/v1/apps/api/events", {
        params: { query: { ...query, ...(after !== undefined ? { after } : {}) } },
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (!data) return;
      yield* data.data;
      after = data.meta.nextCursor;
      if (data.meta.hasMore) continue;
      if (!options.follow) return;
      await sleep(options.pollIntervalMs ?? 5000, options.signal);
    }
  }

  return {
    list,
    /**
     * `list` from the cursor `store` holds, saving each event's cursor once you have processed it
     * (when you ask for the next one): a crash, a restart or a handler that throws resumes with the
     * first event not yet processed. At least once: the last event before a `break`, or one
     * processed but not yet saved when the process died, comes again (drop it by its `id`).
     */
    async *resume(
      store: CursorStore,
      options: Omit<EventListOptions, "after"> = {},
    ): AsyncGenerator<FeedEvent> {
      const stored = await store.get();
      let processed: string | undefined;
      for await (const event of list({ ...options, ...(stored !== undefined ? { after: stored } : {}) })) {
        // Asked for the next one: the previous was processed.
        if (processed !== undefined) await store.set(processed);
        yield event;
        processed = event.cursor;
      }
      // The feed ended (no `follow`) and the loop asked past the last event: it was processed. A
      // loop left by `break` or an exception saves nothing for its last event, which comes again.
      if (processed !== undefined) await store.set(processed);
    },
  };
}
export type EventFeed = ReturnType<typeof eventFeed>;
