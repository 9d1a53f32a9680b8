/** An agent's page, lazily loaded: its conversations and activity open where they live. */
import { AgentPage } from "@/features/agents/components/AgentPage";
import { navigate } from "@/lib/router";

export function AgentView({ name }: { name: string }) {
  const open = (sessionId: string) => navigate(`/conversations/${encodeURIComponent(sessionId)}`);
  return (
    <AgentPage
      name={name}
      onBack={() => navigate("/agents")}
      onOpenConversation={open}
      onOpenActivity={(item) => open(item.session_id)}
    />
  );
}
