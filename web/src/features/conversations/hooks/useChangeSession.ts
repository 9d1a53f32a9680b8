import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { SessionChange, SessionDetail } from "@/api";
import { sdk } from "@/lib/sdk";
import { sessionKeys } from "../api/keys";

/** Rename, close / reopen, change the budget; patches the cached conversation. */
export function useChangeSession(sessionId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: Partial<SessionChange>) => sdk.changeSession(sessionId, change),
    onSuccess: (session) => {
      queryClient.setQueryData<SessionDetail>(sessionKeys.detail(sessionId), (old) =>
        old ? { ...old, session } : old,
      );
      void queryClient.invalidateQueries({ queryKey: sessionKeys.lists() });
    },
  });
}
