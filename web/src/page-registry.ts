/// <reference types="vite/client" />
import type { StoreScope } from "./contract.ts";
import type { Page } from "./lib/page.ts";

/** Every page module (`web/src/pages/*.tsx`), each exporting its `pages`. */
const modules = import.meta.glob<{ pages?: Page[] }>("./pages/*.tsx", { eager: true });

/** Every page of the dashboard (lib/page.ts). */
export const PAGES: readonly Page[] = Object.values(modules).flatMap((module) => module.pages ?? []);

const STORE = "/stores/:slug";

/**
 * A store's menu: each entry a sidebar link to `/stores/{slug}/{path}` (`path` "" is the store's
 * overview), with the scope a role needs to see it (none: every role).
 */
export const STORE_MENU: readonly { path: string; label: string; scope?: StoreScope }[] = PAGES.flatMap(
  (page) => {
    if (!page.storeMenu) return [];
    if (page.path !== STORE && !page.path.startsWith(`${STORE}/`))
      throw new Error(`${page.path}: only a store's page has an entry in the store's menu`);
    return [
      {
        path: page.path.slice(STORE.length + 1),
        label: page.storeMenu.label,
        order: page.storeMenu.order,
        scope: page.storeMenu.scope,
      },
    ];
  },
)
  .sort((a, b) => a.order - b.order)
  .map(({ path, label, scope }) => ({ path, label, ...(scope ? { scope } : {}) }));
