import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { EmptyState } from "@/components/EmptyState";
import { ErrorNote } from "@/components/ErrorNote";
import { Loading } from "@/components/Loading";
import { NavLink } from "@/components/NavLink";
import { PresenceDot } from "@/components/PresenceDot";
import { formatDateTime } from "@/lib/format";
import { agentsQuery } from "../api/queries";
import { CopyButton } from "@/components/CopyButton";
import { AgentConversations, type AgentConversation } from "./AgentConversations";

export type { AgentConversation };

export interface AgentsPageProps {
  onWrite: (address: string) => void;
  /** The agent's open conversations (the app reads them from the conversation list). */
  conversationsOf?: (agentName: string) => AgentConversation[];
  onOpenConversation?: (sessionId: string) => void;
}

/**
 * Every agent: online or not, its platform, its workspaces (with the address
 * to write to), and the open conversations it is in (waiting ones first).
 */
export function AgentsPage({ onWrite, conversationsOf, onOpenConversation }: AgentsPageProps) {
  const { t, i18n } = useTranslation();
  const query = useQuery(agentsQuery());
  if (query.isPending) return <Loading />;
  if (query.isError) return <ErrorNote error={query.error} className="m-4" />;
  const agents = [...query.data].sort(
    (a, b) => Number(b.status === "online") - Number(a.status === "online") || a.agent_name.localeCompare(b.agent_name),
  );
  if (agents.length === 0) {
    return (
      <EmptyState title={t("agents.none")} hint={t("agents.noneHint")}>
        <a href="/api/v1/docs" target="_blank" rel="noopener" className="inline-flex min-h-11 items-center text-accent underline">
          {t("agents.docs")}
        </a>
      </EmptyState>
    );
  }
  return (
    <div className="overflow-y-auto p-4">
      <h1 className="mb-3 text-xl font-semibold">{t("nav.agents")}</h1>
      <ul className="grid gap-3 md:grid-cols-2 xl:grid-cols-3">
        {agents.map((agent) => (
          <li key={agent.agent_id} className="flex min-w-0 flex-col gap-2 rounded-lg border border-line bg-surface p-3">
            <div className="flex items-center gap-2">
              <PresenceDot online={agent.status === "online"} />
              <h2 className="min-w-0 font-semibold wrap-anywhere">
                <NavLink href={`/agents/${encodeURIComponent(agent.agent_name)}`} current={false} className="text-accent hover:underline">
                  {agent.agent_name}
                </NavLink>
              </h2>
              {agent.platform ? <span data-chip="" className="max-w-[40%] truncate rounded bg-raised px-1.5 text-xs text-muted" title={agent.platform}>{agent.platform}</span> : null}
            </div>
            <p className="text-xs text-muted">
              {agent.status === "online" ? t("agents.online") : t("agents.offline")}
              {agent.last_seen ? ` · ${t("agents.lastSeen", { time: formatDateTime(agent.last_seen, i18n.language) })}` : ""}
              {" · "}
              {t("agents.defaultBudget", { budget: agent.default_budget === "unlimited" ? t("budget.unlimited") : agent.default_budget })}
            </p>
            <ul className="flex flex-col gap-1">
              {agent.workspaces.map((ws) => (
                <li key={ws.address} className="flex flex-wrap items-center gap-2 text-sm">
                  <span className="min-w-0 font-mono wrap-anywhere">{ws.address}</span>
                  <span className="max-w-full min-w-0 truncate text-xs text-muted" title={ws.path}>
                    {ws.path}
                  </span>
                  <span className="ml-auto flex">
                    <CopyButton text={ws.address} label={ws.address} />
                    <button
                      type="button"
                      className="min-h-8 rounded px-2 text-xs text-accent hover:bg-raised max-md:min-h-11"
                      onClick={() => onWrite(ws.address)}
                    >
                      {t("agents.write")}
                      <span className="sr-only"> {ws.address}</span>
                    </button>
                  </span>
                </li>
              ))}
            </ul>
            <AgentConversations
              conversations={conversationsOf?.(agent.agent_name) ?? []}
              more={`/agents/${encodeURIComponent(agent.agent_name)}`}
              {...(onOpenConversation ? { onOpen: onOpenConversation } : {})}
            />
          </li>
        ))}
      </ul>
    </div>
  );
}
