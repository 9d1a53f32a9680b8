import { queryOptions } from "@tanstack/react-query";
import { sdk } from "@/lib/sdk";
import { permissionKeys, type RequestState } from "./keys";

/** Requests addressed to me; "Needs decision" shows the open ones oldest first. */
export const permissionsQuery = (state: RequestState) =>
  queryOptions({
    queryKey: permissionKeys.list(state),
    // The oldest request has waited longest: the server orders, so the first 500 are the oldest.
    queryFn: () => sdk.permissions({ state, order: "oldest", limit: 500 }),
  });
