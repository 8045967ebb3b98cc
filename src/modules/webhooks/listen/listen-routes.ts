import Type from "typebox";
import { LISTEN_END_REASONS, LISTEN_RESUME_WINDOW, Scope } from "../../../contracts/index.ts";
import type { FeatureRoutes } from "../../../lib/http/feature-routes.ts";
import { Body, Envelope, Id } from "../../../lib/http/schemas.ts";
import { requireEventScope } from "../../events/event-scope.ts";
import { accessOf, adminRoute, bearerToken } from "../../families/admin-family.ts";
import { EventNameSchema } from "../webhooks-schemas.ts";
import { createListenService, type ListenServiceDeps } from "./listen-service.ts";
import { HEARTBEAT_MS } from "./listen-stream.ts";

/**
 * Developer tooling on the Admin API: the event stream behind the CLI's `listen` (Server-Sent
 * Events: webhooks on localhost without a public HTTPS endpoint), and test events.
 */
export function listenRoutes(deps: ListenServiceDeps): FeatureRoutes {
  const { config } = deps;
  const tags = ["Admin API: webhooks"];
  const listen = createListenService(deps);

  return {
    admin(app) {
      // A stream is a long request: end them all before the server closes, so shutdown never waits on one.
      app.addHook("preClose", () => listen.close());

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
            `Reconnect with the \`Last-Event-ID\` header (the last \`id:\` received, \`<sessionId>.<n>\`): everything after it is streamed, including events that happened while disconnected; a session can be resumed for ${config.LISTEN_SESSION_IDLE_SECONDS} s after its connection ended, and a resume goes back at most ${LISTEN_RESUME_WINDOW} store events before what the session had streamed. A newer connection to the same session takes it over. The events are the session's, within the scopes of the token presented now. \`events\` narrows what a new session streams (comma-separated names; each within the token's scopes); \`app/uninstalled\` is always included.`,
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
        (request, reply) =>
          listen.stream(
            {
              access: accessOf(request),
              // The guard has read it; the stream checks it again before every write.
              token: bearerToken(request)!,
              lastEventId: request.headers["last-event-id"],
              events: request.query.events,
              // A new session streams at the version of this request (its Api-Version, or the app's pin).
              apiVersion: request.apiVersion!,
              log: request.log,
            },
            () => {
              reply.hijack();
              return { raw: reply.raw, headers: reply.getHeaders() as Record<string, string> };
            },
          ),
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
          const event = request.body.event;
          const { eventId } = await listen.sendTestEvent(accessOf(request), event);
          return reply
            .status(202)
            .send({ success: true as const, data: { eventId, event, test: true as const } });
        },
      );
    },
  };
}
