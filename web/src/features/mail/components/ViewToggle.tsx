import { Icon, type IconName } from "@/components/Icon";
import { useTranslation } from "react-i18next";
import type { ViewMode } from "../hooks/useViewMode";

export function ViewToggle({ mode, onChange }: { mode: ViewMode; onChange: (mode: ViewMode) => void }) {
  const { t } = useTranslation();
  const option = (value: ViewMode, label: string, icon: IconName) => (
    <button
      type="button"
      aria-pressed={mode === value}
      onClick={() => onChange(value)}
      title={label}
      className={`inline-flex min-h-8 min-w-8 items-center justify-center rounded px-2 text-sm max-md:min-h-11 max-md:min-w-11 ${mode === value ? "bg-accent-soft text-accent" : "text-muted hover:bg-raised"}`}
    >
      <Icon name={icon} />
      <span className="sr-only">{label}</span>
    </button>
  );
  return (
    <div role="group" aria-label={t("mail.view")} className="inline-flex gap-1 rounded-md border border-line p-0.5">
      {option("list", t("mail.viewList"), "list")}
      {option("cards", t("mail.viewCards"), "cards")}
    </div>
  );
}
