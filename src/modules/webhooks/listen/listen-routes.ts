import type { ServerResponse } from "node:http";
import Type from "typebox";
import {
  EVENT,
  EVENT_BY_NAME,
  EVENT_NAMES,
  EVENT_PAYLOADS,
  EVENT_SCOPES,
  type EventName,
  ID_PREFIX,
  InstallationStatus,
  isEventName,
  Scope,
} from "../../../contracts/index.ts";
import type { Db } from "../../../db/client.ts";
import type { Clock } from "../../../lib/clock.ts";
import { randomBase62 } from "../../../lib/crypto.ts";
import { AppError, notFound } from "../../../lib/errors.ts";
import type { FeatureRoutes } from "../../../lib/http/feature-routes.ts";
import { exampleOf } from "../../../lib/http/openapi-examples.ts";
import { Body, Envelope, Id } from "../../../lib/http/schemas.ts";
import { newId, newSecretOf } from "../../../lib/ids.ts";
import type { SecretBox } from "../../../lib/secret-box.ts";
import { accessOf, adminRoute } from "../../admin-api/admin-family.ts";
import type { RecordEvent } from "../../events/events-repo.ts";
import type { AccessContext } from "../../oauth/token-service.ts";
import { webhookBody } from "../delivery/delivery-repo.ts";
import { signWebhook, webhookHeaders } from "../delivery/signing.ts";
import { requireEventScope } from "../event-scope.ts";
import { EventNameSchema } from "../webhooks-schemas.ts";
import type { ListenRepo, ListenSession } from "./listen-repo.ts";
import { createWakeups } from "./wakeups.ts";

/** A comment line this often keeps proxies from closing an idle stream, and tells the session it is alive. */
const HEARTBEAT_MS = 15_000;
/** Items streamed per read. */
const BATCH = 100;
/** The SSE id of the last item a client saw: `<session id>.<position>`. */
const LAST_EVENT_ID = new RegExp(`^(${ID_PREFIX.listenSession}_[0-9A-Za-z]{22})\\.(\\d{1,15})$`);

/** The events a stream carries: the ones asked for (all it may see by default), each within the scopes. */
function chooseEvents(asked: string | undefined, access: AccessContext): EventName[] {
  const allowed = (e: EventName) => {
    const needed = EVENT_SCOPES[e];
    return !needed || access.scopes.includes(needed);
  };
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

/** A test event's data: the event's documented shape with fresh ids and times (never a real record). */
function testPayload(event: EventName, now: Date): { id: string; data: unknown } {
  const data = exampleOf(JSON.parse(JSON.stringify(EVENT_PAYLOADS[EVENT_BY_NAME[event].data])), {}) as Record<
    string,
    unknown
  >;
  const stamp = now.toISOString();
  for (const key of ["createdAt", "updatedAt", "uninstalledAt"]) if (key in data) data[key] = stamp;
  const kind = event.split(/[./]/)[0] as "order" | "product" | "customer" | "app";
  const id = kind === "app" ? newId("installation") : newId(kind);
  if ("id" in data) data.id = id;
  return { id, data };
}

function sse(fields: { id?: string; event?: string; data?: unknown; comment?: string }): string {
  if (fields.comment !== undefined) return `: ${fields.comment}\n\n`;
  return `${fields.id !== undefined ? `id: ${fields.id}\n` : ""}${fields.event ? `event: ${fields.event}\n` : ""}data: ${JSON.stringify(fields.data)}\n\n`;
}

/**
 * Developer tooling on the Admin API: the event stream behind the CLI's `listen` (Server-Sent
 * Events: webhooks on localhost without a public HTTPS endpoint), and test events.
 */
export function listenRoutes(deps: {
  db: Db;
  repo: ListenRepo;
  clock: Clock;
  secretBox: SecretBox;
  recordEvent: RecordEvent;
  /** Calls `onEvent` when events commit; answers how to stop (webhooks/delivery/notifications.ts). */
  subscribeEvents(onEvent: () => void): Promise<() => Promise<void>>;
  /** Charges a test event to its app by what it fans out to; 429 past the budget (webhook-limits.ts). */
  admitTestEvent(access: AccessContext, event: EventName): Promise<void>;
}): FeatureRoutes {
  const { repo, clock } = deps;
  const tags = ["Admin API: webhooks"];
  const wakeups = createWakeups(deps.subscribeEvents);
  const open = new Set<ServerResponse>();

  /** Until the client has read what was written, it went, or a wake-up (shutdown included) came. */
  async function drainedOrWoken(raw: ServerResponse) {
    const stop = new AbortController();
    const drained = new Promise<void>((resolve) => {
      raw.once("drain", resolve);
      raw.once("close", resolve);
      stop.signal.addEventListener("abort", () => {
        raw.off("drain", resolve);
        raw.off("close", resolve);
      });
    });
    try {
      await Promise.race([drained, wakeups.wait(HEARTBEAT_MS, stop.signal)]);
    } finally {
      stop.abort(); // whichever came first, the other's listeners and timer go
    }
  }

  /** Streams a session's items until the client goes, another connection takes over, or it ends (uninstall). */
  async function stream(
    raw: ServerResponse,
    session: ListenSession,
    secret: string,
    connection: string,
    slug: string,
  ) {
    let closed = false;
    raw.on("close", () => {
      closed = true;
      wakeups.wakeAll();
    });
    /** The client went, or the server is shutting down. */
    const stopping = () => closed || wakeups.closed;
    let position = Number(session.sent);
    while (!stopping()) {
      const items = await repo.next(session.store_id, session.id, BATCH);
      if (stopping() || raw.writableEnded) break; // Gone or shut down meanwhile: those items stay queued.
      if (items.length) {
        let chunk = "";
        let ended = false;
        const marks: Array<{ seq: number; position: number }> = [];
        for (const item of items) {
          position++;
          const body = webhookBody(
            {
              id: item.event_id,
              topic: item.topic,
              created_at: item.created_at,
              payload: item.payload,
              test: item.test,
            },
            slug,
          );
          const ts = Math.floor(clock.now().getTime() / 1000);
          const headers = webhookHeaders({
            event: item.topic,
            deliveryId: item.id,
            attempt: 1,
            timestampSeconds: ts,
            signature: signWebhook(secret, ts, body),
            test: item.test,
          });
          chunk += sse({
            id: `${session.id}.${position}`,
            event: "webhook",
            data: { id: item.id, event: item.topic, headers, body },
          });
          marks.push({ seq: Number(item.seq), position });
          if (item.topic === EVENT.appUninstalled && !item.test) {
            ended = true;
            break;
          }
        }
        raw.write(chunk);
        if (!(await repo.markSent(session.store_id, session.id, connection, marks, clock.now())))
          return "superseded";
        // A client that stopped reading holds the rest in the queue, not in this process's memory.
        while (raw.writableNeedDrain && !stopping()) await drainedOrWoken(raw);
        if (ended) {
          raw.write(sse({ event: "end", data: { reason: InstallationStatus.uninstalled } }));
          return InstallationStatus.uninstalled;
        }
        continue;
      }
      const woken = await wakeups.wait(HEARTBEAT_MS);
      if (stopping()) break;
      if (!woken) {
        raw.write(sse({ comment: "ping" }));
        if (!(await repo.markSent(session.store_id, session.id, connection, [], clock.now())))
          return "superseded";
        const current = await repo.get(session.store_id, session.id);
        if (!current || current.stopped_at) {
          raw.write(sse({ event: "end", data: { reason: InstallationStatus.uninstalled } }));
          return InstallationStatus.uninstalled;
        }
      }
    }
    return "closed";
  }

  return {
    admin(app) {
      // A stream is a long request: end them all before the server closes, so shutdown never waits on one.
      app.addHook("preClose", async () => {
        for (const raw of open) raw.end();
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
            "For local development (the CLI's `listen`): while connected, every event of the installation's store that it may see is streamed as it commits, with the exact headers and body a delivery would have, signed with this stream's own secret. Forward `body` with `headers` to your local endpoint and its verification code runs unchanged.",
            "",
            'Messages: first `event: session` with `{ sessionId, events, resumed, secret }` (`secret` only when the session is new: keep it); then `event: webhook` with `{ id, event, headers, body }` per event; `: ping` comments every 15 s; `event: end` with `{ reason: "uninstalled" }` after `app/uninstalled`, and the stream closes.',
            "",
            "Reconnect with the `Last-Event-ID` header (the last `id:` received, `<sessionId>.<n>`): everything after it is streamed again, including events that happened while disconnected (a session is kept 24 hours after its last connection). A newer connection to the same session takes it over. `events` narrows what is streamed (comma-separated names; each within the token's scopes); `app/uninstalled` is always included.",
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
          const events = chooseEvents(request.query.events, access);
          const now = clock.now();
          const connection = randomBase62(16);
          let session: ListenSession | null;
          let newSecret: string | null = null;
          const last = request.headers["last-event-id"];
          if (last) {
            const match = LAST_EVENT_ID.exec(last);
            if (!match)
              throw new AppError("VALIDATION_FAILED", {
                message: "Last-Event-ID must be an id this stream sent (`<sessionId>.<n>`).",
                details: [{ field: "last-event-id", message: "is not a stream position" }],
              });
            session = await repo.resume(
              access.store.id,
              access.installationId,
              match[1]!,
              Number(match[2]),
              connection,
              now,
            );
            if (!session) throw notFound("Listen session");
          } else {
            newSecret = newSecretOf("webhookSecret");
            session = {
              store_id: access.store.id,
              id: newId("listenSession"),
              installation_id: access.installationId,
              app_id: access.appId,
              events,
              secret_ciphertext: deps.secretBox.seal(newSecret),
              connection,
              sent: 0,
              created_at: now,
              seen_at: now,
              stopped_at: null,
            };
            await repo.create(session);
          }
          const secret = newSecret ?? deps.secretBox.open(session.secret_ciphertext);
          reply.hijack();
          const raw = reply.raw;
          raw.writeHead(200, {
            ...(reply.getHeaders() as Record<string, string>),
            "content-type": "text/event-stream; charset=utf-8",
            "cache-control": "no-store",
            "x-accel-buffering": "no",
          });
          raw.write(
            `retry: 2000\n${sse({
              id: `${session.id}.${session.sent}`,
              event: "session",
              data: {
                sessionId: session.id,
                events: session.events,
                resumed: newSecret === null,
                ...(newSecret ? { secret: newSecret } : {}),
              },
            })}`,
          );
          open.add(raw);
          try {
            await stream(raw, session, secret, connection, access.store.slug);
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
            open.delete(raw);
            if (!raw.writableEnded) raw.end();
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
            "Records an event of the given type for this installation only, with the event's documented shape (fresh ids and times, no real record behind it). It is delivered by the normal engine to this installation's subscriptions of that event and to its `listen` streams, marked as a test: `\"test\": true` in the body and `x-webhook-test: true` on each attempt. Needs the event's own scope too. A test `app/uninstalled` does not end streams. Each test event is charged to the app by what it fans out to (its subscriptions of the event plus its live `listen` sessions carrying it, at least 1): 60 per minute by default; past it 429 `RATE_LIMITED` with `Retry-After`.",
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
          const { id, data } = testPayload(event, clock.now());
          const eventId = await deps.db.transaction().execute((tx) =>
            deps.recordEvent(tx, {
              storeId: access.store.id,
              topic: event,
              resourceId: id,
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
