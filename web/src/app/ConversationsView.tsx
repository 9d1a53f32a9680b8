import { useQuery } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { limits } from "@/api";
import { EmptyState } from "@/components/EmptyState";
import { ErrorNote } from "@/components/ErrorNote";
import { Loading } from "@/components/Loading";
import { Markdown } from "@/components/Markdown";
import { sessionQuery } from "@/features/conversations/api/queries";
import { ConversationHeader } from "@/features/conversations/components/ConversationHeader";
import { ConversationList } from "@/features/conversations/components/ConversationList";
import { MailStatusTag } from "@/features/mail/components/MailStatusTag";
import { formatDateTime } from "@/lib/format";
import { navigate } from "@/lib/router";
import { useNarrow } from "@/lib/useMediaQuery";
import { ListHeader } from "./ListHeader";
import { SplitView } from "./SplitView";
import { useKeyboard } from "./useKeyboard";
import { PartyName } from "@/components/PartyName";

/** The filter matches here, in subjects and aliases: longer than any subject matches nothing. */
const MAX_FILTER = limits.schemas.SendRequest.subject.maxLength;

function ConversationDetail({ sessionId }: { sessionId: string }) {
  const { i18n } = useTranslation();
  const query = useQuery(sessionQuery(sessionId));
  if (query.isPending) return <Loading />;
  if (query.isError) return <ErrorNote error={query.error} className="m-4" />;
  return (
    <div className="flex flex-col gap-4 p-4 md:p-6">
      <h2 className="text-xl font-semibold wrap-anywhere">{query.data.session.subject}</h2>
      <ConversationHeader sessionId={sessionId} />
      <ol className="flex flex-col gap-3">
        {query.data.mails.map((mail) => (
          <li key={mail.mail_id} className="rounded-lg border border-line bg-surface p-3">
            <button
              type="button"
              className="flex w-full flex-wrap items-baseline gap-2 text-left text-sm max-md:min-h-11"
              onClick={() => navigate(`/inbox/${encodeURIComponent(mail.mail_id)}`)}
            >
              <span className="min-w-0 font-semibold wrap-anywhere"><PartyName address={mail.from} /></span>
              <span className="min-w-0 text-muted wrap-anywhere">→ <PartyName address={mail.to} /></span>
              <MailStatusTag mail={mail} />
              <span className="ml-auto text-xs text-muted">{formatDateTime(mail.created_at, i18n.language)}</span>
            </button>
            <Markdown text={mail.body ?? mail.body_preview} className="mt-2 text-sm" />
          </li>
        ))}
      </ol>
    </div>
  );
}

export function ConversationsView({ sessionId, me }: { sessionId: string | null; me: string }) {
  const { t } = useTranslation();
  const narrow = useNarrow();
  const [filter, setFilter] = useState("");
  const filterRef = useRef<HTMLInputElement>(null);
  useKeyboard({ "/": () => filterRef.current?.focus(), Escape: () => sessionId && navigate("/conversations") });
  return (
    <SplitView
      listLabel={t("nav.conversations")}
      onBack={() => navigate("/conversations")}
      list={
        <>
          <ListHeader
            title={t("nav.conversations")}
            label={t("search.filterConversations")}
            placeholder={t("search.filterPlaceholder")}
            maxLength={MAX_FILTER}
            value={filter}
            onChange={setFilter}
            inputRef={filterRef}
          />
          <ConversationList
            selectedId={sessionId}
            filter={filter}
            me={me}
            onOpen={(s) => navigate(`/conversations/${encodeURIComponent(s.session_id)}`)}
          />
        </>
      }
      detail={sessionId ? <ConversationDetail sessionId={sessionId} /> : narrow ? null : <EmptyState title={t("session.pick")} />}
    />
  );
}
