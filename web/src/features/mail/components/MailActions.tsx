import { useTranslation } from "react-i18next";
import type { Mail } from "@/api";
import { Button } from "@/components/Button";

export type ReplyMode = "reply" | "replyAll" | "forward";

export interface MailActionsProps {
  mail: Mail;
  onReply: (mode: ReplyMode) => void;
  onArchive: () => void;
  onDelete: () => void;
  onRestore: () => void;
  onMarkUnread: () => void;
}

export function MailActions({ mail, onReply, onArchive, onDelete, onRestore, onMarkUnread }: MailActionsProps) {
  const { t } = useTranslation();
  const received = mail.status != null;
  return (
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
      {received && mail.status !== "unread" && mail.status !== "deleted" ? (
        <Button variant="ghost" onClick={onMarkUnread}>
          {t("mail.markUnread")}
        </Button>
      ) : null}
    </div>
  );
}
