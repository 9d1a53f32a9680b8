import { useTranslation } from "react-i18next";
import type { SearchHit } from "@/api";
import { addressName, formatTime } from "@/lib/format";
import { MarkedText } from "./MarkedText";

export interface SearchHitRowProps {
  hit: SearchHit;
  terms: string[];
  selected: boolean;
  onOpen: (hit: SearchHit) => void;
}

/** One search result: subject, sender, the excerpt with the words found marked, and the conversation. */
export function SearchHitRow({ hit, terms, selected, onOpen }: SearchHitRowProps) {
  const { t, i18n } = useTranslation();
  const unread = hit.status === "unread";
  const excerpt = hit.snippet || hit.body_preview;
  return (
    <button
      type="button"
      onClick={() => onOpen(hit)}
      aria-current={selected ? "true" : undefined}
      data-mail-id={hit.mail_id}
      className={`flex w-full min-h-11 flex-col gap-0.5 border-b border-line px-3 py-2 text-left ${selected ? "bg-accent-soft" : "hover:bg-raised"}`}
    >
      <span className="flex items-center gap-2 text-sm">
        {unread ? (
          <span className="size-2 shrink-0 rounded-full bg-accent">
            <span className="sr-only">{t("mail.unread")}</span>
          </span>
        ) : null}
        <span className={`truncate ${unread ? "font-semibold" : ""}`}>{addressName(hit.from)}</span>
        {hit.session_alias ? <span className="truncate font-mono text-xs text-muted">#{hit.session_alias}</span> : null}
        <span className="ml-auto shrink-0 text-xs text-muted tabular-nums">{formatTime(hit.created_at, i18n.language)}</span>
      </span>
      <span className={`truncate text-sm ${unread ? "font-semibold" : ""}`}>
        <MarkedText text={hit.subject || t("mail.noSubject")} terms={terms} />
      </span>
      <span className="line-clamp-2 text-xs text-muted">
        <MarkedText text={excerpt} terms={terms} />
      </span>
    </button>
  );
}
