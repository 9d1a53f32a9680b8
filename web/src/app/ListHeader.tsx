import type { ReactNode, RefObject } from "react";
import { useId } from "react";
import { useTranslation } from "react-i18next";

/** The list's title, a filter over what is loaded (`/` focuses it) and extra controls. */
export function ListHeader({ title, filter, onFilter, filterRef, children }: { title: string; filter: string; onFilter: (value: string) => void; filterRef: RefObject<HTMLInputElement | null>; children?: ReactNode }) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <header className="flex flex-col gap-2 border-b border-line p-3">
      <div className="flex items-center gap-2">
        <h1 className="text-lg font-semibold">{title}</h1>
        <span className="ml-auto">{children}</span>
      </div>
      <label htmlFor={id} className="sr-only">
        {t("search.label")}
      </label>
      <input
        id={id}
        ref={filterRef}
        type="search"
        value={filter}
        onChange={(e) => onFilter(e.target.value)}
        placeholder={t("search.placeholder")}
        aria-keyshortcuts="/"
        className="min-h-9 rounded-md border border-line bg-canvas px-2 text-sm max-md:min-h-11"
      />
    </header>
  );
}
