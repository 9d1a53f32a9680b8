import { queryOptions } from "@tanstack/react-query";
import { sdk } from "@/lib/sdk";

export const agentKeys = { all: ["agents"] as const };

export const agentsQuery = () =>
  queryOptions({ queryKey: agentKeys.all, queryFn: async () => (await sdk.agents()).agents });
