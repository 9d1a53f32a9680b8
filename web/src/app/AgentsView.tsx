/**
 * The Agents page with each agent's open conversations: the app reads them
 * from the conversation list (already in the cache for the cards), so the
 * agents feature needs no conversation code and no request per agent.
 */
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { AgentsPage, type AgentConversation } from "@/features/agents/components/AgentsPage";
import { openCompose } from "@/features/compose/hooks/composeStore";
import { sessionsQuery } from "@/features/conversations/api/queries";
import { navigate } from "@/lib/router";

export function AgentsView() {
  const sessions = useQuery(sessionsQuery());
  const byAgent = useMemo(() => {
    const map = new Map<string, AgentConversation[]>();
    for (const s of sessions.data?.sessions ?? []) {
      if (s.status === "completed") continue;
      for (const p of s.participant_details ?? []) {
        if (p.kind !== "agent") continue;
        const list = map.get(p.name.toLowerCase()) ?? [];
        list.push({ sessionId: s.session_id, alias: s.session_alias, subject: s.subject, status: s.status });
        map.set(p.name.toLowerCase(), list);
      }
    }
    return map;
  }, [sessions.data]);
  return (
    <AgentsPage
      onWrite={(to) => openCompose({ mode: "new", to })}
      conversationsOf={(name) => byAgent.get(name.toLowerCase()) ?? []}
      onOpenConversation={(id) => navigate(`/conversations/${encodeURIComponent(id)}`)}
    />
  );
}
