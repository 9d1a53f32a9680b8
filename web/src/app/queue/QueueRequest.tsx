/**
 * A permission request in "Needs you", decidable from the keyboard: with the card
 * focused, `1`/`2`/`3` pick an option (as its buttons), `n` goes to the note, and
 * Enter holds the choice for the undo window.
 */
import { useRef, useState, type KeyboardEvent } from "react";
import { useTranslation } from "react-i18next";
import type { Mail } from "@/api";
import { PermissionCard } from "@/features/approvals/components/PermissionCard";

export interface QueueRequestProps {
  mail: Mail;
  me: string;
  onHold: (decision: string, note: string) => void;
}

export function QueueRequest({ mail, me, onHold }: QueueRequestProps) {
  const { t } = useTranslation();
  const frame = useRef<HTMLDivElement>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const options = mail.options?.length ? mail.options : ["approve", "reject"];
  const note = () => frame.current?.querySelector("textarea") ?? null;

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.metaKey || event.ctrlKey || event.altKey) return;
    const inNote = event.target instanceof HTMLTextAreaElement;
    if (event.key === "Enter" && !event.shiftKey && chosen && (inNote || event.target === frame.current)) {
      event.preventDefault();
      onHold(chosen, (note()?.value ?? "").trim());
      return;
    }
    if (inNote || event.target instanceof HTMLInputElement) return;
    const index = /^[1-9]$/.test(event.key) ? Number(event.key) - 1 : -1;
    if (index >= 0 && index < options.length) {
      event.preventDefault();
      setChosen(options[index] ?? null);
      note()?.focus();
    } else if (event.key === "n") {
      event.preventDefault();
      note()?.focus();
    }
  }

  return (
    // The frame takes the keys of the card inside it; it is focusable so a keyboard reaches it.
    <div
      ref={frame}
      tabIndex={0}
      role="group"
      aria-label={t("queue.requestLabel", { subject: mail.subject })}
      aria-keyshortcuts="1 2 3 n Enter"
      data-testid="queue-request"
      onKeyDown={onKeyDown}
      className="flex flex-col gap-1 rounded-lg focus-visible:outline-2 focus-visible:outline-accent"
    >
      <PermissionCard mail={mail} me={me} onDecide={async (decision, text) => onHold(decision, text)} />
      <p className="px-1 text-xs text-muted" aria-live="polite">
        {chosen ? t("queue.chosen", { option: chosen }) : t("queue.keysHint")}
      </p>
    </div>
  );
}
