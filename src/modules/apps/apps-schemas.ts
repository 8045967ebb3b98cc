import Type from "typebox";
import {
  AppName,
  idPattern,
  MAX_REDIRECT_URIS,
  RedirectUri,
  SCOPE_NAMES,
  ScopeSchema,
} from "../../contracts/index.ts";
import type { AppRow } from "../../db/schema.ts";
import { Body, Timestamp } from "../../lib/http/schemas.ts";

export const ClientId = Type.String({
  pattern: idPattern("clientId"),
  maxLength: 40,
  description: "The app's public client id.",
  examples: ["mpc_3kTMd9Qx2LwZ7bPq5RvY8nHa"],
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
  },
  { title: "App" },
);

export const AppWithSecret = Type.Object(
  {
    ...AppResource.properties,
    clientSecret: Type.String({
      description: "Shown only in this response. Only its SHA-256 hash is stored; if lost, rotate it.",
      examples: ["mpcs_9fJ2kLmN4pQrS6tUvW8xYz0aBcDeFgHiJkLmNoPqRsT"],
    }),
  },
  { title: "AppWithSecret" },
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
  };
}
