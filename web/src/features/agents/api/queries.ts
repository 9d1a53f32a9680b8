import { queryOptions } from "@tanstack/react-query";
import { sdk } from "@/lib/sdk";

export const agentKeys = { all: ["agents"] as const };

export const agentsQuery = () =>
  queryOptions({ queryKey: agentKeys.all, queryFn: async () => (await sdk.agents()).agents });

/** A page of the agent's page: its conversations with me (all statuses), newest first. */
export const AGENT_PAGE_SIZE = 20;

export const agentSessionsQuery = (name: string, offset: number) =>
  queryOptions({
    queryKey: [...agentKeys.all, name, "sessions", offset] as const,
    queryFn: () => sdk.sessions({ participant: name, limit: AGENT_PAGE_SIZE, offset }),
    placeholderData: (previous) => previous,
  });

export type ActivityKind = "turns" | "decisions" | "failures";

export const agentActivityQuery = (name: string, kind: ActivityKind, offset: number) =>
  queryOptions({
    queryKey: [...agentKeys.all, name, "activity", kind, offset] as const,
    queryFn: () => sdk.agentActivity(name, { kind, limit: AGENT_PAGE_SIZE, offset }),
    placeholderData: (previous) => previous,
  });
