import { sql } from "kysely";
import { InstallationStatus } from "../../contracts/index.ts";
import type { Executor } from "../../db/client.ts";
import type { AppMetadataJson } from "../../db/schema.ts";

/** The tables whose records carry app metadata (migration 20261126_0041). */
export type MetadataTable = "products" | "orders" | "customers";

export function createAppMetadataRepo(db: Executor) {
  return {
    /** Every app's metadata on one record of the store; undefined when there is no such record. */
    async of(table: MetadataTable, storeId: string, id: string): Promise<AppMetadataJson | undefined> {
      const row = await db
        .selectFrom(table)
        .select("metadata")
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .executeTakeFirst();
      return row?.metadata;
    },
    /** The apps with these ids: their client id and name, and whether they are installed in the store now. */
    async apps(storeId: string, appIds: string[]) {
      if (appIds.length === 0) return [];
      return db
        .selectFrom("apps as a")
        .select((eb) => [
          "a.id",
          "a.client_id",
          "a.name",
          eb
            .exists(
              eb
                .selectFrom("installations as i")
                .select(sql<number>`1`.as("one"))
                .whereRef("i.app_id", "=", "a.id")
                .where("i.store_id", "=", storeId)
                .where("i.status", "=", InstallationStatus.active),
            )
            .as("installed"),
        ])
        .where("a.id", "in", appIds)
        .execute();
    },
  };
}
export type AppMetadataRepo = ReturnType<typeof createAppMetadataRepo>;
