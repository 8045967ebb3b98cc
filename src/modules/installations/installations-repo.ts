import { InstallationStatus } from "../../contracts/index.ts";
import type { Scope } from "../../contracts/scopes.ts";
import type { Executor } from "../../db/client.ts";
import type { Installation } from "../../db/schema.ts";

export function createInstallationRepo(db: Executor) {
  return {
    /** The active installation of an app in a store, locked until the transaction ends. */
    async findActiveForUpdate(storeId: string, appId: string, tx: Executor) {
      return tx
        .selectFrom("installations")
        .selectAll()
        .where("store_id", "=", storeId)
        .where("app_id", "=", appId)
        .where("status", "=", InstallationStatus.active)
        .forUpdate()
        .executeTakeFirst();
    },
    async insert(row: Omit<Installation, "scopes"> & { scopes: Scope[] }, tx: Executor = db) {
      return tx
        .insertInto("installations")
        .values({ ...row, scopes: JSON.stringify(row.scopes) })
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    async setScopes(storeId: string, id: string, scopes: Scope[], now: Date, tx: Executor = db) {
      return tx
        .updateTable("installations")
        .set({ scopes: JSON.stringify(scopes), updated_at: now })
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    async listActiveWithApps(storeId: string, tx: Executor = db) {
      return tx
        .selectFrom("installations")
        .innerJoin("apps", "apps.id", "installations.app_id")
        .select([
          "installations.id",
          "installations.scopes",
          "installations.created_at",
          "installations.updated_at",
          "apps.client_id",
          "apps.name",
        ])
        .where("installations.store_id", "=", storeId)
        .where("installations.status", "=", InstallationStatus.active)
        .orderBy("installations.created_at")
        .execute();
    },
    /** The stores where an app is installed (for deleting the app). */
    async storesWithApp(appId: string, tx: Executor = db) {
      return tx
        .selectFrom("installations")
        .innerJoin("stores", "stores.id", "installations.store_id")
        .selectAll("stores")
        .where("installations.app_id", "=", appId)
        .where("installations.status", "=", InstallationStatus.active)
        .execute();
    },
    async markUninstalled(storeId: string, id: string, now: Date, tx: Executor) {
      return tx
        .updateTable("installations")
        .set({ status: InstallationStatus.uninstalled, uninstalled_at: now, updated_at: now })
        .where("store_id", "=", storeId)
        .where("id", "=", id)
        .where("status", "=", InstallationStatus.active)
        .returningAll()
        .executeTakeFirst();
    },
    async revokeGrants(storeId: string, installationId: string, reason: string, now: Date, tx: Executor) {
      await tx
        .updateTable("token_grants")
        .set({ revoked_at: now, revoked_reason: reason })
        .where("store_id", "=", storeId)
        .where("installation_id", "=", installationId)
        .where("revoked_at", "is", null)
        .execute();
    },
  };
}
export type InstallationRepo = ReturnType<typeof createInstallationRepo>;
