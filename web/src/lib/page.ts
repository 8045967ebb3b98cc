import type { ReactNode } from "react";
import type { StoreScope } from "../contract.ts";

/**
 * A page of the dashboard, declared by its own module in `web/src/pages/` (`export const pages =
 * [definePage({ … })]`): main.tsx finds every page module (`import.meta.glob`) and routes them,
 * the store menu lists those that ask for an entry, and the build writes every path to
 * `dist/pages.json` for the server, which answers the dashboard on them. Adding a page is one file.
 */
export interface Page {
  /**
   * The react-router path (`/stores/:slug/orders/:id`), written as a string literal: the build reads
   * it from the source (vite.config.ts). `*` is the page for every address without one.
   */
  path: string;
  element: ReactNode;
  /** Outside the signed-in layout (sign-in, sign-up, the consent screen). */
  bare?: true;
  /**
   * The page's entry in a store's menu (its path starts with `/stores/:slug`): the label, its place
   * among the entries (ascending), and the scope the page's reads need: the entry is shown only to
   * a role holding it (none: every role).
   */
  storeMenu?: { label: string; order: number; scope?: StoreScope };
}

export function definePage(page: Page): Page {
  return page;
}
