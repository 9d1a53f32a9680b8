/**
 * The frame every mail row in a list shares (the folder list, the search results):
 * one button with the selection, the mail's id for tests and keyboard navigation,
 * and a first line that starts with the unread dot. What the row says is its own.
 */
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";

export interface MailRowFrameProps {
  mailId: string;
  selected: boolean;
  unread: boolean;
  onOpen: () => void;
  /** The rest of the first line, after the unread dot. */
  firstLine: ReactNode;
  children: ReactNode;
}

export function MailRowFrame({ mailId, selected, unread, onOpen, firstLine, children }: MailRowFrameProps) {
  const { t } = useTranslation();
  return (
    <button
      type="button"
      onClick={onOpen}
      aria-current={selected ? "true" : undefined}
      data-mail-id={mailId}
      className={`flex w-full min-h-11 flex-col gap-0.5 border-b border-line px-3 py-2 text-left ${selected ? "bg-accent-soft" : "hover:bg-raised"}`}
    >
      <span className="flex items-center gap-2 text-sm">
        {unread ? (
          <span className="size-2 shrink-0 rounded-full bg-accent">
            <span className="sr-only">{t("mail.unread")}</span>
          </span>
        ) : null}
        {firstLine}
      </span>
      {children}
    </button>
  );
}
