import Type, { type Static } from "typebox";
import type { ApiKey } from "../../db/schema.ts";
import { Body, Timestamp } from "../../lib/http/schemas.ts";

export const KEY_ID_PREFIX = "mpk";
export const KEY_SECRET_PREFIX = "mpsk";

/** The scopes a key pair can carry (spec 2.4 / 5.6, without manage_webhooks, which is for apps). */
export const KeyScopeSchema = Type.Union(
  [
    Type.Literal("read_products"),
    Type.Literal("write_products"),
    Type.Literal("read_orders"),
    Type.Literal("read_customers"),
  ],
  { description: "Grant the minimum the integration needs: a catalogue export needs only `read_products`." },
);
export type KeyScope = Static<typeof KeyScopeSchema>;
export const KEY_SCOPE_NAMES: KeyScope[] = KeyScopeSchema.anyOf.map((s) => s.const);

export const KeyId = Type.String({
  pattern: `^${KEY_ID_PREFIX}_[0-9A-Za-z]{24}$`,
  maxLength: 40,
  examples: ["mpk_7Hd2Kq9LmX4Np6Rt8Vw1Yz3B"],
});

export const CreateApiKeyBody = Body({
  name: Type.String({ minLength: 1, maxLength: 100, examples: ["Nightly catalogue export"] }),
  scopes: Type.Array(KeyScopeSchema, {
    minItems: 1,
    maxItems: 4,
    uniqueItems: true,
    examples: [["read_products"]],
  }),
  expiresAt: Type.Optional(
    Type.String({
      format: "date-time",
      description: "Optional expiry (must be in the future). Without it the key lives until revoked.",
    }),
  ),
});

const keyFields = {
  keyId: KeyId,
  name: Type.String(),
  scopes: Type.Array(KeyScopeSchema),
  createdAt: Timestamp,
  lastUsedAt: Type.Union([Timestamp, Type.Null()], { description: "Updated at most once a minute." }),
  expiresAt: Type.Union([Timestamp, Type.Null()]),
  revokedAt: Type.Union([Timestamp, Type.Null()]),
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
    scopes: k.scopes as Array<"read_products" | "write_products" | "read_orders" | "read_customers">,
    createdAt: k.created_at.toISOString(),
    lastUsedAt: k.last_used_at ? k.last_used_at.toISOString() : null,
    expiresAt: k.expires_at ? k.expires_at.toISOString() : null,
    revokedAt: k.revoked_at ? k.revoked_at.toISOString() : null,
  };
}
