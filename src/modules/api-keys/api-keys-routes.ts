import Type from "typebox";
import type { ErrorCode } from "../../lib/errors.ts";
import { type ApiFamily, familyErrors, storeOf } from "../../lib/http/api-family.ts";
import { Envelope, Params } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { currentAccount } from "../accounts/session-auth.ts";
import {
  ApiKeyResource,
  ApiKeyWithSecret,
  CreateApiKeyBody,
  KeyId,
  toApiKeyResource,
} from "./api-keys-schemas.ts";
import { type ApiKeyService, MAX_ACTIVE_KEYS_PER_STORE } from "./api-keys-service.ts";

/** Dashboard management of a store's developer key pairs. */
export function registerApiKeyRoutes(app: App, family: ApiFamily, keys: ApiKeyService) {
  const tags = ["Dashboard: API keys"];
  const guard = family.guard("read_products");
  const base = `${family.storePath}/api-keys`;
  const errors = (...codes: ErrorCode[]) => familyErrors(family, ...codes);

  app.post(
    base,
    {
      preHandler: guard,
      schema: {
        operationId: "dashboardCreateApiKey",
        tags,
        summary: "Create a key pair for the developer API",
        description: `Answers the key id and the secret; the secret is shown only in this response (only its SHA-256 hash is kept). Grant the minimum scopes needed: a catalogue export needs only \`read_products\`. At most ${MAX_ACTIVE_KEYS_PER_STORE} usable keys per store (409 beyond).`,
        security: family.security,
        params: Params(family.params),
        body: CreateApiKeyBody,
        response: {
          201: Type.Object(
            { success: Type.Literal(true), data: ApiKeyWithSecret },
            {
              description: "Created; store the secret now",
              examples: [
                {
                  success: true,
                  data: {
                    keyId: "mpk_7Hd2Kq9LmX4Np6Rt8Vw1Yz3B",
                    name: "Nightly catalogue export",
                    scopes: ["read_products"],
                    createdAt: "2026-11-22T10:00:00.000Z",
                    lastUsedAt: null,
                    expiresAt: null,
                    revokedAt: null,
                    secret: "mpsk_3Gh8Jk2Lm5Np7Qr9St1Uv4Wx6Yz0Ab2Cd5Ef8Gh1Jk4",
                  },
                },
              ],
            },
          ),
          ...errors("CONFLICT", "BAD_REQUEST", "UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE"),
        },
      },
    },
    async (request, reply) => {
      const { key, secret } = await keys.create(storeOf(request), currentAccount(request).id, request.body);
      reply.header("cache-control", "no-store");
      return reply.status(201).send({ success: true as const, data: { ...toApiKeyResource(key), secret } });
    },
  );

  app.get(
    base,
    {
      preHandler: guard,
      schema: {
        operationId: "dashboardListApiKeys",
        tags,
        summary: "List the store's key pairs (never their secrets)",
        description:
          "Usable keys first, then revoked and expired ones; newest first within each group. At most 1,000.",
        security: family.security,
        params: Params(family.params),
        response: { 200: Envelope(Type.Array(ApiKeyResource)), ...errors() },
      },
    },
    async (request) => ({
      success: true as const,
      data: (await keys.list(storeOf(request))).map(toApiKeyResource),
    }),
  );

  app.delete(
    `${base}/:keyId`,
    {
      preHandler: guard,
      schema: {
        operationId: "dashboardRevokeApiKey",
        tags,
        summary: "Revoke a key pair",
        description:
          "Effective at once, on every instance (each developer API call reads the key). Revoking a revoked key answers it unchanged.",
        security: family.security,
        params: Params({ ...family.params, keyId: KeyId }),
        response: {
          200: Envelope(ApiKeyResource, "The revoked key"),
          ...errors("NOT_FOUND", "UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE"),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: toApiKeyResource(await keys.revoke(storeOf(request), request.params.keyId)),
    }),
  );
}
