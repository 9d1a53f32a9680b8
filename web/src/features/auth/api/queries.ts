import { queryOptions } from "@tanstack/react-query";
import { sdk } from "@/lib/sdk";

export const meKey = ["me"] as const;

export const meQuery = () =>
  queryOptions({ queryKey: meKey, queryFn: async () => (await sdk.me()).user, staleTime: Infinity, retry: false });
