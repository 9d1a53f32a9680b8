import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { Mail } from "@/api";
import { sdk } from "@/lib/sdk";
import { permissionKeys } from "../api/keys";

/** Decide a request; `detailKey` is the mail's query key, patched with the decision. */
export function useDecide(me: string, detailKey?: readonly unknown[]) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ mailId, decision, note }: { mailId: string; decision: string; note?: string }) =>
      sdk.decide(mailId, decision, note),
    onSuccess: (decided, { note }) => {
      if (detailKey) {
        queryClient.setQueryData<Mail>(detailKey, (old) =>
          old
            ? {
                ...old,
                permission_state: "decided",
                decision: decided.decision,
                decision_note: note ?? null,
                decided_by: me,
                decided_at: new Date().toISOString(),
              }
            : old,
        );
      }
      void queryClient.invalidateQueries({ queryKey: permissionKeys.all });
    },
  });
}
