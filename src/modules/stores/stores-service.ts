import type { Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import type { StoreRepo } from "./stores-repo.ts";

/** Slugs that would read as platform pages in URLs or support conversations. */
const RESERVED_SLUGS = new Set([
  "admin",
  "api",
  "app",
  "apps",
  "dashboard",
  "docs",
  "help",
  "login",
  "www",
  "static",
]);

export function createStoreService(deps: { repo: StoreRepo; clock: Clock }) {
  return {
    async create(ownerId: string, input: { name: string; slug: string; currency?: string | undefined }) {
      const taken = () =>
        new AppError("CONFLICT", {
          message: "This store slug is already taken.",
          details: [{ field: "slug", message: "is already taken" }],
        });
      if (RESERVED_SLUGS.has(input.slug)) throw taken();
      const store = await deps.repo.insert({
        id: newId("store"),
        slug: input.slug,
        name: input.name.trim(),
        currency: input.currency ?? "USD",
        owner_account_id: ownerId,
        created_at: deps.clock.now(),
      });
      if (!store) throw taken();
      return store;
    },
    listOwned: (ownerId: string) => deps.repo.listByOwner(ownerId),
    /** The store with this slug if `ownerId` owns it; another owner's store is NOT_FOUND, never FORBIDDEN. */
    async getOwned(ownerId: string, slug: string): Promise<Store> {
      const store = await deps.repo.findBySlug(slug);
      if (!store || store.owner_account_id !== ownerId) throw notFound("Store");
      return store;
    },
  };
}
export type StoreService = ReturnType<typeof createStoreService>;
