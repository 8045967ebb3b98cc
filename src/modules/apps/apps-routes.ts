import type { FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import { ApiVersionName } from "../../contracts/index.ts";
import type { Scope } from "../../contracts/scopes.ts";
import type { AppRow } from "../../db/schema.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { Envelope, errorResponses, Params, Timestamp } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { currentAccount } from "../accounts/session-auth.ts";
import {
  AppResource,
  AppWithPrivacySecret,
  AppWithSecret,
  ClientId,
  CreateAppBody,
  PrivacySecretResource,
  SecretResource,
  toAppResource,
  UpdateAppBody,
} from "./apps-schemas.ts";
import type { AppService } from "./apps-service.ts";

const tags = ["Dashboard: apps"];
const security = [{ sessionCookie: [] }];

/** App registration for developers (any account): create, list, get, rotate the client secret. */
export function registerAppRoutes(
  app: App,
  deps: {
    apps: AppService;
    /** Uninstalls a deleted app from every store (installations-service). */
    uninstallEverywhere: (app: AppRow) => Promise<number>;
    requireSession: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** The app's calls that used something deprecated over the last 30 days (modules/versions). */
    deprecatedCalls(
      appId: string,
    ): Promise<
      Array<{ apiVersion: string; operationId: string; usage: string; calls: number; lastAt: string }>
    >;
  },
) {
  const { apps, requireSession } = deps;
  const clientParams = Params({ clientId: ClientId });

  app.post(
    "/apps",
    {
      preHandler: requireSession,
      schema: {
        operationId: "dashboardCreateApp",
        tags,
        summary: "Register an app",
        description:
          "Answers the client id and the client secret. The secret is shown only in this response. With `privacyWebhookUrl`, also the privacy endpoint's signing secret (`privacySecret`), shown only here too.",
        security,
        body: CreateAppBody,
        response: {
          201: Envelope(AppWithSecret, "Created; store the secret now"),
          ...errorResponses("UNAUTHENTICATED", "VALIDATION_FAILED"),
        },
      },
    },
    async (request, reply) => {
      const {
        app: row,
        secret,
        privacySecret,
      } = await apps.register(currentAccount(request).id, {
        ...request.body,
        scopes: request.body.scopes as Scope[],
      });
      reply.header("cache-control", "no-store");
      return reply.status(201).send({
        success: true as const,
        data: {
          ...toAppResource(row),
          clientSecret: secret,
          ...(privacySecret !== undefined ? { privacySecret } : {}),
        },
      });
    },
  );

  app.get(
    "/apps",
    {
      preHandler: requireSession,
      schema: {
        operationId: "dashboardListApps",
        tags,
        summary: "List the apps you registered (never their secrets)",
        description:
          "Oldest first, each with its client id, redirect URIs and the scopes it may ask for. The client secret is shown once, when the app is registered or its secret rotated; it is stored only as a hash.",
        security,
        response: { 200: Envelope(Type.Array(AppResource)), ...errorResponses("UNAUTHENTICATED") },
      },
    },
    async (request) => ({
      success: true as const,
      data: (await apps.listOwned(currentAccount(request).id)).map(toAppResource),
    }),
  );

  app.get(
    "/apps/:clientId",
    {
      preHandler: requireSession,
      schema: {
        operationId: "dashboardGetApp",
        tags,
        summary: "Get one of your apps",
        description: "Another developer's app is 404, the same as an app that does not exist.",
        security,
        params: clientParams,
        response: { 200: Envelope(AppResource), ...errorResponses("UNAUTHENTICATED", "NOT_FOUND") },
      },
    },
    async (request) => ({
      success: true as const,
      data: toAppResource(await apps.getOwned(currentAccount(request).id, request.params.clientId)),
    }),
  );

  app.get(
    "/apps/:clientId/deprecated-calls",
    {
      preHandler: requireSession,
      schema: {
        operationId: "dashboardListDeprecatedCalls",
        tags,
        summary: "Your app's calls that used something deprecated",
        description:
          "Over the last 30 days, per version, operation and what was deprecated: how many calls the app made at a deprecated API version (its `Api-Version` header, or its pin), to a deprecated operation, or with a deprecated request field, and when it last did, latest first. Change them before the sunset (`GET /api/versions`; a deprecated operation's or field's in the document). Counts are kept by each server and added every few seconds.",
        security,
        params: clientParams,
        response: {
          200: Envelope(
            Type.Array(
              Type.Object(
                {
                  apiVersion: ApiVersionName,
                  operationId: Type.String({ examples: ["adminListProducts"] }),
                  usage: Type.String({
                    pattern: "^(version|operation|field:.+)$",
                    description:
                      "What was deprecated: `version` (the call's API version), `operation` (the operation itself), or `field:<name>` (a field of the request body).",
                    examples: ["version", "field:sku"],
                  }),
                  calls: Type.Integer({ minimum: 1 }),
                  lastAt: Timestamp,
                },
                { title: "DeprecatedCalls" },
              ),
            ),
          ),
          ...errorResponses("UNAUTHENTICATED", "NOT_FOUND"),
        },
      },
    },
    async (request) => {
      const row = await apps.getOwned(currentAccount(request).id, request.params.clientId);
      return { success: true as const, data: await deps.deprecatedCalls(row.id) };
    },
  );

  app.patch(
    "/apps/:clientId",
    {
      preHandler: requireSession,
      schema: {
        operationId: "dashboardUpdateApp",
        tags,
        summary: "Change an app",
        description:
          "Name, redirect URIs, the scopes the app may ask merchants for, and the privacy endpoint. Installations keep the scopes their merchants granted; narrowing limits what the app can ask for from now on. The first privacy endpoint declared makes the endpoint's signing secret, answered once as `privacySecret`.",
        security,
        params: clientParams,
        body: UpdateAppBody,
        response: {
          200: Envelope(AppWithPrivacySecret),
          ...errorResponses("UNAUTHENTICATED", "NOT_FOUND", "VALIDATION_FAILED"),
        },
      },
    },
    async (request, reply) => {
      const { app: row, privacySecret } = await apps.update(
        currentAccount(request).id,
        request.params.clientId,
        request.body,
      );
      if (privacySecret !== undefined) reply.header("cache-control", "no-store");
      return {
        success: true as const,
        data: { ...toAppResource(row), ...(privacySecret !== undefined ? { privacySecret } : {}) },
      };
    },
  );

  app.post(
    "/apps/:clientId/privacy-secret",
    {
      preHandler: requireSession,
      schema: {
        operationId: "dashboardRotateAppPrivacySecret",
        tags,
        summary: "Rotate the privacy endpoint's signing secret",
        description:
          "Issues a new signing secret for the app's privacy endpoint, shown only in this response, and in force at once in every store. As for a subscription's rotation, `webhook-signature` carries the previous secret's signature too until `previousSecretExpiresAt`; `x-webhook-signature` uses the new one at once. 409 while the app has no privacy endpoint.",
        security,
        params: clientParams,
        response: {
          200: Envelope(PrivacySecretResource),
          ...errorResponses("UNAUTHENTICATED", "NOT_FOUND", "CONFLICT"),
        },
      },
    },
    async (request, reply) => {
      const data = await apps.rotatePrivacySecret(currentAccount(request).id, request.params.clientId);
      reply.header("cache-control", "no-store");
      return { success: true as const, data };
    },
  );

  app.delete(
    "/apps/:clientId",
    {
      preHandler: requireSession,
      schema: {
        operationId: "dashboardDeleteApp",
        tags,
        summary: "Delete an app",
        description:
          "The app is uninstalled from every store that has it: each receives `app/uninstalled` (as the last delivery of that installation) and every token is revoked. Then its client id is refused by the authorize and token endpoints and it leaves your list. Cannot be undone.",
        security,
        params: clientParams,
        response: {
          200: Envelope(
            Type.Object({
              uninstalledFrom: Type.Integer({ description: "Stores it was uninstalled from." }),
            }),
          ),
          ...errorResponses("UNAUTHENTICATED", "NOT_FOUND"),
        },
      },
    },
    async (request) => {
      const row = await apps.markDeleted(currentAccount(request).id, request.params.clientId);
      return { success: true as const, data: { uninstalledFrom: await deps.uninstallEverywhere(row) } };
    },
  );

  app.post(
    "/apps/:clientId/secret",
    {
      preHandler: requireSession,
      schema: {
        operationId: "dashboardRotateAppSecret",
        tags,
        summary: "Rotate the client secret",
        description:
          "Issues a new secret, shown only in this response. The old secret is refused from now on, on every instance. Tokens already issued stay valid.",
        security,
        params: clientParams,
        response: { 200: Envelope(SecretResource), ...errorResponses("UNAUTHENTICATED", "NOT_FOUND") },
      },
    },
    async (request, reply) => {
      const { app: row, secret } = await apps.rotateSecret(
        currentAccount(request).id,
        request.params.clientId,
      );
      reply.header("cache-control", "no-store");
      return {
        success: true as const,
        data: {
          clientId: row.client_id,
          clientSecret: secret,
          secretRotatedAt: row.secret_rotated_at!.toISOString(),
        },
      };
    },
  );
}

/** A developer's apps, in the dashboard outside any store (platform.ts lists them). */
export function appRoutes(deps: Parameters<typeof registerAppRoutes>[1]): FeatureRoutes {
  return {
    tags: { "Dashboard: apps": "Register apps and rotate their client secrets." },
    account: (app) => registerAppRoutes(app, deps),
  };
}
