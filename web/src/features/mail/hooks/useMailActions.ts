import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { Mail, MailAction } from "@/api";
import { sdk } from "@/lib/sdk";
import { mailKeys } from "../api/keys";

/** Read / unread / archive / delete / restore one mail, then refresh the listings. */
export function useMailAction() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ mailId, action }: { mailId: string; action: MailAction }) =>
      sdk.setMailState(mailId, action),
    // The answer says where the mail is now: restoring goes back to where it was before
    // Trash, and a filed or archived mail stays `archived` whether read or not.
    onSuccess: ({ status }, { mailId }) => {
      queryClient.setQueryData<Mail>(mailKeys.detail(mailId), (old) => (old ? { ...old, status } : old));
      void queryClient.invalidateQueries({ queryKey: mailKeys.lists() });
      void queryClient.invalidateQueries({ queryKey: mailKeys.unreadCount() });
      void queryClient.invalidateQueries({ queryKey: mailKeys.folders() });
    },
  });
}
