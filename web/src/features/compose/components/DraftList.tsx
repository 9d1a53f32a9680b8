import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { EmptyState } from "@/components/EmptyState";
import { ErrorNote } from "@/components/ErrorNote";
import { Loading } from "@/components/Loading";
import { addressName, formatTime } from "@/lib/format";
import { sdk } from "@/lib/sdk";
import { draftKeys } from "../api/keys";
import { openCompose } from "../hooks/composeStore";

/** My unsent mail (also in the IMAP Drafts folder); opening one continues it. */
export function DraftList() {
  const { t, i18n } = useTranslation();
  const query = useQuery({ queryKey: draftKeys.list(), queryFn: () => sdk.drafts({ limit: 200 }) });
  if (query.isPending) return <Loading />;
  if (query.isError) return <ErrorNote error={query.error} className="m-4" />;
  if (query.data.drafts.length === 0) return <EmptyState title={t("drafts.none")} />;
  return (
    <ul className="min-h-0 flex-1 overflow-y-auto" aria-label={t("nav.drafts")}>
      {query.data.drafts.map((d) => (
        <li key={d.draft_id}>
          <button
            type="button"
            className="flex w-full min-h-11 flex-col gap-0.5 border-b border-line px-3 py-2 text-left hover:bg-raised"
            onClick={async () => openCompose({ mode: "draft", draft: await sdk.draft(d.draft_id) })}
          >
            <span className="flex gap-2 text-sm">
              <span className="truncate">{d.to ? addressName(d.to) : t("drafts.noRecipient")}</span>
              <span className="ml-auto text-xs text-muted">{formatTime(d.updated_at, i18n.language)}</span>
            </span>
            <span className="truncate text-sm">{d.subject || t("mail.noSubject")}</span>
            <span className="truncate text-xs text-muted">{d.body_preview}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
