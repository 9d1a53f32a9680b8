/** Change a conversation's round-trip budget: a new limit, unlimited, or reset the count. */
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { limits, type Budget, type SessionChange } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";

const BOUNDS = limits.schemas.SessionChange.budget_limit;

export interface BudgetEditorProps {
  limit: Budget;
  used: number;
  onChange: (change: Partial<SessionChange>) => Promise<unknown>;
  onDone: () => void;
}

export function BudgetEditor({ limit, used, onChange, onDone }: BudgetEditorProps) {
  const { t } = useTranslation();
  const inputId = useId();
  const [value, setValue] = useState(limit === "unlimited" ? "" : String(limit));
  const [error, setError] = useState<unknown>(null);

  async function apply(change: Partial<SessionChange>) {
    setError(null);
    try {
      await onChange(change);
      onDone();
    } catch (cause) {
      setError(cause);
    }
  }

  return (
    <form
      className="flex flex-col gap-2 rounded-md border border-line bg-surface p-3"
      onSubmit={(e) => {
        e.preventDefault();
        const n = Number.parseInt(value, 10);
        void apply({ budget_limit: Number.isFinite(n) && n >= 1 ? n : "unlimited" });
      }}
    >
      <p className="text-sm text-muted">{t("budget.explain", { used })}</p>
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor={inputId} className="text-sm">
          {t("budget.limit")}
        </label>
        <input
          id={inputId}
          type="number"
          min={BOUNDS.minimum}
          max={BOUNDS.maximum}
          inputMode="numeric"
          value={value}
          placeholder={t("budget.unlimited")}
          // Held to the API's bound as it is typed: more than the most is the most.
          onChange={(e) => setValue(Number(e.target.value) > BOUNDS.maximum ? String(BOUNDS.maximum) : e.target.value)}
          className="min-h-9 w-24 rounded-md border border-line bg-canvas px-2 text-sm max-md:min-h-11"
        />
        <Button type="submit" variant="primary">
          {t("common.save")}
        </Button>
        <Button onClick={() => void apply({ budget_limit: "unlimited" })}>{t("budget.makeUnlimited")}</Button>
        <Button onClick={() => void apply({ reset_budget_used: true })}>{t("budget.reset")}</Button>
        <Button variant="ghost" onClick={onDone}>
          {t("common.cancel")}
        </Button>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}
