import { type Selectable, sql } from "kysely";
import { AppListingStatus, InstallationStatus } from "../../contracts/index.ts";
import type { Executor } from "../../db/client.ts";
import type { DB } from "../../db/schema.ts";
import { containsPattern, keysetPage, type PagePlan } from "../../lib/pagination.ts";

export type ListingRow = Selectable<DB["app_listings"]>;

export function createAppListingRepo(db: Executor) {
  return {
    async find(appId: string, tx: Executor = db) {
      return tx.selectFrom("app_listings").selectAll().where("app_id", "=", appId).executeTakeFirst();
    },

    /**
     * Writes the whole listing (one statement, so two saves at once leave one of them whole).
     * `published_at` is the moment of this publication, kept while it stays published: a save of
     * a published listing does not make it newer, and a draft has none.
     */
    async put(row: Omit<ListingRow, "created_at" | "published_at">, now: Date, tx: Executor = db) {
      const published = row.status === AppListingStatus.published;
      return tx
        .insertInto("app_listings")
        .values({ ...row, published_at: published ? now : null, created_at: now })
        .onConflict((oc) =>
          oc.column("app_id").doUpdateSet((eb) => ({
            status: eb.ref("excluded.status"),
            tagline: eb.ref("excluded.tagline"),
            description: eb.ref("excluded.description"),
            app_url: eb.ref("excluded.app_url"),
            support_email: eb.ref("excluded.support_email"),
            icon_color: eb.ref("excluded.icon_color"),
            published_at: published
              ? sql<Date>`coalesce(app_listings.published_at, excluded.published_at)`
              : null,
            updated_at: eb.ref("excluded.updated_at"),
          })),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /**
     * One page of a store's app directory: published listings of live apps, in the app's name
     * order, each saying whether the app is installed in this store now. Drafts are never read
     * here, whoever asks.
     */
    async directoryPage(storeId: string, plan: PagePlan, q: string | undefined, tx: Executor = db) {
      let query = tx
        .selectFrom("app_listings")
        .innerJoin("apps", "apps.id", "app_listings.app_id")
        .select([
          "apps.id",
          "apps.client_id",
          "apps.name",
          "apps.scopes",
          "apps.created_at",
          "app_listings.tagline",
          "app_listings.description",
          "app_listings.app_url",
          "app_listings.support_email",
          "app_listings.icon_color",
          "app_listings.published_at",
          "app_listings.updated_at",
        ])
        .select((eb) =>
          eb
            .exists(
              eb
                .selectFrom("installations")
                .select(sql`1`.as("one"))
                .where("installations.store_id", "=", storeId)
                .whereRef("installations.app_id", "=", "apps.id")
                .where("installations.status", "=", InstallationStatus.active),
            )
            .as("installed"),
        )
        .where("app_listings.status", "=", AppListingStatus.published)
        .where("apps.deleted_at", "is", null);
      if (q !== undefined) {
        const pattern = containsPattern(q);
        query = query.where((eb) =>
          eb.or([
            eb("apps.name", "ilike", pattern),
            eb("app_listings.tagline", "ilike", pattern),
            eb("app_listings.description", "ilike", pattern),
          ]),
        );
      }
      return keysetPage(query, plan, "apps").execute();
    },
  };
}
export type AppListingRepo = ReturnType<typeof createAppListingRepo>;
export type DirectoryRow = Awaited<ReturnType<AppListingRepo["directoryPage"]>>[number];
