import type { ReactNode } from "react";

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
   * The page's entry in a store's menu (its path starts with `/stores/:slug`): the label, and its
   * place among the entries (ascending).
   */
  storeMenu?: { label: string; order: number };
}

export function definePage(page: Page): Page {
  return page;
}
