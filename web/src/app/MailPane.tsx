/**
 * One mail in the reading pane, composed from the features: the mail itself,
 * its conversation's header, a permission card when it is a request, the tree.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { Mail, User } from "@/api";
import { ErrorNote } from "@/components/ErrorNote";
import { Loading } from "@/components/Loading";
import { PermissionCard } from "@/features/approvals/components/PermissionCard";
import { useDecide } from "@/features/approvals/hooks/useDecide";
import { QuickReply } from "@/features/compose/components/QuickReply";
import { openCompose } from "@/features/compose/hooks/composeStore";
import { sessionKeys } from "@/features/conversations/api/keys";
import { ConversationHeader } from "@/features/conversations/components/ConversationHeader";
import { ConversationTree } from "@/features/conversations/components/ConversationTree";
import { mailKeys } from "@/features/mail/api/keys";
import { folderUnreadQuery, mailQuery } from "@/features/mail/api/queries";
import { MailReader } from "@/features/mail/components/MailReader";
import { useMailAction } from "@/features/mail/hooks/useMailActions";
import { navigate } from "@/lib/router";

export interface MailPaneProps {
  mailId: string;
  me: User;
  /** Where to go after archive / delete (the list, without the mail). */
  onGone: () => void;
  onOpenMail: (mailId: string) => void;
}

/** The conversation cards count unread mail: a mail's new state refreshes them too. */
function useRecountConversations() {
  const queryClient = useQueryClient();
  return () => void queryClient.invalidateQueries({ queryKey: sessionKeys.lists() });
}

export function useMailCommands(mail: Mail | undefined, onGone: () => void) {
  const action = useMailAction();
  const recount = useRecountConversations();
  const run = (name: "archive" | "delete" | "restore" | "unread") => {
    if (!mail) return;
    void action.mutateAsync({ mailId: mail.mail_id, action: name }).then(() => {
      recount();
      if (name !== "unread") onGone();
    });
  };
  return {
    reply: (mode: "reply" | "replyAll" | "forward") => mail && openCompose({ mode, mail }),
    archive: () => run("archive"),
    remove: () => run("delete"),
    restore: () => run("restore"),
    markUnread: () => run("unread"),
  };
}

export function MailPane({ mailId, me, onGone, onOpenMail }: MailPaneProps) {
  const query = useQuery(mailQuery(mailId));
  const mail = query.data;
  const decide = useDecide(me.name, mailKeys.detail(mailId));
  const mark = useMailAction();
  const recount = useRecountConversations();
  const commands = useMailCommands(mail, onGone);

  // A filed mail says `archived` read or not: its folder's unread listing tells.
  const folderId = mail?.status === "archived" ? mail.folder_id : null;
  const folderUnread = useQuery({ ...folderUnreadQuery(folderId ?? ""), enabled: Boolean(folderId) });
  const unread = mail?.status === "unread" || Boolean(folderUnread.data?.includes(mailId));
  useEffect(() => {
    if (unread) mark.mutate({ mailId, action: "read" }, { onSuccess: recount });
    // Once per opened unread mail; `mark` is a new object every render.
  }, [mailId, unread]);

  if (query.isPending) return <Loading />;
  if (query.isError) return <ErrorNote error={query.error} className="m-4" />;
  const data = query.data;
  return (
    <MailReader
      mail={data}
      conversation={
        <ConversationHeader
          sessionId={data.session_id}
          onOpenConversation={() => navigate(`/conversations/${encodeURIComponent(data.session_id)}`)}
        />
      }
      body={
        data.mail_type === "permission_request" ? (
          <PermissionCard
            mail={data}
            me={me.name}
            onDecide={(decision, note) => decide.mutateAsync({ mailId: data.mail_id, decision, note })}
          />
        ) : undefined
      }
      thread={
        <>
          {data.mail_type !== "permission_request" ? <QuickReply key={data.mail_id} mail={data} me={me.name} /> : null}
          <ConversationTree mailId={data.mail_id} onOpen={onOpenMail} />
        </>
      }
      onReply={commands.reply}
      onArchive={commands.archive}
      onDelete={commands.remove}
      onRestore={commands.restore}
      onMarkUnread={commands.markUnread}
      onMoved={onGone}
    />
  );
}
