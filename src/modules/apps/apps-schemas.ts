import Type, { type Static } from "typebox";
import {
  ApiVersionName,
  AppName,
  idPattern,
  MAX_REDIRECT_URIS,
  RedirectUri,
  SCOPE_NAMES,
  ScopeSchema,
  WebhookTargetUrl,
} from "../../contracts/index.ts";
import type { AppRow } from "../../db/schema.ts";
import { Body, Timestamp } from "../../lib/http/schemas.ts";
import { rollbackOf } from "../versions/pins.ts";

export const ClientId = Type.String({
  pattern: idPattern("clientId"),
  maxLength: 40,
  description: "The app's public client id.",
  examples: ["mpc_3kTMd9Qx2LwZ7bPq5RvY8nHa"],
});

export const PrivacyWebhookUrl = Type.String({
  ...WebhookTargetUrl,
  description:
    "Where the platform sends the privacy webhooks (`customer.redact`, `customer.data_request`, `shop.redact`) of every store the app is installed in: https only, and it must not resolve to a loopback, private, link-local or metadata address. Every app should have one; an app cannot subscribe to these events.",
  examples: ["https://app.example.com/webhooks/privacy"],
});

const PrivacySecret = Type.String({
  pattern: "^whsec_[A-Za-z0-9+/]+={0,2}$",
  maxLength: 100,
  description:
    "The signing secret of the privacy endpoint, shown only in this response (stored encrypted; if lost, rotate it). Deliveries to the privacy endpoint are signed with it exactly as a subscription's are with its secret: verify them with the SDK's `verifyWebhook` or any Standard Webhooks library.",
  examples: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/0rBtTSsk9A="],
});

export const CreateAppBody = Body({
  name: AppName,
  redirectUris: Type.Array(RedirectUri, { minItems: 1, maxItems: MAX_REDIRECT_URIS, uniqueItems: true }),
  scopes: Type.Array(ScopeSchema, {
    minItems: 1,
    maxItems: SCOPE_NAMES.length,
    uniqueItems: true,
    description: "The most the app may ask a merchant for. Ask for the least you need.",
  }),
  privacyWebhookUrl: Type.Optional(PrivacyWebhookUrl),
});

export const UpdateAppBody = Type.Object(
  {
    name: Type.Optional(AppName),
    redirectUris: Type.Optional(
      Type.Array(RedirectUri, { minItems: 1, maxItems: MAX_REDIRECT_URIS, uniqueItems: true }),
    ),
    scopes: Type.Optional(
      Type.Array(ScopeSchema, { minItems: 1, maxItems: SCOPE_NAMES.length, uniqueItems: true }),
    ),
    privacyWebhookUrl: Type.Optional(
      Type.Union([PrivacyWebhookUrl, Type.Null()], {
        description:
          "The privacy endpoint (see `privacyWebhookUrl` on the app), or null to remove it. Its secret is made the first time one is declared (and answered as `privacySecret`, once); changing the URL keeps it.",
      }),
    ),
    apiVersion: Type.Optional({
      ...ApiVersionName,
      description:
        "Raise the app's API version (its requests without `Api-Version`, and its new subscriptions, are served at it) to a newer one served now; or roll it back to the one before, within 72 hours of the change (`apiVersionRollback`). Anything else: 409. Subscriptions keep their own version.",
    }),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const AppResource = Type.Object(
  {
    clientId: ClientId,
    name: Type.String(),
    redirectUris: Type.Array(Type.String()),
    scopes: Type.Array(ScopeSchema),
    createdAt: Timestamp,
    secretRotatedAt: Type.Union([Timestamp, Type.Null()]),
    privacyWebhookUrl: Type.Union([PrivacyWebhookUrl, Type.Null()], {
      description:
        "Where the privacy webhooks go; null: none declared, so the app is sent none (it can still read `customer.redact` and `customer.data_request` in its event feed).",
    }),
    privacySecretRotatedAt: Type.Union([Timestamp, Type.Null()], {
      description: "When the privacy endpoint's secret was last rotated; null if never.",
    }),
    apiVersion: {
      ...ApiVersionName,
      description:
        "The API version the app is pinned to: its requests without `Api-Version` are served at it, and its new subscriptions take it. Set to the current version when the app is registered.",
    },
    apiVersionRollback: Type.Union(
      [Type.Object({ version: ApiVersionName, until: Timestamp }), Type.Null()],
      {
        description:
          "The version the pin may go back to, and until when (72 hours after it changed); null when none.",
      },
    ),
  },
  { title: "App" },
);

/** An app changed; with the privacy secret when this change declared its first privacy endpoint. */
export const AppWithPrivacySecret = Type.Object(
  {
    ...AppResource.properties,
    privacySecret: Type.Optional(PrivacySecret),
  },
  { title: "AppWithPrivacySecret" },
);

export const AppWithSecret = Type.Object(
  {
    ...AppResource.properties,
    clientSecret: Type.String({
      description: "Shown only in this response. Only its SHA-256 hash is stored; if lost, rotate it.",
      examples: ["mpcs_9fJ2kLmN4pQrS6tUvW8xYz0aBcDeFgHiJkLmNoPqRsT"],
    }),
    privacySecret: Type.Optional(PrivacySecret),
  },
  { title: "AppWithSecret" },
);

export const PrivacySecretResource = Type.Object(
  {
    clientId: ClientId,
    privacySecret: PrivacySecret,
    privacySecretRotatedAt: Timestamp,
    previousSecretExpiresAt: Type.String({
      format: "date-time",
      examples: ["2026-11-27T10:00:00.000Z"],
      description:
        "Until then deliveries' `webhook-signature` carries a signature with the previous secret too (after the new one's); `x-webhook-signature` uses the new secret at once.",
    }),
  },
  { title: "PrivacySecret" },
);

export const SecretResource = Type.Object({
  clientId: ClientId,
  clientSecret: Type.String({
    description: "The new secret, shown only here. The old one is refused from now on.",
  }),
  secretRotatedAt: Timestamp,
});

export function toAppResource(app: AppRow) {
  return {
    clientId: app.client_id,
    name: app.name,
    redirectUris: app.redirect_uris,
    scopes: app.scopes,
    createdAt: app.created_at.toISOString(),
    secretRotatedAt: app.secret_rotated_at ? app.secret_rotated_at.toISOString() : null,
    privacyWebhookUrl: app.privacy_webhook_url,
    privacySecretRotatedAt: app.privacy_secret_rotated_at
      ? app.privacy_secret_rotated_at.toISOString()
      : null,
    apiVersion: app.api_version,
    apiVersionRollback: rollbackView(app),
  };
}

function rollbackView(app: AppRow) {
  const rollback = rollbackOf({
    apiVersion: app.api_version,
    previous: app.api_version_previous,
    changedAt: app.api_version_changed_at,
  });
  return rollback ? { version: rollback.version, until: rollback.until.toISOString() } : null;
}

export type CreateAppInput = Static<typeof CreateAppBody>;
export type UpdateAppInput = Static<typeof UpdateAppBody>;
