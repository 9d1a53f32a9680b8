/**
 * What an agent did lately, in the conversations I am in: its turns (mails it sent),
 * its decisions (permission requests and what was decided) and its failures (turns
 * that did not finish), newest first, a page at a time.
 */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { ActivityItem } from "@/api";
import { ErrorNote } from "@/components/ErrorNote";
import { Loading } from "@/components/Loading";
import { addressName, formatDateTime } from "@/lib/format";
import { AGENT_PAGE_SIZE, agentActivityQuery, type ActivityKind } from "../api/queries";
import { Pager } from "./Pager";

const KINDS: readonly ActivityKind[] = ["turns", "decisions", "failures"];

function Outcome({ item }: { item: ActivityItem }) {
  const { t } = useTranslation();
  if (item.mail_type !== "permission_request") return null;
  const text =
    item.permission_state === "decided"
      ? t("agentPage.decided", { decision: item.decision ?? "", name: addressName(item.decided_by ?? "") })
      : t(item.permission_state === "expired" ? "agentPage.expired" : "agentPage.undecided");
  return <span className="text-xs font-medium text-ink wrap-anywhere">{text}</span>;
}

export function AgentActivity({ name, onOpen }: { name: string; onOpen: (item: ActivityItem) => void }) {
  const { t, i18n } = useTranslation();
  const [kind, setKind] = useState<ActivityKind>("turns");
  const [offset, setOffset] = useState(0);
  const query = useQuery(agentActivityQuery(name, kind, offset));
  return (
    <section aria-labelledby="agent-activity" className="flex flex-col gap-2">
      <h2 id="agent-activity" className="text-lg font-semibold">
        {t("agentPage.activity")}
      </h2>
      <div role="group" aria-label={t("agentPage.activityKind")} className="flex flex-wrap gap-1">
        {KINDS.map((k) => (
          <button
            key={k}
            type="button"
            aria-pressed={k === kind}
            onClick={() => {
              setKind(k);
              setOffset(0);
            }}
            className={`min-h-9 rounded-md px-3 text-sm max-md:min-h-11 ${k === kind ? "bg-accent-soft font-medium" : "hover:bg-raised"}`}
          >
            {t(`agentPage.kind.${k}`)}
          </button>
        ))}
      </div>
      {query.isPending ? <Loading /> : null}
      {query.isError ? <ErrorNote error={query.error} /> : null}
      {query.data && query.data.items.length === 0 ? <p className="text-sm text-muted">{t(`agentPage.none.${kind}`)}</p> : null}
      <ol className="flex flex-col gap-1" data-testid="agent-activity">
        {query.data?.items.map((item) => (
          <li key={item.mail_id}>
            <button
              type="button"
              onClick={() => onOpen(item)}
              className="flex w-full min-w-0 flex-col gap-0.5 rounded-md px-2 py-1.5 text-left hover:bg-raised max-md:min-h-11"
            >
              <span className="flex min-w-0 flex-wrap items-baseline gap-x-2">
                <span className="min-w-0 truncate text-sm font-medium">{item.subject || t("mail.noSubject")}</span>
                {item.session_alias ? <span className="min-w-0 truncate font-mono text-xs text-muted">#{item.session_alias}</span> : null}
                <time dateTime={item.created_at} className="ml-auto shrink-0 text-xs text-muted">
                  {formatDateTime(item.created_at, i18n.language)}
                </time>
              </span>
              <Outcome item={item} />
              {item.excerpt ? <span className="line-clamp-2 text-xs text-muted wrap-anywhere">{item.excerpt}</span> : null}
            </button>
          </li>
        ))}
      </ol>
      {query.data ? <Pager offset={offset} size={AGENT_PAGE_SIZE} total={query.data.total} onOffset={setOffset} /> : null}
    </section>
  );
}
