/**
 * The middle column and the reading pane. Wide: side by side. Narrow: the list
 * fills the screen and the reading pane slides over it; the list stays mounted
 * (its scroll position and selection survive), and the back button exists only
 * while the pane is open. Both sit inside the app's one `<main>` (AppShell).
 */
import { Icon } from "@/components/Icon";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { useNarrow } from "@/lib/useMediaQuery";

export interface SplitViewProps {
  list: ReactNode;
  detail: ReactNode | null;
  onBack: () => void;
  listLabel: string;
}

export function SplitView({ list, detail, onBack, listLabel }: SplitViewProps) {
  const { t } = useTranslation();
  const narrow = useNarrow();
  const open = detail !== null;
  if (!narrow) {
    return (
      <div className="flex min-h-0 min-w-0 flex-1">
        <section aria-label={listLabel} className="flex w-[380px] shrink-0 flex-col border-r border-line bg-surface">
          {list}
        </section>
        <div className="min-w-0 flex-1 overflow-y-auto">{detail}</div>
      </div>
    );
  }
  return (
    <div className="relative min-h-0 flex-1 overflow-hidden">
      <section aria-label={listLabel} aria-hidden={open || undefined} inert={open || undefined} className="flex h-full flex-col bg-surface">
        {list}
      </section>
      <div
        className={`absolute inset-0 overflow-y-auto bg-canvas transition-transform duration-200 ease-out motion-reduce:transition-none ${open ? "translate-x-0" : "translate-x-full"}`}
        aria-hidden={!open || undefined}
        inert={!open || undefined}
      >
        {open ? (
          <>
            <div className="sticky top-0 z-10 border-b border-line bg-surface/95 px-2 py-1">
              <button type="button" onClick={onBack} className="inline-flex min-h-11 min-w-11 items-center gap-1 rounded-md px-2 text-accent">
                <Icon name="back" className="size-5" /> {t("common.back")}
              </button>
            </div>
            {detail}
          </>
        ) : null}
      </div>
    </div>
  );
}
