/**
 * What "Needs you" lists, from the API the desk already has: open requests, agents'
 * questions I have not answered, conversations about to run out of rounds, and agents
 * whose turn failed or who went offline in an open conversation.
 */
import { queryOptions, useQuery } from "@tanstack/react-query";
import type { Mail, Session } from "@/api";
import { permissionsQuery } from "@/features/approvals/api/queries";
import { sessionsQuery } from "@/features/conversations/api/queries";
import { searchKeys } from "@/features/search/api/queries";
import { needsReply } from "@/lib/needsReply";
import { sdk } from "@/lib/sdk";

// Under the search keys: every new mail invalidates them, as it does a search on screen.
const queueSearch = (name: string, q: string, keep: (mail: Mail) => boolean) =>
  queryOptions({
    queryKey: [...searchKeys.all, "queue", name] as const,
    queryFn: async () => (await sdk.search({ q, limit: 50 })).mails.filter(keep),
  });

export const questionsQuery = () => queueSearch("questions", "type:question", needsReply);
export const failuresQuery = () =>
  queueSearch("failures", "type:failed is:unread", (mail) => mail.delivery !== null && mail.mail_type === "turn_failed");

export function roundsLeft(session: Session): number | null {
  return session.budget_remaining === "unlimited" ? null : session.budget_remaining;
}

/** Open conversations with one round left or none. */
export function lowBudget(sessions: Session[]): Session[] {
  return sessions.filter((s) => s.status !== "completed" && (roundsLeft(s) ?? 2) <= 1);
}

export interface OfflineAgent {
  name: string;
  session: Session;
}

/** Agents offline while a conversation with them is still open: one row per agent. */
export function offlineAgents(sessions: Session[]): OfflineAgent[] {
  const found = new Map<string, OfflineAgent>();
  for (const session of sessions) {
    if (session.status === "completed") continue;
    for (const who of session.participant_details ?? []) {
      if (who.kind === "agent" && !who.online && !found.has(who.name)) found.set(who.name, { name: who.name, session });
    }
  }
  return [...found.values()];
}

export interface WorkQueue {
  requests: Mail[];
  questions: Mail[];
  budgets: Session[];
  failures: Mail[];
  offline: OfflineAgent[];
  pending: boolean;
  count: number;
}

export function useWorkQueue(): WorkQueue {
  const requests = useQuery(permissionsQuery("open"));
  const questions = useQuery(questionsQuery()).data ?? [];
  const sessions = useQuery(sessionsQuery());
  const failures = useQuery(failuresQuery()).data ?? [];
  const all = sessions.data?.sessions ?? [];
  const queue = {
    requests: requests.data?.mails ?? [],
    questions,
    budgets: lowBudget(all),
    failures,
    offline: offlineAgents(all),
    // The two that decide whether the page is empty; a search still on its way only adds.
    pending: requests.isPending || sessions.isPending,
  };
  return { ...queue, count: Object.values(queue).reduce((sum, list) => sum + (Array.isArray(list) ? list.length : 0), 0) };
}
