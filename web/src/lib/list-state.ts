import { useCallback, useEffect, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import { useDebounced } from "./hooks.ts";

/**
 * A list's search, sort, filters and how many pages are shown, kept in the address
 * (`?q=linen&sort=-price&status=paid&pages=3`): a reload, Back and a shared link open the same
 * list. Values not in `options` (an old link, a typo) read as the default. The search box types
 * freely; the address follows it once typing pauses, replacing its entry (one history entry per
 * list, not one per keystroke); a sort or filter chosen is an entry of its own, so Back undoes it.
 */
export function useListState<S extends string, F extends string = never>(config: {
  /** The list's sorts and their labels (an address naming another reads as the default). */
  sorts: Readonly<Record<S, string>>;
  defaultSort: NoInfer<S>;
  /** Each filter's allowed values ("" is "any"). */
  filters?: Record<F, readonly string[]>;
}) {
  const [params, setParams] = useSearchParams();
  const urlSearch = params.get("q") ?? "";
  const [search, setSearch] = useState(urlSearch);
  const typed = useDebounced(search);
  // The address as it is now, read by `update` (stable: setParams changes with every address).
  const latest = useRef({ params, urlSearch, setParams });
  latest.current = { params, urlSearch, setParams };

  const update = useCallback((changes: Record<string, string>, replace: boolean) => {
    const next = new URLSearchParams(latest.current.params);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    // Another search, sort or filter is another list: it starts at its first page.
    if (!("pages" in changes)) next.delete("pages");
    latest.current.setParams(next, { replace, preventScrollReset: true });
  }, []);

  // The address follows the search box once typing pauses (and only then: Back changing the
  // address must not be undone by a search typed before it).
  useEffect(() => {
    if (typed.trim() !== latest.current.urlSearch.trim()) update({ q: typed.trim() }, true);
  }, [typed, update]);
  // …and the box follows the address when it changes from outside (Back, a link).
  useEffect(() => {
    setSearch((current) => (current.trim() === urlSearch ? current : urlSearch));
  }, [urlSearch]);

  const sortParam = params.get("sort") ?? "";
  const isSort = (value: string): value is S => Object.hasOwn(config.sorts, value);
  const sort: S = isSort(sortParam) ? sortParam : config.defaultSort;
  const filter = (name: F): string => {
    const value = params.get(name) ?? "";
    return config.filters?.[name].includes(value) ? value : "";
  };
  const pages = Math.min(Math.max(Number.parseInt(params.get("pages") ?? "1", 10) || 1, 1), 50);
  return {
    /** What the search box shows. */
    search,
    setSearch,
    /** The search the list is asked for: the address's. */
    q: urlSearch,
    sort,
    setSort: (value: string) => update({ sort: value === config.defaultSort ? "" : value }, false),
    filter,
    setFilter: (name: F, value: string) => update({ [name]: value }, false),
    /** Pages shown ("Load more" adds one; a reload loads as many again). */
    pages,
    setPages: (n: number) => update({ pages: n > 1 ? String(n) : "" }, true),
  };
}
