/** The decisions held for the undo window, each with "Undo" (which leaves the request open). */
import { useTranslation } from "react-i18next";
import { Button } from "@/components/Button";
import type { HeldDecision } from "@/lib/heldDecisions";

export function UndoToast({ held, onUndo }: { held: HeldDecision[]; onUndo: (mailId: string) => void }) {
  const { t } = useTranslation();
  if (held.length === 0) return null;
  return (
    <div className="pointer-events-none fixed inset-x-0 bottom-20 z-40 flex flex-col items-center gap-2 px-3 md:bottom-6">
      {held.map((decision) => (
        <div
          key={decision.mailId}
          role="status"
          className="pointer-events-auto flex max-w-full items-center gap-3 rounded-lg bg-ink px-4 py-2 text-sm text-canvas shadow-lg"
        >
          <span className="min-w-0 wrap-anywhere">{t("queue.held", { decision: decision.decision })}</span>
          <Button variant="secondary" onClick={() => onUndo(decision.mailId)}>
            {t("queue.undo")}
          </Button>
        </div>
      ))}
    </div>
  );
}
