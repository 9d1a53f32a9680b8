import { useTranslation } from "react-i18next";
import type { Mail } from "@/api";
import { addressName, formatTime } from "@/lib/format";
import { MailStatusTag } from "./MailStatusTag";

export interface MailItemProps {
  mail: Mail;
  selected: boolean;
  /** Sent mail shows who it went to; everything else who sent it. */
  outgoing?: boolean;
  onOpen: (mail: Mail) => void;
}

export function MailRow({ mail, selected, outgoing, onOpen }: MailItemProps) {
  const { t, i18n } = useTranslation();
  const unread = mail.status === "unread";
  const who = outgoing ? t("mail.toWhom", { name: addressName(mail.to) }) : addressName(mail.from);
  return (
    <button
      type="button"
      onClick={() => onOpen(mail)}
      aria-current={selected ? "true" : undefined}
      data-mail-id={mail.mail_id}
      className={`flex w-full min-h-11 flex-col gap-0.5 border-b border-line px-3 py-2 text-left ${selected ? "bg-accent-soft" : "hover:bg-raised"}`}
    >
      <span className="flex items-center gap-2 text-sm">
        {unread ? (
          <span className="size-2 shrink-0 rounded-full bg-accent">
            <span className="sr-only">{t("mail.unread")}</span>
          </span>
        ) : null}
        <span className={`truncate ${unread ? "font-semibold" : ""}`}>{who}</span>
        <span className="ml-auto shrink-0 text-xs text-muted tabular-nums">{formatTime(mail.created_at, i18n.language)}</span>
      </span>
      <span className="flex items-center gap-2">
        <span className={`truncate text-sm ${unread ? "font-semibold" : ""}`}>{mail.subject || t("mail.noSubject")}</span>
        <MailStatusTag mail={mail} />
      </span>
      <span className="truncate text-xs text-muted">{mail.body_preview}</span>
    </button>
  );
}
