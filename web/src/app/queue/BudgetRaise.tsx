/** A conversation at one round left or none, with its budget raised in place (and why). */
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { limits, type Session } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { useChangeSession } from "@/features/conversations/hooks/useChangeSession";
import { navigate } from "@/lib/router";
import { roundsLeft } from "./workQueue";

const BOUNDS = limits.schemas.SessionChange.budget_limit;
const MAX_REASON = limits.schemas.SessionChange.reason.maxLength;

export function BudgetRaise({ session }: { session: Session }) {
  const { t } = useTranslation();
  const id = useId();
  const change = useChangeSession(session.session_id);
  const limit = session.budget_limit === "unlimited" ? session.budget_used : session.budget_limit;
  const [value, setValue] = useState(String(Math.min(BOUNDS.maximum, limit + 10)));
  const [reason, setReason] = useState("");
  const name = session.session_alias ? `#${session.session_alias}` : session.subject;
  const left = roundsLeft(session) ?? 0;

  return (
    <form
      data-testid="queue-budget"
      className="flex flex-col gap-2 rounded-lg border border-line bg-surface p-3"
      onSubmit={(e) => {
        e.preventDefault();
        const n = Number.parseInt(value, 10);
        if (!Number.isFinite(n) || n < BOUNDS.minimum) return;
        change.mutate({ budget_limit: n, ...(reason.trim() ? { reason: reason.trim() } : {}) });
      }}
    >
      <a
        href={`/conversations/${encodeURIComponent(session.session_id)}`}
        onClick={(e) => {
          e.preventDefault();
          navigate(`/conversations/${encodeURIComponent(session.session_id)}`);
        }}
        className="font-semibold wrap-anywhere hover:underline"
      >
        {name}
      </a>
      <p className={`text-sm ${left === 0 ? "text-danger" : "text-warn"}`}>
        {t("queue.roundsLeft", { count: left, limit })}
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor={`${id}-limit`} className="text-sm">
          {t("queue.newLimit")}
        </label>
        <input
          id={`${id}-limit`}
          type="number"
          min={BOUNDS.minimum}
          max={BOUNDS.maximum}
          inputMode="numeric"
          value={value}
          onChange={(e) => setValue(Number(e.target.value) > BOUNDS.maximum ? String(BOUNDS.maximum) : e.target.value)}
          className="min-h-9 w-24 rounded-md border border-line bg-canvas px-2 text-sm max-md:min-h-11"
        />
      </div>
      <label htmlFor={`${id}-reason`} className="text-sm text-muted">
        {t("queue.reason")}
      </label>
      <textarea
        id={`${id}-reason`}
        value={reason}
        maxLength={MAX_REASON}
        onChange={(e) => setReason(e.target.value)}
        rows={2}
        className="rounded-md border border-line bg-canvas p-2 text-sm"
      />
      <div>
        <Button type="submit" variant="primary" disabled={change.isPending}>
          {t("queue.raise")}
        </Button>
      </div>
      <ErrorNote error={change.error} />
    </form>
  );
}
