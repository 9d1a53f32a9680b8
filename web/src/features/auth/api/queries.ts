import { queryOptions } from "@tanstack/react-query";
import { ApiError } from "@/api";
import { sdk } from "@/lib/sdk";

export const meKey = ["me"] as const;

/**
 * Who is signed in. Asked through `GET /auth/session`, which answers `null` rather
 * than `401` when nobody is (the browser logs every 4xx in its console, and the login
 * page would start with one); nobody is then this query's 401, as `GET /me`'s was.
 */
export const meQuery = () =>
  queryOptions({
    queryKey: meKey,
    queryFn: async () => {
      const { user } = await sdk.signedIn();
      if (!user) throw new ApiError(401, "unauthorized", "not signed in");
      return user;
    },
    staleTime: Infinity,
    retry: false,
  });
