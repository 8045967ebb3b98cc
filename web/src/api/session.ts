import { useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import type { Account, DashboardStore, Store } from "./types.ts";

/** The signed-in merchant (null when signed out), asked once and kept in the query cache. */
export function useMe() {
  return useQuery({
    queryKey: ["me"],
    queryFn: async () => {
      const res = await api.GET("/api/v1/dashboard/me");
      if (res.response.status === 401) return null;
      return (await unwrap<Account>(Promise.resolve(res))).data;
    },
    staleTime: 60_000,
  });
}

export function useStores(enabled = true) {
  return useQuery({
    queryKey: ["stores"],
    // Each with the account's role there and what it allows (the store menu shows only that).
    queryFn: async () => (await unwrap<DashboardStore[]>(api.GET("/api/v1/dashboard/stores"))).data,
    enabled,
  });
}

export type { DashboardStore, Store };

/** Forgets everything the signed-in merchant could see (sign-out, an expired session). */
export function useForget() {
  const client = useQueryClient();
  return () => {
    client.setQueryData(["me"], null);
    client.removeQueries({ predicate: (q) => q.queryKey[0] !== "me" });
  };
}
