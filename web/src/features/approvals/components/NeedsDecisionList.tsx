import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { EmptyState } from "@/components/EmptyState";
import { ErrorNote } from "@/components/ErrorNote";
import { Loading } from "@/components/Loading";
import { addressName } from "@/lib/format";
import { useNow } from "@/lib/useNow";
import { permissionsQuery } from "../api/queries";
import { ExpiryCountdown } from "./ExpiryCountdown";

/**
 * Every open request addressed to me, oldest first, as compact rows: the card (and its
 * one note field) is in the reading pane, so a request is never shown twice.
 */
export function NeedsDecisionList({ selected, onOpen }: { selected: string | null; onOpen: (mailId: string) => void }) {
  const { t } = useTranslation();
  const query = useQuery(permissionsQuery("open"));
  // The clock ticks only while a listed request has an expiry to count down.
  const now = useNow(query.data?.mails.some((mail) => Boolean(mail.expires_at)) ?? false);
  if (query.isPending) return <Loading />;
  if (query.isError) return <ErrorNote error={query.error} className="m-4" />;
  if (query.data.mails.length === 0) {
    return <EmptyState title={t("permission.noneOpen")} hint={t("permission.noneOpenHint")} />;
  }
  return (
    <ul className="flex flex-col overflow-y-auto" aria-label={t("nav.decisions")}>
      {query.data.mails.map((mail) => (
        <li key={mail.mail_id} className="border-b border-line">
          <button
            type="button"
            aria-current={selected === mail.mail_id ? "true" : undefined}
            onClick={() => onOpen(mail.mail_id)}
            className={`flex min-h-14 w-full flex-col gap-0.5 px-3 py-2 text-left hover:bg-raised ${selected === mail.mail_id ? "bg-accent-soft" : ""}`}
          >
            <span className="flex w-full items-baseline justify-between gap-2 text-xs text-muted">
              <span className="truncate">{t("permission.title", { agent: addressName(mail.from) })}</span>
              {mail.expires_at ? <ExpiryCountdown expiresAt={mail.expires_at} now={now} /> : null}
            </span>
            <span className="line-clamp-2 font-medium wrap-anywhere">{mail.subject}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
