import { useTranslation } from "react-i18next";
import type { Session } from "@/api";
import { BudgetBadge } from "@/components/BudgetBadge";
import { ParticipantNames } from "@/components/ParticipantNames";
import { PartyName } from "@/components/PartyName";
import { TaskBadge } from "@/components/TaskBadge";
import { formatTime } from "@/lib/format";
import type { MailItemProps } from "./MailRow";
import { MailStatusTag } from "./MailStatusTag";

export interface MailCardProps extends MailItemProps {
  /** The mail's conversation as the conversation list has it (latest mail, participants). */
  session?: Session | undefined;
  me?: string;
}

/**
 * A conversation as a work card (one per conversation: the folder's newest mail of
 * it stands for it): subject, alias and status, who takes part (agents with their
 * online dot), the conversation's latest sender and plain excerpt, its unread mail,
 * the task list of its newest mail that has one (`3/5`), what it waits for, and the
 * budget. Without the conversation list's entry, the mail's own facts.
 */
export function MailCard({ mail, selected, outgoing, onOpen, session, me, unread = mail.status === "unread" }: MailCardProps) {
  const { t, i18n } = useTranslation();
  const latest = session?.latest;
  const sender = latest ? latest.from : outgoing ? mail.to : mail.from;
  const excerpt = latest ? latest.excerpt : mail.excerpt;
  const time = latest ? latest.created_at : mail.created_at;
  const unreadCount = session ? (session.unread ?? 0) : unread ? 1 : 0;
  const tasks = session?.tasks ?? (mail.tasks_total > 0 ? { done: mail.tasks_done, total: mail.tasks_total } : null);
  const bold = unreadCount > 0 || unread;
  return (
    <button
      type="button"
      onClick={() => onOpen(mail)}
      aria-current={selected ? "true" : undefined}
      data-mail-id={mail.mail_id}
      data-session-id={mail.session_id}
      className={`m-2 flex w-[calc(100%-1rem)] flex-col gap-1.5 rounded-lg border p-3 text-left shadow-sm ${selected ? "border-accent bg-accent-soft" : "border-line bg-surface hover:bg-raised"}`}
    >
      <span className="flex items-start gap-2">
        <span className={`line-clamp-2 min-w-0 flex-1 wrap-anywhere ${bold ? "font-semibold" : "font-medium"}`}>{mail.subject || t("mail.noSubject")}</span>
        <span className="shrink-0 text-xs text-muted tabular-nums">{formatTime(time, i18n.language)}</span>
      </span>
      <span className="flex flex-wrap items-center gap-2 text-xs text-muted">
        {mail.session_alias ? <span className="max-w-full truncate font-mono">#{mail.session_alias}</span> : null}
        {session ? <span>{t(`session.status.${session.status}`)}</span> : null}
        {session ? <ParticipantNames participants={session.participant_details ?? []} {...(me ? { except: me } : {})} /> : null}
      </span>
      <span className="line-clamp-2 text-sm text-muted wrap-anywhere">
        <span className="font-medium text-ink"><PartyName address={sender} /></span>
        {excerpt ? `: ${excerpt}` : null}
      </span>
      <span className="flex flex-wrap items-center gap-2">
        {unreadCount > 0 ? (
          <span className="rounded-full bg-accent px-2 py-0.5 text-xs font-semibold text-accent-ink tabular-nums" data-unread>
            {t("mail.unreadCount", { count: unreadCount })}
          </span>
        ) : null}
        <MailStatusTag mail={mail} />
        {tasks ? <TaskBadge done={tasks.done} total={tasks.total} /> : null}
        {session ? (
          <BudgetBadge limit={session.budget_limit} used={session.budget_used} remaining={session.budget_remaining} />
        ) : null}
      </span>
    </button>
  );
}
