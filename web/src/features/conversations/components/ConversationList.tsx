import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import type { Session } from "@/api";
import { BudgetBadge } from "@/components/BudgetBadge";
import { TaskBadge } from "@/components/TaskBadge";
import { EmptyState } from "@/components/EmptyState";
import { ErrorNote } from "@/components/ErrorNote";
import { Loading } from "@/components/Loading";
import { ParticipantNames } from "@/components/ParticipantNames";
import { formatTime } from "@/lib/format";
import { sessionsQuery } from "../api/queries";
import { PartyName } from "@/components/PartyName";

export interface ConversationListProps {
  selectedId: string | null;
  onOpen: (session: Session) => void;
  filter?: string;
  /** My name, left out of the participants shown. */
  me?: string;
}

/**
 * Every conversation I take part in, the most recently active first, as cards:
 * subject, alias, status, participants (agents with their online dot), the
 * latest sender and excerpt, the budget, the newest task list's progress, unread mail. All from the list's own items.
 */
export function ConversationList({ selectedId, onOpen, filter = "", me }: ConversationListProps) {
  const { t, i18n } = useTranslation();
  const query = useQuery(sessionsQuery());
  if (query.isPending) return <Loading />;
  if (query.isError) return <ErrorNote error={query.error} className="m-4" />;
  const needle = filter.trim().toLowerCase();
  const sessions = [...query.data.sessions]
    .filter((s) => !needle || `${s.subject} ${s.session_alias ?? ""} ${s.participants.join(" ")}`.toLowerCase().includes(needle))
    .sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  if (sessions.length === 0) return <EmptyState title={t("session.none")} />;
  return (
    <ul className="min-h-0 flex-1 overflow-y-auto" aria-label={t("nav.conversations")}>
      {sessions.map((s) => (
        <li key={s.session_id}>
          <button
            type="button"
            onClick={() => onOpen(s)}
            aria-current={s.session_id === selectedId ? "true" : undefined}
            className={`m-2 flex w-[calc(100%-1rem)] flex-col gap-1 rounded-lg border p-3 text-left ${s.session_id === selectedId ? "border-accent bg-accent-soft" : "border-line bg-surface hover:bg-raised"}`}
          >
            <span className="flex items-start gap-2">
              <span className="line-clamp-2 min-w-0 flex-1 font-medium wrap-anywhere">{s.subject || t("mail.noSubject")}</span>
              <span className="shrink-0 text-xs text-muted">{formatTime(s.latest?.created_at ?? s.updated_at, i18n.language)}</span>
            </span>
            <span className="flex flex-wrap items-center gap-2 text-xs text-muted">
              {s.session_alias ? <span className="max-w-full truncate font-mono">#{s.session_alias}</span> : null}
              <span>{t(`session.status.${s.status}`)}</span>
              <ParticipantNames participants={s.participant_details ?? []} {...(me ? { except: me } : {})} />
              <span>{t("session.mailCount", { count: s.mail_count })}</span>
              <BudgetBadge limit={s.budget_limit} used={s.budget_used} remaining={s.budget_remaining} />
              {s.tasks ? <TaskBadge done={s.tasks.done} total={s.tasks.total} /> : null}
              {s.unread ? <span className="font-semibold text-accent">{t("mail.unreadCount", { count: s.unread })}</span> : null}
            </span>
            {s.latest ? (
              <span className="line-clamp-2 text-sm text-muted">
                <span className="font-medium text-ink"><PartyName address={s.latest.from} /></span>
                {s.latest.excerpt ? `: ${s.latest.excerpt}` : null}
              </span>
            ) : null}
          </button>
        </li>
      ))}
    </ul>
  );
}
