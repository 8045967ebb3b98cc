import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { type ApiError, api, unwrap } from "./client.ts";

const COUNTS = {
  products: (slug: string) =>
    api.GET("/api/v1/dashboard/stores/{slug}/products/count", { params: { path: { slug } } }),
  customers: (slug: string) =>
    api.GET("/api/v1/dashboard/stores/{slug}/customers/count", { params: { path: { slug } } }),
  orders: (slug: string) =>
    api.GET("/api/v1/dashboard/stores/{slug}/orders/count", { params: { path: { slug } } }),
};

/**
 * How many of `resource` the store has (its count operation: kept counts, no scan), for "40 of
 * 1,250" under an unfiltered list; not asked while `enabled` is false (a filtered list). Kept under
 * the list's own key, so what refreshes the list refreshes it.
 */
export function useStoreCount(slug: string, resource: keyof typeof COUNTS, enabled = true) {
  return useQuery({
    queryKey: [resource, slug, "count"],
    queryFn: async () => (await unwrap<{ count: number }>(COUNTS[resource](slug))).data.count,
    enabled,
  }).data;
}

/**
 * A cursor list with "Load more": pages of the list endpoints (`meta.nextCursor`), kept in the
 * query cache under `key`. `fetchPage` asks for one page after `cursor`. `pages` is how many to
 * show (from the address, useListState): after a reload the list loads that many again.
 */
export function useCursorList<T>(
  key: readonly unknown[],
  fetchPage: (cursor: string | undefined) => Promise<{ data: T[]; meta: { nextCursor: string | null } }>,
  options: { enabled?: boolean; pages?: number; onPages?: (pages: number) => void } = {},
) {
  const query = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.meta.nextCursor ?? undefined,
    // A new search or sort keeps showing the last answer until its own arrives (no flash of
    // "Loading" at every keystroke); `isPlaceholderData` says the rows are the previous query's.
    placeholderData: keepPreviousData,
    enabled: options.enabled ?? true,
  });
  const loaded = query.isPlaceholderData ? 0 : (query.data?.pages.length ?? 0);
  const wanted = options.pages ?? 1;
  const { hasNextPage, isFetching, fetchNextPage } = query;
  useEffect(() => {
    if (loaded > 0 && loaded < wanted && hasNextPage && !isFetching) void fetchNextPage();
  }, [loaded, wanted, hasNextPage, isFetching, fetchNextPage]);
  const items = query.data?.pages.flatMap((p) => p.data) ?? [];
  return {
    ...query,
    items,
    error: query.error as ApiError | null,
    /** "Load more": one page further, and the address says so. */
    fetchNextPage: () => {
      options.onPages?.(loaded + 1);
      return fetchNextPage();
    },
  };
}
