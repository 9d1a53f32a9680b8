/**
 * A Markdown task list's progress (`- [x]` items of all), as `3/5`; hidden when the
 * mail has no task list. Green once every task is done.
 */
import { useTranslation } from "react-i18next";

export function TaskBadge({ done, total }: { done: number; total: number }) {
  const { t } = useTranslation();
  if (total <= 0) return null;
  const complete = done >= total;
  return (
    <span
      className={`inline-flex items-center gap-1 rounded-full border px-2 py-0.5 text-xs font-medium tabular-nums ${complete ? "border-ok bg-ok-soft text-ok" : "border-line bg-raised text-muted"}`}
    >
      <svg aria-hidden="true" viewBox="0 0 16 16" className="size-3.5" fill="none" stroke="currentColor" strokeWidth="1.75">
        <rect x="2" y="2" width="12" height="12" rx="2" />
        <path d="m5 8 2 2 4-4" />
      </svg>
      <span aria-hidden="true" data-tasks>{`${done}/${total}`}</span>
      <span className="sr-only">{t("tasks.label", { done, total })}</span>
    </span>
  );
}
