import type { ReactNode } from "react";
import { Empty, Loading } from "./ui.tsx";

/**
 * A table with labelled columns; on a phone each row becomes a card (labels from `data-label`). A
 * cell of text merchants or apps write (a name, a title, an e-mail) is `className="user-text"`: its
 * long words wrap inside it, where every other cell keeps its longest word whole (styles.css).
 */
export function Table(props: {
  headers: Array<string | { label: string; num?: boolean }>;
  children: ReactNode;
  caption?: string;
}) {
  return (
    <div className="table-wrap">
      <table>
        {props.caption ? <caption className="visually-hidden">{props.caption}</caption> : null}
        <thead>
          <tr>
            {props.headers.map((h) => {
              const label = typeof h === "string" ? h : h.label;
              return (
                <th key={label} scope="col" className={typeof h !== "string" && h.num ? "num" : undefined}>
                  {label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

const count = new Intl.NumberFormat();

/**
 * "Showing 40 of 1,250 products" and a Load more button while the list has more. `total` is the
 * store's count (an unfiltered list); a filtered list with more says it shows the first matches.
 */
export function LoadMore(props: {
  shown: number;
  hasMore: boolean;
  loading: boolean;
  onMore: () => void;
  noun: string;
  total?: number | undefined;
  filtered?: boolean;
}) {
  const of = !props.hasMore
    ? ` of ${count.format(props.shown)}`
    : props.total !== undefined && !props.filtered
      ? ` of ${count.format(Math.max(props.total, props.shown))}`
      : "";
  return (
    <div className="table-footer">
      <p className="muted small" aria-live="polite">
        Showing {props.hasMore && props.filtered ? "the first " : ""}
        {count.format(props.shown)}
        {of} {props.hasMore && props.filtered ? `matching ${props.noun}` : props.noun}
      </p>
      {props.hasMore ? (
        <button type="button" className="secondary" disabled={props.loading} onClick={props.onMore}>
          {props.loading ? "Loading…" : "Load more"}
        </button>
      ) : null}
    </div>
  );
}

/** Search box and sort choice above a list. */
export function ListTools(props: {
  search: string;
  onSearch: (q: string) => void;
  searchLabel: string;
  /** Whether the text typed is what the list is searched by (too short a text is not sent). */
  applied: boolean;
  /** What a search needs, said under the box while the text typed is not searched by yet. */
  needs?: string;
  sort: string;
  onSort: (sort: string) => void;
  sorts: Readonly<Record<string, string>>;
  children?: ReactNode;
}) {
  const waiting = props.search.trim() !== "" && !props.applied;
  return (
    <div className="list-tools">
      <div className="field grow">
        <label htmlFor="list-search">{props.searchLabel}</label>
        <input
          id="list-search"
          type="search"
          value={props.search}
          aria-describedby={waiting ? "list-search-hint" : undefined}
          onChange={(e) => props.onSearch(e.target.value)}
          placeholder="At least 3 characters"
        />
        {/* Never silently ignored: a text too short to search by says so, and what is listed. */}
        {waiting ? (
          <p className="hint" id="list-search-hint" aria-live="polite">
            {props.needs ?? "Type 3 characters or more to search"}: the whole list is shown meanwhile.
          </p>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor="list-sort">Sort by</label>
        <select id="list-sort" value={props.sort} onChange={(e) => props.onSort(e.target.value)}>
          {Object.entries(props.sorts).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      {props.children}
    </div>
  );
}

/**
 * A cursor list as the merchant sees it: loading, empty (in the page's own words), or the table
 * with Load more.
 */
export function CursorTable<T>(props: {
  list: {
    items: T[];
    isPending: boolean;
    hasNextPage: boolean;
    isFetchingNextPage: boolean;
    fetchNextPage: () => unknown;
  };
  headers: Array<string | { label: string; num?: boolean }>;
  noun: string;
  empty: ReactNode;
  children: (item: T) => ReactNode;
  /** The store's count of the resource (useStoreCount), for "of n" under an unfiltered list. */
  total?: number | undefined;
  /** Whether a search or filter narrows the list (then the store's count is not its total). */
  filtered?: boolean;
}) {
  const { list } = props;
  if (list.isPending) return <Loading what={`Loading ${props.noun}`} />;
  if (list.items.length === 0) return <Empty>{props.empty}</Empty>;
  return (
    <>
      <Table headers={props.headers}>{list.items.map(props.children)}</Table>
      <LoadMore
        shown={list.items.length}
        hasMore={list.hasNextPage}
        loading={list.isFetchingNextPage}
        onMore={() => list.fetchNextPage()}
        noun={props.noun}
        total={props.total}
        filtered={props.filtered ?? false}
      />
    </>
  );
}
