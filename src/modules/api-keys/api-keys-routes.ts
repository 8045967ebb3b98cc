import Type from "typebox";
import { type ApiFamily, storeOf } from "../../lib/http/api-family.ts";
import { Envelope, errorResponses, Params } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { currentAccount } from "../accounts/session-auth.ts";
import {
  ApiKeyResource,
  ApiKeyWithSecret,
  CreateApiKeyBody,
  KeyId,
  toApiKeyResource,
} from "./api-keys-schemas.ts";
import type { ApiKeyService } from "./api-keys-service.ts";

/** Dashboard management of a store's developer key pairs. */
export function registerApiKeyRoutes(app: App, family: ApiFamily, keys: ApiKeyService) {
  const tags = ["Dashboard: API keys"];
  const guard = family.guard("read_products");
  const base = `${family.storePath}/api-keys`;
  const errors = (...codes: Parameters<typeof errorResponses>) =>
    errorResponses(...family.authErrors, ...codes);

  app.post(
    base,
    {
      preHandler: guard,
      schema: {
        operationId: "dashboardCreateApiKey",
        tags,
        summary: "Create a key pair for the developer API",
        description:
          "Answers the key id and the secret; the secret is shown only in this response. Grant the minimum scopes needed.",
        security: family.security,
        params: Params(family.params),
        body: CreateApiKeyBody,
        response: { 201: Envelope(ApiKeyWithSecret, "Created; store the secret now"), ...errors() },
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
        description: "Effective at once, on every instance.",
        security: family.security,
        params: Params({ ...family.params, keyId: KeyId }),
        response: { 200: Envelope(ApiKeyResource, "The revoked key"), ...errors("NOT_FOUND") },
      },
    },
    async (request) => ({
      success: true as const,
      data: toApiKeyResource(await keys.revoke(storeOf(request), request.params.keyId)),
    }),
  );
}
