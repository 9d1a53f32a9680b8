import { useTranslation } from "react-i18next";

/** "21–40 of 205" with Previous and Next, for a list read a page at a time. */
export function Pager({ offset, size, total, onOffset }: { offset: number; size: number; total: number; onOffset: (offset: number) => void }) {
  const { t, i18n } = useTranslation();
  if (total <= size && offset === 0) return null;
  const number = (n: number) => n.toLocaleString(i18n.language);
  const last = Math.min(offset + size, total);
  const button = "min-h-9 rounded-md border border-line px-3 text-sm hover:bg-raised disabled:opacity-50 max-md:min-h-11";
  return (
    <nav className="flex flex-wrap items-center gap-2" aria-label={t("agentPage.pages")}>
      <button type="button" className={button} disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - size))}>
        {t("agentPage.previous")}
      </button>
      <span className="text-sm text-muted tabular-nums" aria-live="polite">
        {t("agentPage.range", { first: number(total === 0 ? 0 : offset + 1), last: number(last), total: number(total) })}
      </span>
      <button type="button" className={button} disabled={last >= total} onClick={() => onOffset(offset + size)}>
        {t("agentPage.next")}
      </button>
    </nav>
  );
}
