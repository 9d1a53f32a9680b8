import { queryOptions } from "@tanstack/react-query";
import { sdk } from "@/lib/sdk";
import { permissionKeys, type RequestState } from "./keys";

/** Requests addressed to me; "Needs decision" shows the open ones oldest first. */
export const permissionsQuery = (state: RequestState) =>
  queryOptions({
    queryKey: permissionKeys.list(state),
    queryFn: async () => {
      const found = await sdk.permissions({ state, limit: 500 });
      // The API lists newest first and has no `order`; the oldest request waits longest.
      const mails = [...found.mails].sort((a, b) => a.created_at.localeCompare(b.created_at));
      return { mails, total: found.total };
    },
  });
