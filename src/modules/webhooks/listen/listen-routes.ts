import Type from "typebox";
import type { Config } from "../../../config.ts";
import {
  EVENT,
  EVENT_NAMES,
  EVENT_SCOPES,
  type EventName,
  ID_PREFIX,
  isEventName,
  LISTEN_END_REASONS,
  Scope,
} from "../../../contracts/index.ts";
import type { Db } from "../../../db/client.ts";
import type { Clock } from "../../../lib/clock.ts";
import { randomBase62 } from "../../../lib/crypto.ts";
import { AppError } from "../../../lib/errors.ts";
import type { FeatureRoutes } from "../../../lib/http/feature-routes.ts";
import { Body, Envelope, Id } from "../../../lib/http/schemas.ts";
import { newId, newWebhookSecret } from "../../../lib/ids.ts";
import type { SecretBox } from "../../../lib/secret-box.ts";
import { accessOf, adminRoute, bearerToken } from "../../admin-api/admin-family.ts";
import type { RecordEvent } from "../../events/events-repo.ts";
import type { FeedRepo, FeedSequencer } from "../../events/feed-repo.ts";
import type { AccessContext } from "../../oauth/token-service.ts";
import { requireEventScope } from "../event-scope.ts";
import { EventNameSchema } from "../webhooks-schemas.ts";
import type { ListenRepo, ListenSession } from "./listen-repo.ts";
import { createListenStreamer, HEARTBEAT_MS, sse } from "./listen-stream.ts";
import { createStreamRegistry } from "./stream-registry.ts";
import { testEventData } from "./test-events.ts";
import type { TestEventRepo } from "./test-events-repo.ts";
import { createWakeups } from "./wakeups.ts";

/** The SSE id of the last item a client saw: `<session id>.<feed position>`. */
const LAST_EVENT_ID = new RegExp(`^(${ID_PREFIX.listenSession}_[0-9A-Za-z]{22})\\.(\\d{1,15})$`);
/**
 * How far back a resume may go: the store's last RESUME_WINDOW feed positions before what the
 * session had streamed. A client resumes from the last item it received, which is at most what
 * was still in its socket behind it; anything further back (`<session>.0`) would stream again
 * what it already had, at every request.
 */
const RESUME_WINDOW = 1000;

/** Whether a token with `scopes` may see `event` (app/uninstalled needs none). */
function mayStream(event: EventName, scopes: readonly string[]): boolean {
  const needed = EVENT_SCOPES[event];
  return !needed || scopes.includes(needed);
}

/** The 429 past the listen bounds; the Retry-After is when a vanished connection stops counting. */
function tooManyStreams(what: string): AppError {
  return new AppError("RATE_LIMITED", {
    message: `Too many listen streams: ${what}. Close one, or resume its session with Last-Event-ID.`,
    headers: { "retry-after": String((2 * HEARTBEAT_MS) / 1000) },
  });
}

/** The events a stream carries: the ones asked for (all it may see by default), each within the scopes. */
function chooseEvents(asked: string | undefined, access: AccessContext): EventName[] {
  const allowed = (e: EventName) => mayStream(e, access.scopes);
  if (!asked) return EVENT_NAMES.filter(allowed);
  const names = [
    ...new Set(
      asked
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = names.filter((n) => !isEventName(n));
  if (unknown.length || !names.length)
    throw new AppError("VALIDATION_FAILED", {
      message: "`events` must be a comma-separated list of event names.",
      details: [{ field: "events", message: `unknown event: ${unknown.join(", ") || "(none given)"}` }],
    });
  for (const name of names as EventName[]) {
    if (!allowed(name))
      throw new AppError("INSUFFICIENT_SCOPE", {
        message: `Streaming ${name} needs the ${EVENT_SCOPES[name]} scope.`,
        details: { requiredScope: EVENT_SCOPES[name], grantedScopes: access.scopes },
      });
  }
  // app/uninstalled always: it is how a stream learns that it has ended.
  return [...new Set<EventName>([...(names as EventName[]), EVENT.appUninstalled])];
}

/**
 * Developer tooling on the Admin API: the event stream behind the CLI's `listen` (Server-Sent
 * Events: webhooks on localhost without a public HTTPS endpoint), and test events.
 */
export function listenRoutes(deps: {
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
}): FeatureRoutes {
  const { repo, clock, config } = deps;
  const tags = ["Admin API: webhooks"];
  const wakeups = createWakeups(deps.subscribeEvents);
  const stream = createListenStreamer({
    feed: deps.feed,
    sequencer: deps.sequencer,
    repo,
    wakeups,
    clock,
    tokenExpiry: async (token) => (await deps.authenticate(token)).expiresAt,
  });
  const streams = createStreamRegistry(config.LISTEN_MAX_STREAMS);
  const idleMs = config.LISTEN_SESSION_IDLE_SECONDS * 1000;

  return {
    admin(app) {
      // A stream is a long request: end them all before the server closes, so shutdown never waits on one.
      app.addHook("preClose", async () => {
        streams.closeAll();
        await wakeups.close();
      });

      app.get(
        "/webhooks/stream",
        adminRoute({
          operationId: "adminStreamWebhooks",
          scope: Scope.manage_webhooks,
          tags,
          summary: "Stream this installation's events as signed webhooks (Server-Sent Events)",
          description: [
            "For local development (the CLI's `listen`): while connected, every event of the installation's store that it may see is streamed as it commits, with the exact headers and body a delivery would have, signed with this stream's own secret (`whsec_<base64>`, both signature families: the platform's `x-webhook-signature` and Standard Webhooks' `webhook-signature`, so the SDK and stock Standard Webhooks verifiers take it as sent). Forward `body` with `headers` to your local endpoint and its verification code runs unchanged.",
            "",
            `Messages: first \`event: session\` with \`{ sessionId, events, resumed, secret }\` (\`secret\` only when the session is new: keep it); then \`event: webhook\` with \`{ id, event, headers, body }\` per event; \`: ping\` comments every ${HEARTBEAT_MS / 1000} s; \`event: end\` with \`{ reason }\` when the stream is over (do not reconnect with this session), and the stream closes. Reasons: ${Object.entries(
              LISTEN_END_REASONS,
            )
              .map(([reason, { label }]) => `\`${reason}\` (${label})`)
              .join("; ")}.`,
            "",
            `Reconnect with the \`Last-Event-ID\` header (the last \`id:\` received, \`<sessionId>.<n>\`): everything after it is streamed, including events that happened while disconnected; a session can be resumed for ${config.LISTEN_SESSION_IDLE_SECONDS} s after its connection ended, and a resume goes back at most ${RESUME_WINDOW} store events before what the session had streamed. A newer connection to the same session takes it over. The events are the session's, within the scopes of the token presented now. \`events\` narrows what a new session streams (comma-separated names; each within the token's scopes); \`app/uninstalled\` is always included.`,
            "",
            `Bounds: ${config.LISTEN_MAX_STREAMS} live sessions per installation (connected, or resumable); opening another stops the one disconnected longest, or answers 429 with \`Retry-After\` when all are connected. The token is checked again before everything the stream sends: once it is revoked or expires, the stream ends (at the latest at its next heartbeat).`,
          ].join("\n"),
          querystring: Type.Object(
            {
              events: Type.Optional(
                Type.String({
                  maxLength: 1000,
                  description:
                    "Comma-separated event names, e.g. `order.created,order.paid`. Default: every event the token's scopes allow.",
                }),
              ),
            },
            { additionalProperties: false },
          ),
          headers: Type.Object({
            "last-event-id": Type.Optional(
              Type.String({
                maxLength: 100,
                description: "Resume: the last SSE id received (`<sessionId>.<n>`).",
              }),
            ),
          }),
          response: {
            200: Type.Unsafe<string>({
              description: "`text/event-stream`: the session, then one message per event.",
              content: { "text/event-stream": { schema: { type: "string" } } },
            }),
          },
          errors: ["NOT_FOUND"],
        }),
        async (request, reply) => {
          const access = accessOf(request);
          // The guard has read it; the stream checks it again before every write.
          const token = bearerToken(request)!;
          const storeId = access.store.id;
          const now = clock.now();
          const last = request.headers["last-event-id"];
          const match = last ? LAST_EVENT_ID.exec(last) : null;
          if (last && !match)
            throw new AppError("VALIDATION_FAILED", {
              message: "Last-Event-ID must be an id this stream sent (`<sessionId>.<n>`).",
              details: [{ field: "last-event-id", message: "is not a stream position" }],
            });
          const asked = match ? null : chooseEvents(request.query.events, access);
          // Reserved before anything else, so a burst is counted one request at a time.
          const slot = streams.reserve(access.installationId, match?.[1] ?? null);
          if (!slot)
            throw tooManyStreams(`${streams.max} listen streams of this app are open on this server`);
          let session: ListenSession | null = null;
          const connection = randomBase62(16);
          try {
            let newSecret: string | null = null;
            let topics: EventName[];
            const liveAfter = new Date(now.getTime() - idleMs);
            if (match) {
              const from = Number(match[2]);
              session = await repo.resume({
                storeId,
                installationId: access.installationId,
                sessionId: match[1]!,
                // Never before where the session began, never more than RESUME_WINDOW back, never
                // past what it streamed.
                position: (s) =>
                  Math.min(
                    Number(s.position),
                    Math.max(from, Number(s.start_position), Number(s.position) - RESUME_WINDOW),
                  ),
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
              topics = (session.events as EventName[]).filter((e) => mayStream(e, access.scopes));
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
                throw tooManyStreams(
                  `${config.LISTEN_MAX_STREAMS} listen sessions of this app are connected`,
                );
              session = opened;
              topics = asked!;
            }
            const secret = newSecret ?? deps.secretBox.open(session.secret_ciphertext);
            reply.hijack();
            const raw = reply.raw;
            streams.bind(slot, session.id, raw);
            raw.on("close", () => slot.controller.abort());
            raw.writeHead(200, {
              ...(reply.getHeaders() as Record<string, string>),
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
              request.log.warn({ err: error }, "listen stream failed; the client resumes from its last id");
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
                request.log.warn({ err: error }, "could not mark the listen session disconnected");
              });
          }
        },
      );

      app.post(
        "/webhooks/test",
        adminRoute({
          operationId: "adminTriggerTestEvent",
          scope: Scope.manage_webhooks,
          tags,
          summary: "Send a test event to this installation's subscriptions and streams",
          description:
            "Records an event of the given type for this installation only. Its `data` has exactly the event's payload schema, filled to look like this store's own records, with no real record behind it: an order is in the store's currency, with line items taken from the store's products (titles, SKUs, prices; plausible ones when it has none), totals that add up, the status the event implies and a number above any the store has given (at least 1,000 above, so no real order has or soon takes it); a customer is a made-up person with an example.com address; every id is fresh and every time the current one. It is delivered by the normal engine to this installation's subscriptions of that event and to its `listen` streams, marked as a test: `\"test\": true` in the body and `x-webhook-test: true` on each attempt. Needs the event's own scope too. A test `app/uninstalled` does not end streams. Each test event is charged to the app by what it fans out to (its subscriptions of the event plus its live `listen` sessions carrying it, at least 1): 60 per minute by default; past it 429 `RATE_LIMITED` with `Retry-After`.",
          body: Body({ event: EventNameSchema }),
          authorize: (request) => requireEventScope(accessOf(request).scopes, request.body.event, "A test"),
          response: {
            202: Envelope(
              Type.Object({
                eventId: Id("event"),
                event: EventNameSchema,
                test: Type.Literal(true),
              }),
              "Queued for delivery",
            ),
          },
        }),
        async (request, reply) => {
          const access = accessOf(request);
          const event = request.body.event;
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
          return reply
            .status(202)
            .send({ success: true as const, data: { eventId, event, test: true as const } });
        },
      );
    },
  };
}
