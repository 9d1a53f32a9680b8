import { useTranslation } from "react-i18next";
import type { Mail } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { useMoveMail } from "../hooks/useMoveMail";
import { MoveToMenu } from "./LazyMenus";

export type ReplyMode = "reply" | "replyAll" | "forward";

export interface MailActionsProps {
  mail: Mail;
  onReply: (mode: ReplyMode) => void;
  onArchive: () => void;
  onDelete: () => void;
  onRestore: () => void;
  onMarkUnread: () => void;
  /** The mail went somewhere else through "Move to…" (it left the list on screen). */
  onMoved: () => void;
}

export function MailActions({ mail, onReply, onArchive, onDelete, onRestore, onMarkUnread, onMoved }: MailActionsProps) {
  const { t } = useTranslation();
  const move = useMoveMail();
  const received = mail.status != null;
  return (
    <div className="flex flex-col gap-2">
      <div role="toolbar" aria-label={t("mail.actions")} className="flex flex-wrap gap-2">
        <Button onClick={() => onReply("reply")} aria-keyshortcuts="r">
          {t("mail.reply")}
        </Button>
        <Button onClick={() => onReply("replyAll")} aria-keyshortcuts="a">
          {t("mail.replyAll")}
        </Button>
        <Button onClick={() => onReply("forward")} aria-keyshortcuts="f">
          {t("mail.forward")}
        </Button>
        {received && mail.status !== "deleted" && mail.status !== "archived" ? (
          <Button onClick={onArchive} aria-keyshortcuts="e">
            {t("mail.archive")}
          </Button>
        ) : null}
        {received && mail.status === "deleted" ? (
          <Button onClick={onRestore}>{t("mail.restore")}</Button>
        ) : received ? (
          <Button onClick={onDelete} aria-keyshortcuts="#">
            {t("mail.delete")}
          </Button>
        ) : null}
        {received ? (
          <MoveToMenu mail={mail} disabled={move.isPending} onMove={(to) => move.mutate({ mail, to }, { onSuccess: onMoved })} />
        ) : null}
        {received && mail.status !== "unread" && mail.status !== "deleted" ? (
          <Button variant="ghost" onClick={onMarkUnread}>
            {t("mail.markUnread")}
          </Button>
        ) : null}
      </div>
      <ErrorNote error={move.error} words={{ codes: { not_found: t("folders.moveGone") } }} />
    </div>
  );
}
