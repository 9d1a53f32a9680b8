import { useTranslation } from "react-i18next";
import type { SearchHit } from "@/api";
import { MailRowFrame } from "@/components/MailRowFrame";
import { formatTime } from "@/lib/format";
import { MarkedText } from "./MarkedText";
import { PartyName } from "@/components/PartyName";

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
    <MailRowFrame
      mailId={hit.mail_id}
      selected={selected}
      unread={unread}
      onOpen={() => onOpen(hit)}
      firstLine={
        <>
          <span className={`truncate ${unread ? "font-semibold" : ""}`}><PartyName address={hit.from} /></span>
          {hit.session_alias ? <span className="truncate font-mono text-xs text-muted">#{hit.session_alias}</span> : null}
          <span className="ml-auto shrink-0 text-xs text-muted tabular-nums">{formatTime(hit.created_at, i18n.language)}</span>
        </>
      }
    >
      <span className={`truncate text-sm ${unread ? "font-semibold" : ""}`}>
        <MarkedText text={hit.subject || t("mail.noSubject")} terms={terms} />
      </span>
      <span className="line-clamp-2 text-xs text-muted">
        <MarkedText text={excerpt} terms={terms} />
      </span>
    </MailRowFrame>
  );
}
