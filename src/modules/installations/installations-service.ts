import { InstallationStatus } from "../../contracts/index.ts";
import type { Scope } from "../../contracts/scopes.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { AppRow, Installation, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import type { AppRepo } from "../apps/apps-repo.ts";
import type { InstallationRepo } from "./installations-repo.ts";

/** Runs inside the uninstall transaction, before it commits (e.g. to write `app/uninstalled`). */
export type UninstallHook = (tx: Executor, installation: Installation, store: Store) => Promise<void>;

export function createInstallationService(deps: {
  db: Db;
  repo: InstallationRepo;
  apps: Pick<AppRepo, "findByClientId">;
  clock: Clock;
  /** Verified access tokens; an uninstall answers only once none of them can be trusted anywhere. */
  /** Waits until no process trusts a token read before the revocation (oauth/access-cache.ts). */
  accessCache: { revoked(): Promise<void> };
  onUninstall?: UninstallHook[];
}) {
  const { repo, clock } = deps;
  /** One store's uninstall, in one transaction; null when the app was not installed there. */
  async function uninstallApp(store: Store, app: AppRow) {
    const now = clock.now();
    return deps.db.transaction().execute(async (tx) => {
      const active = await repo.findActiveForUpdate(store.id, app.id, tx);
      if (!active) return null;
      const ended = await repo.markUninstalled(store.id, active.id, now, tx);
      if (!ended) return null;
      await repo.revokeGrants(store.id, active.id, InstallationStatus.uninstalled, now, tx);
      for (const hook of deps.onUninstall ?? []) await hook(tx, ended, store);
      return { clientId: app.client_id, name: app.name, uninstalledAt: now.toISOString() };
    });
  }

  return {
    /**
     * Installs the app in the store with `scopes`, or widens the active installation to include
     * them (scopes already approved are kept). Runs in the caller's transaction.
     */
    async installOrWiden(
      tx: Executor,
      input: { store: Store; appId: string; scopes: Scope[]; accountId: string },
    ) {
      const now = clock.now();
      const current = await repo.findActiveForUpdate(input.store.id, input.appId, tx);
      if (current) {
        const merged = [...new Set([...current.scopes, ...input.scopes])].sort();
        if (merged.length === current.scopes.length) return current;
        return repo.setScopes(input.store.id, current.id, merged, now, tx);
      }
      return repo.insert(
        {
          store_id: input.store.id,
          id: newId("installation"),
          app_id: input.appId,
          scopes: [...input.scopes].sort(),
          status: InstallationStatus.active,
          installed_by: input.accountId,
          created_at: now,
          updated_at: now,
          uninstalled_at: null,
          shop_redact_due_at: null,
          shop_redact_done_at: null,
        },
        tx,
      );
    },

    list: (store: Store) => repo.listActiveWithApps(store.id),

    /** Ends the installation and revokes every token of the app in the store, in one transaction. */
    async uninstall(store: Store, clientId: string) {
      const app = await deps.apps.findByClientId(clientId);
      if (!app) throw notFound("Installation");
      const answer = await uninstallApp(store, app);
      if (!answer) throw notFound("Installation");
      await deps.accessCache.revoked();
      return answer;
    },

    /**
     * Uninstalls an app from every store it is installed in, each as a merchant's uninstall would
     * (app/uninstalled, tokens revoked): for an app its developer deletes. Answers how many.
     */
    async uninstallEverywhere(app: AppRow) {
      let count = 0;
      for (const store of await repo.storesWithApp(app.id)) if (await uninstallApp(store, app)) count++;
      await deps.accessCache.revoked();
      return count;
    },
  };
}
export type InstallationService = ReturnType<typeof createInstallationService>;
