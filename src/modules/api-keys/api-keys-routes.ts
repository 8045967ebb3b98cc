import Type from "typebox";
import { MAX_ACTIVE_KEYS_PER_STORE, Scope } from "../../contracts/index.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { currentAccount } from "../accounts/session-auth.ts";
import { storeOf } from "../families/api-family.ts";
import { dashboardRoute, StoreParams, storeParams } from "../families/dashboard-family.ts";
import {
  ApiKeyResource,
  ApiKeyWithSecret,
  CreateApiKeyBody,
  KeyId,
  toApiKeyResource,
  UpdateApiKeyBody,
} from "./api-keys-schemas.ts";
import type { ApiKeyService } from "./api-keys-service.ts";

/** Dashboard management of a store's developer key pairs (scope manage_api_keys). */
export function registerApiKeyRoutes(app: App, keys: ApiKeyService) {
  const tags = ["Dashboard: API keys"];

  app.post(
    "/stores/:slug/api-keys",
    dashboardRoute({
      operationId: "dashboardCreateApiKey",
      scope: Scope.manage_api_keys,
      tags,
      summary: "Create a key pair for the developer API",
      description: `Answers the key id and the secret; the secret is shown only in this response (only its SHA-256 hash is kept). Grant the minimum scopes needed: a catalogue export needs only \`read_products\`. At most ${MAX_ACTIVE_KEYS_PER_STORE} usable keys per store (409 beyond).`,
      params: StoreParams,
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
                  scopes: [Scope.read_products],
                  createdAt: "2026-11-22T10:00:00.000Z",
                  lastUsedAt: null,
                  expiresAt: null,
                  revokedAt: null,
                  apiVersion: "2026-11-28",
                  secret: "mpsk_3Gh8Jk2Lm5Np7Qr9St1Uv4Wx6Yz0Ab2Cd5Ef8Gh1Jk4",
                },
              },
            ],
          },
        ),
      },
      errors: ["CONFLICT", "BAD_REQUEST", "UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE"],
    }),
    async (request, reply) => {
      const store = storeOf(request);
      const { key, secret } = await keys.create(store, currentAccount(request).id, request.body);
      request.log.info({ store: store.slug, key: key.id }, "API key pair created");
      reply.header("cache-control", "no-store");
      return reply.status(201).send({ success: true as const, data: { ...toApiKeyResource(key), secret } });
    },
  );

  app.get(
    "/stores/:slug/api-keys",
    dashboardRoute({
      operationId: "dashboardListApiKeys",
      scope: Scope.manage_api_keys,
      tags,
      summary: "List the store's key pairs (never their secrets)",
      description:
        "Usable keys first, then revoked and expired ones; newest first within each group. At most 1,000.",
      params: StoreParams,
      response: { 200: Envelope(Type.Array(ApiKeyResource)) },
    }),
    async (request) => ({
      success: true as const,
      data: (await keys.list(storeOf(request))).map(toApiKeyResource),
    }),
  );

  app.patch(
    "/stores/:slug/api-keys/:keyId",
    dashboardRoute({
      operationId: "dashboardUpdateApiKey",
      scope: Scope.manage_api_keys,
      tags,
      summary: "Pin a key pair to another API version",
      description:
        "The key's requests without an `Api-Version` header are served at this version from now on (on every instance: each call reads the key). A version not served answers 400 `UNSUPPORTED_API_VERSION`.",
      params: storeParams({ keyId: KeyId }),
      body: UpdateApiKeyBody,
      response: { 200: Envelope(ApiKeyResource) },
      errors: ["NOT_FOUND", "UNSUPPORTED_API_VERSION"],
    }),
    async (request) => ({
      success: true as const,
      data: toApiKeyResource(await keys.setApiVersion(storeOf(request), request.params.keyId, request.body)),
    }),
  );

  app.delete(
    "/stores/:slug/api-keys/:keyId",
    dashboardRoute({
      operationId: "dashboardRevokeApiKey",
      scope: Scope.manage_api_keys,
      tags,
      summary: "Revoke a key pair",
      description:
        "Effective at once, on every instance (each developer API call reads the key). Revoking a revoked key answers it unchanged.",
      params: storeParams({ keyId: KeyId }),
      response: { 200: Envelope(ApiKeyResource, "The revoked key") },
      errors: ["NOT_FOUND", "UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE"],
    }),
    async (request) => ({
      success: true as const,
      data: toApiKeyResource(await keys.revoke(storeOf(request), request.params.keyId)),
    }),
  );
}

export function apiKeyRoutes(keys: ApiKeyService): FeatureRoutes {
  return {
    tags: {
      "Dashboard: API keys":
        "Key pairs for the developer API: the secret is shown once, at creation; revoking is immediate.",
    },
    store: (app) => registerApiKeyRoutes(app, keys),
  };
}
