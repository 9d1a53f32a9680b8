import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { Mail, MailAction } from "@/api";
import { sdk } from "@/lib/sdk";
import { mailKeys } from "../api/keys";

const NEXT_STATUS: Record<MailAction, Mail["status"]> = {
  read: "read",
  unread: "unread",
  archive: "archived",
  unarchive: "read",
  delete: "deleted",
  restore: "read",
};

/** Read / unread / archive / delete / restore one mail, then refresh the listings. */
export function useMailAction() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ mailId, action }: { mailId: string; action: MailAction }) =>
      sdk.setMailState(mailId, action),
    onSuccess: (_result, { mailId, action }) => {
      queryClient.setQueryData<Mail>(mailKeys.detail(mailId), (old) =>
        old ? { ...old, status: NEXT_STATUS[action] } : old,
      );
      void queryClient.invalidateQueries({ queryKey: mailKeys.lists() });
      void queryClient.invalidateQueries({ queryKey: mailKeys.unreadCount() });
    },
  });
}
