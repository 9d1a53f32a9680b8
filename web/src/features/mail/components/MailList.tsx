/**
 * The middle column's mail, virtualised: only the rows on screen (plus a few)
 * are in the DOM, so a 10,000-mail inbox scrolls as a 10-mail one.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import type { ListedMail, Session } from "@/api";
import type { ViewMode } from "../hooks/useViewMode";
import { MailCard } from "./MailCard";
import { MailRow } from "./MailRow";

export interface MailListProps {
  mails: ListedMail[];
  selectedId: string | null;
  mode: ViewMode;
  outgoing?: boolean;
  onOpen: (mail: ListedMail) => void;
  /** The rows on screen come within a screenful of the last one loaded: load more. */
  onNearEnd?: () => void;
  sessionOf?: (sessionId: string) => Session | undefined;
  /** My name, left out of the cards' participants. */
  me?: string;
  /** Whether a mail is unread, where its status cannot say (a filed mail is `archived`). */
  isUnread?: (mail: ListedMail) => boolean;
}

export function MailList({ mails, selectedId, mode, outgoing, onOpen, onNearEnd, sessionOf, me, isUnread }: MailListProps) {
  const { t } = useTranslation();
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: mails.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => (mode === "cards" ? 160 : 76),
    overscan: 8,
    // Until the column is measured, assume it is as tall as the window: the first paint has rows.
    initialRect: { width: 380, height: typeof window === "undefined" ? 800 : window.innerHeight },
    getItemKey: (index) => mails[index]?.mail_id ?? index,
  });

  const selectedIndex = mails.findIndex((m) => m.mail_id === selectedId);
  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: "auto" });
  }, [selectedIndex, virtualizer]);

  const items = virtualizer.getVirtualItems();
  const lastShown = items[items.length - 1]?.index ?? -1;
  useEffect(() => {
    if (lastShown >= 0 && lastShown >= mails.length - 20) onNearEnd?.();
  }, [lastShown, mails.length, onNearEnd]);

  return (
    <div ref={scroller} className="min-h-0 flex-1 overflow-y-auto" role="region" aria-label={t("mail.listLabel")}>
      <ul className="relative w-full" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => {
          const mail = mails[item.index];
          if (!mail) return null;
          const common = {
            mail,
            selected: mail.mail_id === selectedId,
            outgoing: outgoing ?? false,
            onOpen,
            unread: isUnread ? isUnread(mail) : mail.status === "unread",
          };
          return (
            <li
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              className="absolute top-0 left-0 w-full"
              style={{ transform: `translateY(${item.start}px)` }}
            >
              {mode === "cards" ? (
                <MailCard {...common} session={sessionOf?.(mail.session_id)} {...(me ? { me } : {})} />
              ) : (
                <MailRow {...common} />
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
