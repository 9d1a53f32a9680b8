/**
 * A conversation's round-trip budget: how many more mails its agent may send on
 * its own. Hidden when unlimited; orange when one is left; red when none is.
 */
import { useTranslation } from "react-i18next";
import type { Budget } from "@/api";

export interface BudgetBadgeProps {
  limit: Budget;
  used: number;
  remaining?: Budget;
  onClick?: () => void;
}

export type BudgetLevel = "normal" | "low" | "exhausted";

export function budgetLevel(remaining: number): BudgetLevel {
  if (remaining <= 0) return "exhausted";
  if (remaining === 1) return "low";
  return "normal";
}

const STYLE: Record<BudgetLevel, string> = {
  normal: "bg-raised text-muted border-line",
  low: "bg-warn-soft text-warn border-warn",
  exhausted: "bg-danger-soft text-danger border-danger",
};

export function BudgetBadge({ limit, used, remaining, onClick }: BudgetBadgeProps) {
  const { t } = useTranslation();
  if (limit === "unlimited") return null;
  const left = typeof remaining === "number" ? remaining : Math.max(0, limit - used);
  const level = budgetLevel(left);
  const label = t("budget.label", { left, limit });
  const className = `inline-flex items-center gap-1 rounded-full border px-2 py-0.5 text-xs font-medium whitespace-nowrap tabular-nums ${STYLE[level]}`;
  const content = (
    <>
      <span aria-hidden="true">↻ {t("budget.short", { left, limit })}</span>
      <span className="sr-only">{label}</span>
    </>
  );
  if (onClick) {
    return (
      <button type="button" className={className} data-level={level} title={label} onClick={onClick}>
        {content}
      </button>
    );
  }
  // Not a live region: a list shows many badges; the text is read in place.
  return (
    <span className={className} data-level={level} title={label}>
      {content}
    </span>
  );
}
