import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import type { ApiError } from "./client.ts";

/**
 * A cursor list with "Load more": pages of the list endpoints (`meta.nextCursor`), kept in the
 * query cache under `key`. `fetchPage` asks for one page after `cursor`.
 */
export function useCursorList<T>(
  key: readonly unknown[],
  fetchPage: (cursor: string | undefined) => Promise<{ data: T[]; meta: { nextCursor: string | null } }>,
  enabled = true,
) {
  const query = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.meta.nextCursor ?? undefined,
    // A new search or sort keeps showing the last answer until its own arrives (no flash of
    // "Loading" at every keystroke); `isPlaceholderData` says the rows are the previous query's.
    placeholderData: keepPreviousData,
    enabled,
  });
  const items = query.data?.pages.flatMap((p) => p.data) ?? [];
  return { ...query, items, error: query.error as ApiError | null };
}
