import { api, unwrap } from "../api/client.ts";
import { useCursorList } from "../api/lists.ts";
import type { DirectoryEntry } from "../api/types.ts";
import { DirectoryCard } from "../components/app-listing.tsx";
import { LoadMore } from "../components/list.tsx";
import { Empty, FormAlert, Loading, PageHeader } from "../components/ui.tsx";
import { PAGE_SIZE } from "../contract.ts";
import { searchParam, useSlug } from "../lib/hooks.ts";
import { useListState } from "../lib/list-state.ts";
import { definePage } from "../lib/page.ts";

const SORTS = { name: "Name" } as const;

/**
 * The store's app directory: apps whose developers published a listing, with what each will ask
 * to do; Install goes to the app, which brings the merchant to the consent page; an installed app
 * has Open app instead.
 */
export function AppDirectoryPage() {
  const slug = useSlug();
  const state = useListState({ sorts: SORTS, defaultSort: "name" });
  const q = searchParam(state.q);
  const list = useCursorList<DirectoryEntry>(
    ["app-directory", slug, q ?? ""],
    (cursor) =>
      unwrap<DirectoryEntry[], { nextCursor: string | null }>(
        api.GET("/api/v1/dashboard/stores/{slug}/app-directory", {
          params: { path: { slug }, query: { limit: PAGE_SIZE.dashboard, cursor, q } },
        }),
      ),
    { pages: state.pages, onPages: state.setPages },
  );
  const waiting = state.search.trim() !== "" && searchParam(state.search) === undefined;
  return (
    <>
      <PageHeader
        title="App directory"
        subtitle="Apps built for stores like yours. Before anything is shared, you see exactly what an app may do and choose the store."
      />
      <div className="list-tools directory-search">
        <div className="field grow">
          <label htmlFor="directory-search">Search apps</label>
          <input
            id="directory-search"
            type="search"
            value={state.search}
            onChange={(e) => state.setSearch(e.target.value)}
            placeholder="Name or what it does"
            aria-describedby={waiting ? "directory-search-hint" : undefined}
          />
          {waiting ? (
            <p className="hint" id="directory-search-hint" aria-live="polite">
              Type 3 characters or more to search: every app is shown meanwhile.
            </p>
          ) : null}
        </div>
      </div>
      {list.error ? <FormAlert message={list.error.message} /> : null}
      {list.isPending ? (
        <Loading what="Loading apps" />
      ) : list.items.length === 0 ? (
        <div className="panel">
          <Empty>
            {q ? (
              <>
                No app matches “<span className="user-text">{q}</span>”.
              </>
            ) : (
              "No app is published yet. Apps appear here as soon as their developers publish them."
            )}
          </Empty>
        </div>
      ) : (
        <>
          <ul className="app-grid" aria-label="Apps">
            {list.items.map((entry) => (
              <li key={entry.clientId}>
                <DirectoryCard entry={entry} slug={slug} />
              </li>
            ))}
          </ul>
          <LoadMore
            shown={list.items.length}
            hasMore={list.hasNextPage}
            loading={list.isFetchingNextPage}
            onMore={() => list.fetchNextPage()}
            noun="apps"
          />
        </>
      )}
    </>
  );
}

/** This module's pages (lib/page.ts). */
export const pages = [
  definePage({
    path: "/stores/:slug/app-directory",
    element: <AppDirectoryPage />,
    storeMenu: { label: "App directory", order: 45 },
  }),
];
