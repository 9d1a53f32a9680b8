import { useTranslation } from "react-i18next";
import type { Session } from "@/api";
import { BudgetBadge } from "@/components/BudgetBadge";
import { PresenceDot } from "@/components/PresenceDot";
import { addressName, formatTime } from "@/lib/format";
import type { MailItemProps } from "./MailRow";
import { MailStatusTag } from "./MailStatusTag";

export interface MailCardProps extends MailItemProps {
  session?: Session | undefined;
  senderOnline?: boolean | undefined;
}

/** A mail as a work card: subject, conversation alias, latest sender, excerpt, status, budget. */
export function MailCard({ mail, selected, outgoing, onOpen, session, senderOnline }: MailCardProps) {
  const { t, i18n } = useTranslation();
  const unread = mail.status === "unread";
  const who = outgoing ? mail.to : mail.from;
  return (
    <button
      type="button"
      onClick={() => onOpen(mail)}
      aria-current={selected ? "true" : undefined}
      data-mail-id={mail.mail_id}
      className={`m-2 flex w-[calc(100%-1rem)] flex-col gap-1.5 rounded-lg border p-3 text-left shadow-sm ${selected ? "border-accent bg-accent-soft" : "border-line bg-surface hover:bg-raised"}`}
    >
      <span className="flex items-start gap-2">
        <span className={`line-clamp-2 flex-1 ${unread ? "font-semibold" : "font-medium"}`}>{mail.subject || t("mail.noSubject")}</span>
        <span className="shrink-0 text-xs text-muted tabular-nums">{formatTime(mail.created_at, i18n.language)}</span>
      </span>
      <span className="flex flex-wrap items-center gap-2 text-xs text-muted">
        {mail.session_alias ? <span className="font-mono">#{mail.session_alias}</span> : null}
        <span className="inline-flex items-center gap-1">
          {senderOnline !== undefined ? <PresenceDot online={senderOnline} /> : null}
          {addressName(who)}
        </span>
        {session ? <span>{t(`session.status.${session.status}`)}</span> : null}
      </span>
      <span className="line-clamp-2 text-sm text-muted">{mail.body_preview}</span>
      <span className="flex items-center gap-2">
        <MailStatusTag mail={mail} />
        {session ? (
          <BudgetBadge limit={session.budget_limit} used={session.budget_used} remaining={session.budget_remaining} />
        ) : null}
      </span>
    </button>
  );
}
