/**
 * A conversation's header: subject, alias (rename in place), status (close /
 * reopen), participants and the round-trip budget (click to change it).
 * "Close conversation" acts at once and offers Undo in a toast, which reopens it.
 */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { BudgetBadge } from "@/components/BudgetBadge";
import { Button } from "@/components/Button";
import { addressName } from "@/lib/format";
import { showToast } from "@/lib/toast";
import { sessionQuery } from "../api/queries";
import { useChangeSession } from "../hooks/useChangeSession";
import { AliasEditor } from "./AliasEditor";
import { AliasProposalBanner } from "./AliasProposalBanner";
import { BudgetEditor } from "./BudgetEditor";

const STATUS_STYLE = {
  active: "bg-accent-soft text-accent",
  waiting: "bg-warn-soft text-warn",
  completed: "bg-raised text-muted",
} as const;

export function ConversationHeader({ sessionId, onOpenConversation }: { sessionId: string; onOpenConversation?: () => void }) {
  const { t } = useTranslation();
  const { data } = useQuery(sessionQuery(sessionId));
  const change = useChangeSession(sessionId);
  const [editingBudget, setEditingBudget] = useState(false);
  if (!data) return null;
  const session = data.session;
  const closed = session.status === "completed";
  const close = async () => {
    await change.mutateAsync({ status: "completed" });
    showToast({
      message: t("session.closed"),
      action: { label: t("common.undo"), run: () => void change.mutateAsync({ status: "active" }) },
    });
  };
  return (
    <section aria-label={t("session.header")} className="flex flex-col gap-2 rounded-lg border border-line bg-surface p-3">
      <div className="flex flex-wrap items-center gap-2">
        <AliasEditor alias={session.session_alias} onRename={(alias) => change.mutateAsync({ session_alias: alias })} />
        <span data-chip="" className={`rounded px-2 py-0.5 text-xs font-medium whitespace-nowrap ${STATUS_STYLE[session.status]}`}>
          {t(`session.status.${session.status}`)}
        </span>
        <BudgetBadge
          limit={session.budget_limit}
          used={session.budget_used}
          remaining={session.budget_remaining}
          onClick={() => setEditingBudget((v) => !v)}
        />
        {session.budget_limit === "unlimited" ? (
          <button type="button" className="text-xs text-muted underline max-md:min-h-11" onClick={() => setEditingBudget((v) => !v)}>
            {t("budget.setLimit")}
          </button>
        ) : null}
        <span className="ml-auto flex gap-2">
          {onOpenConversation ? (
            <Button variant="ghost" onClick={onOpenConversation}>
              {t("session.open")}
            </Button>
          ) : null}
          <Button onClick={() => void (closed ? change.mutateAsync({ status: "active" }) : close())}>
            {closed ? t("session.reopen") : t("session.close")}
          </Button>
        </span>
      </div>
      <p className="text-sm text-muted wrap-anywhere">
        {t("session.participants")}: {session.participants.map(addressName).join(", ")} ·{" "}
        {t("session.mailCount", { count: session.mail_count })}
      </p>
      {editingBudget ? (
        <BudgetEditor
          limit={session.budget_limit}
          used={session.budget_used}
          onChange={(c) => change.mutateAsync(c)}
          onDone={() => setEditingBudget(false)}
        />
      ) : null}
      <AliasProposalBanner sessionId={sessionId} />
    </section>
  );
}
