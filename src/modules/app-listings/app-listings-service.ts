import { AppListingStatus } from "../../contracts/index.ts";
import type { AppRow, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError } from "../../lib/errors.ts";
import { CREATED_AND_UPDATED, finishPage, planPage } from "../../lib/pagination.ts";
import type { AppService } from "../apps/apps-service.ts";
import type { AppListingRepo } from "./app-listings-repo.ts";
import type { DirectoryQueryInput, PutListingInput } from "./app-listings-schemas.ts";

/** The directory is read in the app's name order only (the name is the app's, apps.name). */
const DIRECTORY_SORTS = { name: { column: "name", type: "text" }, ...CREATED_AND_UPDATED } as const;

/**
 * App listings (issue 32, part 4): a developer writes one per app and publishes it; merchants find
 * published ones in their store's app directory. A listing is the developer's words about the
 * app; what the app is called and what it may ask for stay the app's (declared once).
 */
export function createAppListingService(deps: {
  repo: AppListingRepo;
  apps: Pick<AppService, "getOwned">;
  clock: Clock;
}) {
  const { repo, clock } = deps;
  return {
    /** The developer's own app and its listing (null before the first save). Another's app: 404. */
    async getOwn(ownerId: string, clientId: string) {
      const app = await deps.apps.getOwned(ownerId, clientId);
      return { app, listing: (await repo.find(app.id)) ?? null };
    },

    /**
     * Saves the whole listing. Publishing is immediate (docs/decisions.md): the consent page is
     * the gate, and it never lets the app ask for more than the scopes the listing shows. An app
     * without a privacy endpoint cannot be published: a merchant's customers' erasure requests
     * would have nowhere to go.
     */
    async put(ownerId: string, clientId: string, input: PutListingInput) {
      const app: AppRow = await deps.apps.getOwned(ownerId, clientId);
      if (input.status === AppListingStatus.published && app.privacy_webhook_url === null)
        throw new AppError("CONFLICT", {
          message:
            "Declare the app's privacy webhook URL before publishing it: merchants must be able to reach the app when a customer asks to be erased or to see their data.",
          details: [{ field: "status", message: "needs the app's privacy endpoint first" }],
        });
      const now = clock.now();
      const listing = await repo.put(
        {
          app_id: app.id,
          status: input.status,
          tagline: input.tagline.trim(),
          description: input.description.trim(),
          app_url: input.appUrl,
          support_email: input.supportEmail,
          icon_color: input.iconColor,
          updated_at: now,
        },
        now,
      );
      return { app, listing };
    },

    /** One page of the store's directory: published listings only, whoever asks. */
    async directory(store: Store, query: DirectoryQueryInput) {
      const q = query.q?.trim();
      const plan = planPage({ ...query, sort: "name" }, DIRECTORY_SORTS, { q: q ?? null });
      return finishPage(await repo.directoryPage(store.id, plan, q), plan);
    },
  };
}
export type AppListingService = ReturnType<typeof createAppListingService>;
