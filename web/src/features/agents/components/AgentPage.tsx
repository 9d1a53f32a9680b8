/**
 * One agent's page (`/agents/<name>`): who it is, every conversation of mine it takes
 * part in (completed ones too), a page at a time, and its recent activity.
 */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { ActivityItem } from "@/api";
import { EmptyState } from "@/components/EmptyState";
import { ErrorNote } from "@/components/ErrorNote";
import { Loading } from "@/components/Loading";
import { PresenceDot } from "@/components/PresenceDot";
import { formatDateTime } from "@/lib/format";
import { AGENT_PAGE_SIZE, agentSessionsQuery, agentsQuery } from "../api/queries";
import { AgentActivity } from "./AgentActivity";
import { Pager } from "./Pager";

export interface AgentPageProps {
  name: string;
  onBack: () => void;
  onOpenConversation: (sessionId: string) => void;
  onOpenActivity: (item: ActivityItem) => void;
}

function AgentConversationPages({ name, onOpen }: { name: string; onOpen: (sessionId: string) => void }) {
  const { t, i18n } = useTranslation();
  const [offset, setOffset] = useState(0);
  const query = useQuery(agentSessionsQuery(name, offset));
  return (
    <section aria-labelledby="agent-conversations" className="flex flex-col gap-2">
      <h2 id="agent-conversations" className="text-lg font-semibold">
        {t("agentPage.conversations", { count: query.data?.total ?? 0 })}
      </h2>
      {query.isPending ? <Loading /> : null}
      {query.isError ? <ErrorNote error={query.error} /> : null}
      {query.data && query.data.total === 0 ? <p className="text-sm text-muted">{t("agentPage.noConversations")}</p> : null}
      <ul className="flex flex-col gap-1" data-testid="agent-conversations">
        {query.data?.sessions.map((s) => (
          <li key={s.session_id}>
            <button
              type="button"
              onClick={() => onOpen(s.session_id)}
              className="flex w-full min-w-0 flex-wrap items-baseline gap-x-2 rounded-md px-2 py-1.5 text-left text-sm hover:bg-raised max-md:min-h-11"
            >
              {s.session_alias ? <span className="min-w-0 truncate font-mono text-xs text-muted">#{s.session_alias}</span> : null}
              <span className="min-w-0 truncate">{s.subject || t("mail.noSubject")}</span>
              <span className={`ml-auto shrink-0 text-xs ${s.status === "waiting" ? "text-warn" : "text-muted"}`}>
                {t(`session.status.${s.status}`)} · {formatDateTime(s.updated_at, i18n.language)}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {query.data ? <Pager offset={offset} size={AGENT_PAGE_SIZE} total={query.data.total} onOffset={setOffset} /> : null}
    </section>
  );
}

export function AgentPage({ name, onBack, onOpenConversation, onOpenActivity }: AgentPageProps) {
  const { t, i18n } = useTranslation();
  const agents = useQuery(agentsQuery());
  if (agents.isPending) return <Loading />;
  if (agents.isError) return <ErrorNote error={agents.error} className="m-4" />;
  const agent = agents.data.find((a) => a.agent_name.toLowerCase() === name.toLowerCase());
  if (!agent) return <EmptyState title={t("agentPage.unknown", { name })} hint={t("agentPage.unknownHint")} />;
  const online = agent.status === "online";
  return (
    <div className="flex min-w-0 flex-col gap-5 overflow-y-auto p-4">
      <div className="flex flex-col gap-1">
        <button type="button" onClick={onBack} className="min-h-8 self-start rounded px-1 text-sm text-accent hover:bg-raised max-md:min-h-11">
          ← {t("nav.agents")}
        </button>
        <h1 className="flex min-w-0 items-center gap-2 text-xl font-semibold">
          <PresenceDot online={online} />
          <span className="min-w-0 truncate">{agent.agent_name}</span>
          {agent.platform ? <span className="rounded bg-raised px-1.5 text-xs font-normal text-muted">{agent.platform}</span> : null}
        </h1>
        <p className="text-xs text-muted">
          {online ? t("agents.online") : t("agents.offline")}
          {agent.last_seen ? ` · ${t("agents.lastSeen", { time: formatDateTime(agent.last_seen, i18n.language) })}` : ""}
        </p>
      </div>
      <AgentConversationPages name={agent.agent_name} onOpen={onOpenConversation} />
      <AgentActivity name={agent.agent_name} onOpen={onOpenActivity} />
    </div>
  );
}
