import Type, { type Static } from "typebox";
import {
  ApiVersionName,
  DateTimeInput,
  idPattern,
  KEY_SCOPE_NAMES,
  KeyName,
  type KeyScope,
  KeyScopeSchema,
  Scope,
} from "../../contracts/index.ts";
import type { ApiKey } from "../../db/schema.ts";
import { Body, Timestamp } from "../../lib/http/schemas.ts";

export { KEY_SCOPE_NAMES, type KeyScope, KeyScopeSchema };

export const KeyId = Type.String({
  pattern: idPattern("apiKey"),
  maxLength: 40,
  examples: ["mpk_7Hd2Kq9LmX4Np6Rt8Vw1Yz3B"],
});

export const CreateApiKeyBody = Body({
  name: KeyName,
  scopes: Type.Array(KeyScopeSchema, {
    minItems: 1,
    maxItems: KEY_SCOPE_NAMES.length,
    uniqueItems: true,
    examples: [[Scope.read_products]],
  }),
  expiresAt: Type.Optional(
    DateTimeInput("Optional expiry (must be in the future). Without it the key lives until revoked."),
  ),
  apiVersion: Type.Optional({
    ...ApiVersionName,
    description:
      "The API version the key's requests without `Api-Version` are served at: a version served now. Default: the current version.",
  }),
});

/** What the merchant may change on a key pair. */
export const UpdateApiKeyBody = Body({
  apiVersion: {
    ...ApiVersionName,
    description:
      "Serve the key's requests without `Api-Version` at this version from now on: a version served now.",
  },
});

const keyFields = {
  keyId: KeyId,
  name: Type.String(),
  scopes: Type.Array(KeyScopeSchema),
  createdAt: Timestamp,
  lastUsedAt: Type.Union([Timestamp, Type.Null()], { description: "Updated at most once a minute." }),
  expiresAt: Type.Union([Timestamp, Type.Null()]),
  revokedAt: Type.Union([Timestamp, Type.Null()]),
  apiVersion: {
    ...ApiVersionName,
    description:
      "The API version the key pair is pinned to: its requests without `Api-Version` are served at it.",
  },
};

export const ApiKeyResource = Type.Object(keyFields, { title: "ApiKey" });
export const ApiKeyWithSecret = Type.Object(
  {
    ...keyFields,
    secret: Type.String({
      description: "Send as `x-api-secret`. Shown only in this response; only its SHA-256 hash is stored.",
      examples: ["mpsk_3Gh8Jk2Lm5Np7Qr9St1Uv4Wx6Yz0Ab2Cd5Ef8Gh1Jk4"],
    }),
  },
  { title: "ApiKeyWithSecret" },
);

export function toApiKeyResource(k: ApiKey) {
  return {
    keyId: k.id,
    name: k.name,
    scopes: k.scopes as KeyScope[],
    createdAt: k.created_at.toISOString(),
    lastUsedAt: k.last_used_at ? k.last_used_at.toISOString() : null,
    expiresAt: k.expires_at ? k.expires_at.toISOString() : null,
    revokedAt: k.revoked_at ? k.revoked_at.toISOString() : null,
    apiVersion: k.api_version,
  };
}

export type CreateApiKeyInput = Static<typeof CreateApiKeyBody>;
export type UpdateApiKeyInput = Static<typeof UpdateApiKeyBody>;
