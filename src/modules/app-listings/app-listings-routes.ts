import type { FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import { Scope } from "../../contracts/index.ts";
import type { FeatureRoutes } from "../../lib/http/feature-routes.ts";
import { CursorPage, Envelope, errorResponses, Params } from "../../lib/http/schemas.ts";
import type { App } from "../../lib/http/types.ts";
import { currentAccount } from "../accounts/session-auth.ts";
import { ClientId } from "../apps/apps-schemas.ts";
import { storeOf } from "../families/api-family.ts";
import { dashboardRoute, StoreParams } from "../families/dashboard-family.ts";
import {
  AppListingResource,
  DirectoryEntryResource,
  DirectoryQuery,
  PutListingBody,
  toDirectoryEntry,
  toListingResource,
} from "./app-listings-schemas.ts";
import type { AppListingService } from "./app-listings-service.ts";

const DEVELOPER_TAG = "Dashboard: app listings";
const DIRECTORY_TAG = "Dashboard: app directory";

/** The developer's side: read and write the listing of one of their apps. */
function registerListingRoutes(
  app: App,
  deps: {
    listings: AppListingService;
    requireSession: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  },
) {
  const { listings, requireSession } = deps;
  const security = [{ sessionCookie: [] }];
  const params = Params({ clientId: ClientId });

  app.get(
    "/apps/:clientId/listing",
    {
      preHandler: requireSession,
      schema: {
        operationId: "dashboardGetAppListing",
        tags: [DEVELOPER_TAG],
        summary: "Your app's listing in the app directory",
        description:
          "The listing as merchants see it (with its status), or null before it is first saved. Another developer's app is 404, the same as an app that does not exist.",
        security,
        params,
        response: {
          200: Envelope(Type.Union([AppListingResource, Type.Null()])),
          ...errorResponses("UNAUTHENTICATED", "NOT_FOUND"),
        },
      },
    },
    async (request) => {
      const { app: row, listing } = await listings.getOwn(
        currentAccount(request).id,
        request.params.clientId,
      );
      return { success: true as const, data: listing ? toListingResource(row, listing) : null };
    },
  );

  app.put(
    "/apps/:clientId/listing",
    {
      preHandler: requireSession,
      schema: {
        operationId: "dashboardPutAppListing",
        tags: [DEVELOPER_TAG],
        summary: "Write, publish or unpublish your app's listing",
        description:
          "Saves the whole listing. A draft is seen only by you; `status: published` puts it in every store's app directory at once (no review), with the app's name and the scopes it is registered for, both read from the app. Publishing needs the app's privacy endpoint (409 without one). Merchants' Install and Open app buttons go to `appUrl` with `store=<slug>` added: start the authorization from there.",
        security,
        params,
        body: PutListingBody,
        response: {
          200: Envelope(AppListingResource),
          ...errorResponses("UNAUTHENTICATED", "NOT_FOUND", "VALIDATION_FAILED", "CONFLICT"),
        },
      },
    },
    async (request) => {
      const { app: row, listing } = await listings.put(
        currentAccount(request).id,
        request.params.clientId,
        request.body,
      );
      return { success: true as const, data: toListingResource(row, listing) };
    },
  );
}

/** The merchant's side: the store's app directory. */
function registerDirectoryRoutes(app: App, listings: AppListingService) {
  app.get(
    "/stores/:slug/app-directory",
    dashboardRoute({
      operationId: "dashboardListAppDirectory",
      scope: Scope.manage_installations,
      tags: [DIRECTORY_TAG],
      summary: "Apps a merchant can install",
      description:
        "Published listings, in the apps' name order, each with the scopes the app may ask for (the consent page never lets it ask for more) and whether it is installed in this store. Drafts are never listed. Install and Open app go to the listing's `appUrl` with `store=<slug>` added; the app leads the merchant to the consent page from there.",
      params: StoreParams,
      querystring: DirectoryQuery,
      response: { 200: CursorPage(DirectoryEntryResource) },
      errors: ["VALIDATION_FAILED"],
    }),
    async (request) => {
      const page = await listings.directory(storeOf(request), request.query);
      return { success: true as const, data: page.items.map(toDirectoryEntry), meta: page.meta };
    },
  );
}

export function appListingRoutes(deps: Parameters<typeof registerListingRoutes>[1]): FeatureRoutes {
  return {
    tags: {
      [DEVELOPER_TAG]: "Your app's listing in the app directory: draft, publish, unpublish.",
      [DIRECTORY_TAG]: "The apps merchants can find and install from their store's dashboard.",
    },
    account: (app) => registerListingRoutes(app, deps),
    store: (app) => registerDirectoryRoutes(app, deps.listings),
  };
}
