import { Link, useLocation } from "react-router";
import { useStores } from "../api/session.ts";
import { PageHeader } from "../components/ui.tsx";
import { definePage } from "../lib/page.ts";
import { STORE_MENU } from "../page-registry.ts";

/**
 * Any address the dashboard has no page for (the server answers such paths with this page and a
 * 404). An address naming a store's section without the store (`/orders`) offers that section of
 * each store.
 */
export function NotFoundPage() {
  const { pathname } = useLocation();
  const stores = useStores().data ?? [];
  const last = pathname.split("/").filter(Boolean).at(-1) ?? "";
  const section = STORE_MENU.find((s) => s.path !== "" && s.path === last);
  return (
    <>
      <PageHeader title="Page not found" subtitle="There is nothing at this address." />
      {section && stores.length > 0 ? (
        <>
          <p>{section.label} belong to a store. Did you mean:</p>
          <ul className="link-list">
            {stores.map((s) => (
              <li key={s.slug}>
                <Link to={`/stores/${s.slug}/${section.path}`}>
                  {section.label} of {s.name}
                </Link>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <p>
        <Link to="/">Back to your stores</Link>
      </p>
    </>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [definePage({ path: "*", element: <NotFoundPage /> })];
