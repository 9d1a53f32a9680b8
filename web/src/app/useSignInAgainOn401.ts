import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { ApiError } from "@/api";
import { meKey } from "@/features/auth/api/queries";

/** When the login expires mid-session, any 401 sends the user back to the login page. */
export function useSignInAgainOn401(): void {
  const queryClient = useQueryClient();
  useEffect(
    () =>
      queryClient.getQueryCache().subscribe((event) => {
        if (event.type !== "updated" || event.action.type !== "error") return;
        const error = event.action.error;
        if (!(error instanceof ApiError) || error.status !== 401) return;
        if (event.query.queryKey[0] === meKey[0]) return;
        void queryClient.invalidateQueries({ queryKey: meKey });
      }),
    [queryClient],
  );
}
