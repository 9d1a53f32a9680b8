import { queryOptions } from "@tanstack/react-query";
import { sdk } from "@/lib/sdk";
import { sessionKeys } from "./keys";

export const sessionsQuery = () =>
  queryOptions({ queryKey: sessionKeys.lists(), queryFn: () => sdk.sessions({ limit: 500 }) });

export const sessionQuery = (sessionId: string) =>
  queryOptions({ queryKey: sessionKeys.detail(sessionId), queryFn: () => sdk.session(sessionId) });

export const proposalsQuery = (sessionId: string) =>
  queryOptions({
    queryKey: sessionKeys.proposals(sessionId),
    queryFn: async () => (await sdk.proposals(sessionId)).proposals,
  });
