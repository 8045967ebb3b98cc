import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useParams } from "react-router";
import { api, unwrap } from "../api/client.ts";
import type { Store } from "../api/types.ts";
import { SEARCH_MIN_LENGTH } from "../contract.ts";

/** The value, once it has stopped changing for `ms` (a search box that asks as you type). */
export function useDebounced<T>(value: T, ms = 300): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** The store slug of the page's path. */
export function useSlug(): string {
  const { slug } = useParams();
  if (!slug) throw new Error("no store in the path");
  return slug;
}

/** The store of the page's path (its settings page and every page that needs its currency share it). */
export function useStore(slug: string) {
  return useQuery({
    queryKey: ["store", slug],
    queryFn: async () =>
      (await unwrap<Store>(api.GET("/api/v1/dashboard/stores/{slug}", { params: { path: { slug } } }))).data,
  });
}

/** A search text the list endpoints accept (the contract's SearchText: 3 characters or more), or undefined. */
export function searchParam(text: string): string | undefined {
  const t = text.trim();
  return t.length >= SEARCH_MIN_LENGTH ? t : undefined;
}

/**
 * The Idempotency-Key of the form's next create: kept while the same submission is retried after
 * no answer (a network failure, a 5xx: the create may have happened, and the retry must not make
 * a second), renewed once the server answered (the server keeps 2xx and 4xx answers per key, so
 * a corrected form needs a key of its own). `answered(error?)` says which happened.
 */
export function useIdempotencyKey(): [key: string, answered: (error?: unknown) => void] {
  const [key, setKey] = useState(() => crypto.randomUUID());
  return [
    key,
    (error?: unknown) => {
      const status = (error as { status?: number } | undefined)?.status;
      if (error === undefined || (status !== undefined && status > 0 && status < 500))
        setKey(crypto.randomUUID());
    },
  ];
}
