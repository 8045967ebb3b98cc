import type { ServerResponse } from "node:http";
import type { Config } from "../../../config.ts";
import { EVENT, type EventName, ID_PREFIX } from "../../../contracts/index.ts";
import { LISTEN_RESUME_WINDOW } from "../../../contracts/limits.ts";
import type { Db } from "../../../db/client.ts";
import type { Clock } from "../../../lib/clock.ts";
import { randomBase62 } from "../../../lib/crypto.ts";
import { AppError } from "../../../lib/errors.ts";
import { newId, newWebhookSecret } from "../../../lib/ids.ts";
import type { SecretBox } from "../../../lib/secret-box.ts";
import { eventAllowed, eventNamesParam, eventsAllowed } from "../../events/event-scope.ts";
import type { RecordEvent } from "../../events/events-repo.ts";
import type { FeedRepo, FeedSequencer } from "../../events/feed-repo.ts";
import type { AccessContext } from "../../oauth/token-service.ts";
import type { EventVersion } from "../../versions/event-versions.ts";
import type { ListenRepo, ListenSession } from "./listen-repo.ts";
import { createListenStreamer, HEARTBEAT_MS, sse } from "./listen-stream.ts";
import { createStreamRegistry } from "./stream-registry.ts";
import { testEventData } from "./test-events.ts";
import type { TestEventRepo } from "./test-events-repo.ts";
import { createWakeups } from "./wakeups.ts";

/** The SSE id of the last item a client saw: `<session id>.<feed position>`. */
const LAST_EVENT_ID = new RegExp(`^(${ID_PREFIX.listenSession}_[0-9A-Za-z]{22})\\.(\\d{1,15})$`);

/** The 429 past the listen bounds; the Retry-After is when a vanished connection stops counting. */
function tooManyStreams(what: string): AppError {
  return new AppError("RATE_LIMITED", {
    message: `Too many listen streams: ${what}. Close one, or resume its session with Last-Event-ID.`,
    headers: { "retry-after": String((2 * HEARTBEAT_MS) / 1000) },
  });
}

/**
 * The session and feed position a Last-Event-ID names; null when none was sent. Anything else is
 * refused (it is not an id a stream sent).
 */
export function parseLastEventId(last: string | undefined): { sessionId: string; from: number } | null {
  if (!last) return null;
  const match = LAST_EVENT_ID.exec(last);
  if (!match)
    throw new AppError("VALIDATION_FAILED", {
      message: "Last-Event-ID must be an id this stream sent (`<sessionId>.<n>`).",
      details: [{ field: "last-event-id", message: "is not a stream position" }],
    });
  return { sessionId: match[1]!, from: Number(match[2]) };
}

/**
 * Where a resume starts: after `from`, yet never before where the session began, never more than
 * LISTEN_RESUME_WINDOW back, never past what it streamed.
 */
export function resumePosition(
  from: number,
  session: Pick<ListenSession, "position" | "start_position">,
): number {
  // Number(): a bigint column may arrive as a string.
  const position = Number(session.position);
  return Math.min(position, Math.max(from, Number(session.start_position), position - LISTEN_RESUME_WINDOW));
}

/** The events a stream carries: the ones asked for (all it may see by default), each within the scopes. */
export function chooseEvents(asked: string | undefined, access: Pick<AccessContext, "scopes">): EventName[] {
  if (!asked) return eventsAllowed(access.scopes);
  const names = eventNamesParam(asked, access.scopes, { field: "events", action: "Streaming" });
  // app/uninstalled always: it is how a stream learns that it has ended.
  return [...new Set<EventName>([...names, EVENT.appUninstalled])];
}

export interface ListenServiceDeps {
  /** Events at a session's API version (modules/versions). */
  events: { at(apiVersion: string): EventVersion };
  db: Db;
  config: Pick<Config, "LISTEN_MAX_STREAMS" | "LISTEN_SESSION_IDLE_SECONDS">;
  repo: ListenRepo;
  feed: Pick<FeedRepo, "readForInstallation" | "head" | "uninstalledAfter">;
  sequencer: Pick<FeedSequencer, "sequence">;
  clock: Clock;
  secretBox: SecretBox;
  recordEvent: RecordEvent;
  /** What a test event borrows from its store (its currency, products, order numbers). */
  testEvents: Pick<TestEventRepo, "sample">;
  /** The installation behind a bearer token, through the access-token cache; throws when invalid. */
  authenticate(token: string): Promise<Pick<AccessContext, "expiresAt">>;
  /** Calls `onEvent(storeId)` when events commit; answers how to stop (webhooks/delivery/notifications.ts). */
  subscribeEvents(onEvent: (storeId: string) => void): Promise<() => Promise<void>>;
  /** Charges a test event to its app by what it fans out to; 429 past the budget (webhook-limits.ts). */
  admitTestEvent(access: AccessContext, event: EventName): Promise<void>;
}

/**
 * Developer tooling behind the Admin API's listen routes: opening or resuming a listen session and
 * serving its stream (the loop itself is listen-stream.ts), and recording test events.
 */
export function createListenService(deps: ListenServiceDeps) {
  const { repo, clock, config } = deps;
  const wakeups = createWakeups(deps.subscribeEvents);
  const stream = createListenStreamer({
    feed: deps.feed,
    sequencer: deps.sequencer,
    repo,
    wakeups,
    clock,
    tokenExpiry: async (token) => (await deps.authenticate(token)).expiresAt,
    events: deps.events,
  });
  const streams = createStreamRegistry(config.LISTEN_MAX_STREAMS);
  const idleMs = config.LISTEN_SESSION_IDLE_SECONDS * 1000;

  return {
    /** Live sessions per installation at most (LISTEN_MAX_STREAMS). */
    maxStreams: config.LISTEN_MAX_STREAMS,

    /** Ends every stream and stops listening for events: a stream is a long request, and shutdown never waits on one. */
    async close() {
      streams.closeAll();
      await wakeups.close();
    },

    /**
     * Opens a new session (or resumes the one `lastEventId` names), then takes the response over
     * (`hijack`: from here the stream writes to the socket itself) and streams until it ends.
     * Everything that can be refused is refused before the response is taken over, as an error.
     */
    async stream(
      input: {
        access: AccessContext;
        /** The bearer token that opened the stream; checked again before every write. */
        token: string;
        lastEventId: string | undefined;
        /** The `events` query: the names a new session streams. */
        events: string | undefined;
        /** The API version a new session streams at (a resumed one keeps its own). */
        apiVersion: string;
        log: { warn(fields: object, message: string): void };
      },
      hijack: () => { raw: ServerResponse; headers: Record<string, string> },
    ): Promise<void> {
      const { access, token } = input;
      const storeId = access.store.id;
      const now = clock.now();
      const resume = parseLastEventId(input.lastEventId);
      const asked = resume ? null : chooseEvents(input.events, access);
      // Reserved before anything else, so a burst is counted one request at a time.
      const slot = streams.reserve(access.installationId, resume?.sessionId ?? null);
      if (!slot) throw tooManyStreams(`${streams.max} listen streams of this app are open on this server`);
      let session: ListenSession | null = null;
      const connection = randomBase62(16);
      try {
        let newSecret: string | null = null;
        let topics: EventName[];
        const liveAfter = new Date(now.getTime() - idleMs);
        if (resume) {
          session = await repo.resume({
            storeId,
            installationId: access.installationId,
            sessionId: resume.sessionId,
            position: (s) => resumePosition(resume.from, s),
            connection,
            now,
            liveAfter,
          });
          if (!session)
            throw new AppError("NOT_FOUND", {
              message:
                "No live listen session with this id: it ended, expired after being disconnected for a while, or belongs to another app. Start a new one (without Last-Event-ID).",
            });
          // What the session carries, within what the token presented now may see: a narrower
          // token resuming a wider session gets only its own share.
          topics = (session.events as EventName[]).filter((e) => eventAllowed(access.scopes, e));
        } else {
          // Begins at the head of the feed as of now (what committed before is numbered first).
          await deps.sequencer.sequence(storeId);
          const head = await deps.feed.head(storeId);
          newSecret = newWebhookSecret();
          const opened = await repo.open(
            {
              store_id: storeId,
              id: newId("listenSession"),
              installation_id: access.installationId,
              app_id: access.appId,
              events: asked!,
              api_version: input.apiVersion,
              secret_ciphertext: deps.secretBox.seal(newSecret),
              connection,
              position: head,
              start_position: head,
              created_at: now,
              seen_at: now,
            },
            {
              max: config.LISTEN_MAX_STREAMS,
              liveAfter,
              staleBefore: new Date(now.getTime() - 2 * HEARTBEAT_MS),
            },
          );
          if ("full" in opened)
            throw tooManyStreams(`${config.LISTEN_MAX_STREAMS} listen sessions of this app are connected`);
          session = opened;
          topics = asked!;
        }
        const secret = newSecret ?? deps.secretBox.open(session.secret_ciphertext);
        const { raw, headers } = hijack();
        streams.bind(slot, session.id, raw);
        raw.on("close", () => slot.controller.abort());
        raw.writeHead(200, {
          ...headers,
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-store",
          "x-accel-buffering": "no",
        });
        raw.write(
          `retry: 2000\n${sse({
            id: `${session.id}.${session.position}`,
            event: "session",
            data: {
              sessionId: session.id,
              events: topics,
              resumed: newSecret === null,
              ...(newSecret ? { secret: newSecret } : {}),
            },
          })}`,
        );
        try {
          await stream({
            raw,
            session,
            secret,
            connection,
            slug: access.store.slug,
            topics,
            token,
            signal: slot.controller.signal,
          });
        } catch (error) {
          input.log.warn({ err: error }, "listen stream failed; the client resumes from its last id");
          if (!raw.writableEnded)
            raw.write(
              sse({
                event: "error",
                data: { message: "The stream failed; reconnect with Last-Event-ID." },
              }),
            );
        } finally {
          if (!raw.writableEnded) raw.end();
        }
      } finally {
        streams.release(slot);
        // One row: the session is free to resume (unless another connection took it).
        if (session)
          await repo.release(storeId, session.id, connection, clock.now()).catch((error: unknown) => {
            input.log.warn({ err: error }, "could not mark the listen session disconnected");
          });
      }
    },

    /**
     * Records a test event of `event` for this installation only, charged to its app first
     * (admitTestEvent), its data filled from the store's own records (test-events.ts).
     */
    async sendTestEvent(access: AccessContext, event: EventName): Promise<{ eventId: string }> {
      await deps.admitTestEvent(access, event);
      const sample = await deps.testEvents.sample(access.store.id, access.appId);
      const { resourceId, data } = testEventData(event, sample, { now: clock.now() });
      const { id: eventId } = await deps.db.transaction().execute((tx) =>
        deps.recordEvent(tx, {
          storeId: access.store.id,
          topic: event,
          resourceId,
          payload: data,
          installationId: access.installationId,
          test: true,
        }),
      );
      return { eventId };
    },
  };
}
export type ListenService = ReturnType<typeof createListenService>;
