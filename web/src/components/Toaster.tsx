/**
 * Where `showToast` messages appear: above the phone's navigation, at the bottom
 * right of a desk. The live region is always there (role=status), so a screen
 * reader says each message as it comes. A message waits while the pointer is on
 * it or focus is in it (WCAG 2.2.1: nobody loses Undo while reaching for it).
 */
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { dismissToast, TOAST_MS, useToast } from "@/lib/toast";
import { Icon } from "./Icon";

export function Toaster() {
  const { t } = useTranslation();
  const toast = useToast();
  const [held, setHeld] = useState(false);
  useEffect(() => {
    if (!toast || held) return;
    const timer = window.setTimeout(() => dismissToast(toast.id), TOAST_MS);
    return () => window.clearTimeout(timer);
  }, [toast, held]);
  useEffect(() => setHeld(false), [toast]);
  return (
    <div role="status" className="pointer-events-none fixed inset-x-2 bottom-20 z-40 flex justify-center md:inset-x-auto md:right-4 md:bottom-4">
      {toast ? (
        <div
          className="pointer-events-auto flex max-w-full min-w-0 items-center gap-2 rounded-lg border border-line bg-ink py-1 pr-1 pl-3 text-sm text-canvas shadow-lg"
          onPointerEnter={() => setHeld(true)}
          onPointerLeave={() => setHeld(false)}
          onFocus={() => setHeld(true)}
          onBlur={() => setHeld(false)}
        >
          <span className="min-w-0 wrap-anywhere">{toast.message}</span>
          {toast.action ? (
            <button
              type="button"
              className="min-h-9 shrink-0 rounded-md px-3 font-semibold underline hover:bg-muted/30 max-md:min-h-11"
              onClick={() => {
                dismissToast(toast.id);
                toast.action?.run();
              }}
            >
              {toast.action.label}
            </button>
          ) : null}
          <button
            type="button"
            aria-label={t("common.dismiss")}
            className="inline-flex min-h-9 min-w-9 shrink-0 items-center justify-center rounded-md hover:bg-muted/30 max-md:min-h-11 max-md:min-w-11"
            onClick={() => dismissToast(toast.id)}
          >
            <Icon name="close" />
          </button>
        </div>
      ) : null}
    </div>
  );
}
