import Type, { type Static } from "typebox";
import {
  ApiVersionName,
  DateTimeInput,
  EVENT_BY_NAME,
  EVENT_NAMES,
  EVENT_PAYLOADS,
  EVENT_SCOPES,
  Id,
  isPrivacyEvent,
  PRIVACY_EVENT_NAMES,
  SUBSCRIBABLE_EVENT_NAMES,
  SubscriptionFields,
  SubscriptionFilter,
  SubscriptionStatusSchema,
  WebhookTargetUrl,
} from "../../contracts/index.ts";
import { durationInWords } from "../../lib/duration-words.ts";
import { Body, Timestamp } from "../../lib/http/schemas.ts";
import { MAX_RETRY_AFTER_MS } from "./delivery/retry-policy.ts";

export const EventNameSchema = Type.Enum(EVENT_NAMES, {
  type: "string",
  description: `One of the platform's event names. Scope needed: ${Object.entries(EVENT_SCOPES)
    .map(([e, s]) => `\`${e}\` ${s ?? "none"}`)
    .join(", ")}.`,
});

/** What a subscription may name: every event but the privacy events, which go to the app's privacy endpoint. */
export const SubscribableEventNameSchema = Type.Enum(SUBSCRIBABLE_EVENT_NAMES, {
  type: "string",
  description: `One of the platform's event names. Scope needed: ${SUBSCRIBABLE_EVENT_NAMES.map(
    (e) => `\`${e}\` ${EVENT_SCOPES[e] ?? "none"}`,
  ).join(", ")}. The privacy events (${PRIVACY_EVENT_NAMES.map((e) => `\`${e}\``).join(
    ", ",
  )}) are not subscribed to: every app receives them at the privacy endpoint of its registration.`,
});

export const SubscriptionId = Id("subscription");

export const CreateSubscriptionBody = Body({
  eventName: SubscribableEventNameSchema,
  targetUrl: WebhookTargetUrl,
  filter: Type.Optional(SubscriptionFilter),
  fields: Type.Optional(SubscriptionFields),
  apiVersion: Type.Optional({
    ...ApiVersionName,
    description:
      "The API version its deliveries are rendered at (the `data` of each body, and `Api-Version`): a version served now. Default: the app's pinned version.",
  }),
});

/** What a subscription's owner may change in place. */
export const UpdateSubscriptionBody = Body({
  apiVersion: {
    ...ApiVersionName,
    description:
      "Render its deliveries at this version from now on: a version served now. Deliveries already made keep the version they were rendered at; a redelivery or recover renders at the new one.",
  },
});

const subscriptionFields = {
  id: SubscriptionId,
  eventName: SubscribableEventNameSchema,
  targetUrl: WebhookTargetUrl,
  status: SubscriptionStatusSchema,
  disabledAt: Type.Union([Timestamp, Type.Null()], {
    description: "When the platform disabled it; null while active.",
  }),
  disabledReason: Type.Union([Type.String(), Type.Null()], {
    description:
      "Why: the last error (`HTTP 410 Gone`, `HTTP 503 Service Unavailable`, `network: ECONNREFUSED`, …); null while active.",
    examples: ["HTTP 410 Gone"],
  }),
  failingSince: Type.Union([Timestamp, Type.Null()], {
    description:
      "When its current unbroken run of failed attempts began (a success ends it; it is disabled once the run has lasted `WEBHOOK_DISABLE_AFTER_SECONDS`, 5 days by default); null when its last attempt succeeded, or since it was enabled. Recovering from here sends everything that run missed.",
  }),
  createdAt: Timestamp,
  secretRotatedAt: Type.Union([Timestamp, Type.Null()], {
    description: "When the signing secret was last rotated (`POST /webhooks/{id}/secret`); null if never.",
  }),
  apiVersion: {
    ...ApiVersionName,
    description:
      "The API version its deliveries are rendered at (the body's `data`, `apiVersion` and the `Api-Version` header): the app's pin when it was made, unless another was asked for.",
  },
  filter: Type.Union([SubscriptionFilter, Type.Null()], {
    description:
      "Only events whose `data` matches it make a delivery (see `filter` of `adminCreateWebhook`); null: every event of `eventName`.",
    examples: ["status:paid AND total:>100"],
  }),
  fields: Type.Union([SubscriptionFields, Type.Null()], {
    description:
      "The fields of `data` its deliveries carry, `id` always (see `fields` of `adminCreateWebhook`); null: the whole of `data`.",
    examples: [["status", "total", "currency"]],
  }),
};

export const SubscriptionResource = Type.Object(subscriptionFields, { title: "WebhookSubscription" });

/** How a receiver uses a subscription or listen-session secret: said once, in every place that returns one. */
export const SECRET_USE =
  "Verify either signature family. `webhook-signature` is Standard Webhooks: pass this string as it is to a stock verifier (`new Webhook(secret).verify(rawBody, headers)` of the npm packages `standardwebhooks` or `svix`); its HMAC key is the base64-decoded part after `whsec_`. `x-webhook-signature` is the platform's own signature: lowercase hex HMAC-SHA256 of `<x-webhook-timestamp>.<raw body>` keyed with this whole string (UTF-8), compared in constant time. A secret issued before Standard Webhooks support (`whsec_` + 43 letters and digits) keeps working with both signatures and with the JavaScript libraries; Python's and Go's libraries need padded base64: rotate it once to use them.";

const Secret = Type.String({
  minLength: 10,
  maxLength: 100,
  pattern: "^whsec_[A-Za-z0-9+/]+={0,2}$",
  description: `The signing secret: \`whsec_\` + base64 of 32 random bytes. Shown only in this response; store it now. ${SECRET_USE}`,
  examples: ["whsec_ZoAfSt3qrb8b38w+HDb1I7VjfQ2SdhXwP1qtFsLB9ic="],
});

export const SubscriptionWithSecret = Type.Object(
  { ...subscriptionFields, secret: Secret },
  { title: "WebhookSubscriptionWithSecret" },
);

export const SecretRotation = Type.Object(
  {
    id: SubscriptionId,
    secret: Secret,
    secretRotatedAt: Type.String({
      format: "date-time",
      examples: ["2026-11-22T10:00:00.000Z"],
      description: "Now: the new secret is in force.",
    }),
    previousSecretExpiresAt: Type.String({
      format: "date-time",
      examples: ["2026-11-23T10:00:00.000Z"],
      description:
        "Until then every delivery's `webhook-signature` also carries a signature with the previous secret (after the new one's), so a receiver holding either verifies; after it, only the new secret signs. `x-webhook-signature` is made with the new secret from the rotation on.",
    }),
  },
  { title: "WebhookSecretRotation" },
);

/** What recover takes: a window of delivery creation times. */
export const RecoverBody = Body(
  {
    since: DateTimeInput("Recover deliveries created at or after this instant."),
    until: Type.Optional(DateTimeInput("… and before this one (default: now). Must be after `since`.")),
  },
  {
    description:
      "Every delivery of the subscription created in [since, until) whose final state is `failed` or `skipped` (an event it missed while disabled) is sent once more, under its original `x-webhook-id`.",
  },
);

/** The dashboard's recover: over every subscription of the app, or one. */
export const AppRecoverBody = Body(
  {
    ...RecoverBody.properties,
    subscriptionId: Type.Optional(SubscriptionId),
  },
  {
    description:
      "Without `subscriptionId`, every active subscription of the app, in every store, is recovered for the window.",
  },
);

/** A subscription as the app's developer sees it in the dashboard: with its store. */
export const AppSubscriptionResource = Type.Object(
  { ...subscriptionFields, storeSlug: Type.String() },
  { title: "AppWebhookSubscription" },
);

export const RecoverResult = Type.Object(
  {
    queued: Type.Integer({
      minimum: 0,
      description:
        "Deliveries queued again now: each a new delivery (`redeliveryOf` names the one it recovers) attempted at once with the usual retries, `x-webhook-attempt` from 1.",
      examples: [5],
    }),
    since: Timestamp,
    until: Timestamp,
  },
  { title: "WebhookRecovery" },
);

export const EnableBody = Body(
  {
    recoverSince: Type.Optional(
      DateTimeInput(
        "Also recover, as `POST /webhooks/{id}/recover` with `since` this and `until` now: the deliveries that failed and the events skipped while it was disabled.",
      ),
    ),
  },
  { description: "An empty object enables without recovering." },
);

export const EnableResult = Type.Object(
  {
    subscription: SubscriptionResource,
    queued: Type.Integer({
      minimum: 0,
      description: "Deliveries recovered (0 without `recoverSince`).",
      examples: [12],
    }),
  },
  { title: "WebhookEnabled" },
);

const DELIVERY_HEADERS = {
  "x-webhook-event": { description: "The event name.", schema: { type: "string" } },
  "x-webhook-timestamp": {
    description: "Unix seconds; signed together with the body.",
    schema: { type: "string" },
  },
  "x-webhook-signature": {
    description:
      "The platform's own signature: lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed with the subscription secret as returned (the whole `whsec_…` string). After a rotation it is made with the new secret at once.",
    schema: { type: "string" },
  },
  "x-webhook-id": {
    description:
      "The delivery id (one per event and subscription; a redelivery has its own), the same on every attempt; a recovered delivery (`POST /webhooks/{id}/recover`) keeps the id of the delivery it recovers. Not signed here (it is in `webhook-signature`): for logs and support. Drop duplicates by the body's `id` (the event id, signed).",
    schema: { type: "string" },
  },
  "x-webhook-attempt": {
    description: "1 for the first attempt, then 2, 3, … up to 8 (from 1 again for a recovered delivery).",
    schema: { type: "string" },
  },
  "x-webhook-test": {
    required: false,
    description:
      "`true` on a test event's deliveries (`POST /api/v1/apps/api/webhooks/test`); absent otherwise. Not signed: decide by the body's `test`, which is.",
    schema: { type: "string", enum: ["true"] },
  },
  "api-version": {
    description:
      "The API version the body's `data` is rendered at (also the body's `apiVersion`, which is signed: decide by that).",
    schema: { type: "string", examples: ["2026-11-28"] },
  },
  "webhook-id": {
    description:
      "Standard Webhooks: the same value as `x-webhook-id` (the same on every attempt), signed in `webhook-signature`.",
    schema: { type: "string" },
  },
  "webhook-timestamp": {
    description: "Standard Webhooks: Unix seconds, the same value as `x-webhook-timestamp`.",
    schema: { type: "string" },
  },
  "webhook-signature": {
    description:
      "Standard Webhooks: `v1,<base64 HMAC-SHA256 of \"<webhook-id>.<webhook-timestamp>.<raw body>\">`, keyed with the base64-decoded part of the secret after `whsec_`. For `WEBHOOK_SECRET_OVERLAP_SECONDS` (24 hours by default) after a rotation, two space-separated signatures: the new secret's, then the previous one's. Stock verifiers (`standardwebhooks`, `svix`) check it given the secret string as returned, and refuse timestamps more than 5 minutes away.",
    schema: { type: "string", examples: ["v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="] },
  },
};

/** The component name of an event's body: `order.created` -> `OrderCreatedEvent`, for generated types. */
export function eventTypeName(name: string): string {
  return `${name
    .split(/[./_]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("")}Event`;
}

/** The OpenAPI 3.1 `webhooks` section: one entry per event with its body and delivery headers. */
export function webhooksDocument(settings: {
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  disableAfterMs: number;
}): Record<string, unknown> {
  const retried = `${settings.maxAttempts} attempts, ${durationInWords(settings.retryBaseMs)} doubling`;
  const out: Record<string, unknown> = {};
  for (const name of EVENT_NAMES) {
    const body = Type.Object(
      {
        id: Type.String({
          description:
            "The event id: the same on every attempt and redelivery, and for every subscription that receives the event. Signed: drop duplicates by it.",
        }),
        event: Type.Literal(name),
        apiVersion: {
          ...ApiVersionName,
          description:
            "The API version `data` is rendered at: the subscription's (`apiVersion` of the subscription; a privacy webhook's and a listen stream's, the app's). The same as the `Api-Version` header. Signed.",
        },
        createdAt: Timestamp,
        sequence: Type.Integer({
          description:
            "Strictly increasing across the events of one resource (an order's `order.paid` has a higher one than its `order.created`): keep the last one applied per resource and drop an event with a lower one, which arrived late. Not contiguous; not comparable across resources for anything but that.",
        }),
        store: Type.Object({ slug: Type.String() }),
        data: EVENT_PAYLOADS[EVENT_BY_NAME[name].data],
        test: Type.Optional(
          Type.Literal(true, {
            description:
              "Present on test events only: no real change happened in the store. Signed (unlike `x-webhook-test`): decide by this.",
          }),
        ),
      },
      { title: eventTypeName(name) },
    );
    out[name] = {
      post: {
        summary: `${name}`,
        // What code generators name the receiver's handler (`receiveOrderCreatedEvent`).
        operationId: `receive${eventTypeName(name)}`,
        // Sent by the platform to the app: the signature headers authenticate it, not a scheme.
        security: [],
        description: `${
          isPrivacyEvent(name)
            ? `Not subscribed to: sent to the privacy endpoint of the app's registration (\`privacyWebhookUrl\`), signed with the app's privacy secret (the same headers and signatures as every delivery). ${EVENT_BY_NAME[name].summary}`
            : `Sent to subscriptions of \`${name}\`${EVENT_SCOPES[name] ? ` (scope \`${EVENT_SCOPES[name]}\`)` : ""}.`
        } Answer 2xx within ${durationInWords(settings.timeoutMs)}. 5xx, 408, 429 and network errors are retried (${retried}; a 429 or 503 with \`Retry-After\` delays the next attempt at least that long, at most ${durationInWords(MAX_RETRY_AFTER_MS)}); other statuses are final; redirects are not followed. ${
          isPrivacyEvent(name)
            ? "A privacy endpoint is never disabled: every privacy event gets its attempts."
            : `410 Gone disables the subscription at once; so do failures without a success for ${durationInWords(settings.disableAfterMs)} (\`webhook.disabled\` is sent). A subscription with a \`filter\` receives only the events whose \`data\` matches it; one with \`fields\` receives only those fields of \`data\` (and \`id\`): the others are absent from the body, and the signatures cover the body as sent.`
        }`,
        parameters: Object.entries(DELIVERY_HEADERS).map(([name, h]) => ({
          in: "header",
          name,
          required: true,
          ...h,
        })),
        requestBody: {
          required: true,
          content: { "application/json": { schema: JSON.parse(JSON.stringify(body)) } },
        },
        responses: { "200": { description: "Received." } },
      },
    };
  }
  return out;
}

export type CreateSubscriptionInput = Static<typeof CreateSubscriptionBody>;
export type RecoverInput = Static<typeof RecoverBody>;
export type AppRecoverInput = Static<typeof AppRecoverBody>;
export type EnableInput = Static<typeof EnableBody>;
