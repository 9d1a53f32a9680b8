/**
 * What each SSE event changes in the query cache. The stream never keeps its
 * own copy of server state: it invalidates or patches TanStack Query's.
 */
import type { QueryClient } from "@tanstack/react-query";
import type { EventMap, EventName, Mail, SessionDetail } from "@/api";
import { agentKeys } from "@/features/agents/api/queries";
import { permissionKeys } from "@/features/approvals/api/keys";
import { sessionKeys } from "@/features/conversations/api/keys";
import { mailKeys } from "@/features/mail/api/keys";
import { searchKeys } from "@/features/search/api/queries";

export function applyEvent<E extends EventName>(queryClient: QueryClient, name: E, data: EventMap[E]): void {
  const invalidate = (queryKey: readonly unknown[]) => void queryClient.invalidateQueries({ queryKey });
  switch (name) {
    case "resync":
      invalidate([]);
      return;
    case "new_mail": {
      const mail = data as EventMap["new_mail"];
      invalidate(mailKeys.lists());
      invalidate(mailKeys.unreadCount());
      invalidate(sessionKeys.all);
      invalidate(searchKeys.all); // a search on screen shows a new match
      if (mail.mail_type === "permission_request") invalidate(permissionKeys.all);
      return;
    }
    case "permission_decision": {
      const decision = data as EventMap["permission_decision"];
      queryClient.setQueryData<Mail>(mailKeys.detail(decision.mail_id), (old) =>
        old
          ? {
              ...old,
              permission_state: decision.state,
              decision: decision.decision,
              decision_note: decision.note,
              decided_by: decision.decided_by,
              decided_at: decision.decided_at,
            }
          : old,
      );
      invalidate(permissionKeys.all);
      invalidate(mailKeys.lists());
      invalidate(sessionKeys.all);
      return;
    }
    case "session_update": {
      const update = data as EventMap["session_update"];
      queryClient.setQueryData<SessionDetail>(sessionKeys.detail(update.session_id), (old) =>
        old
          ? {
              ...old,
              session: {
                ...old.session,
                session_alias: update.session_alias,
                subject: update.subject,
                status: update.status,
                budget_limit: update.budget_limit,
                budget_used: update.budget_used,
                updated_at: update.updated_at,
              },
            }
          : old,
      );
      invalidate(sessionKeys.all);
      invalidate(mailKeys.lists());
      return;
    }
    case "agent_online":
      invalidate(agentKeys.all);
      invalidate(sessionKeys.lists()); // the cards' online dots come from participant_details
      return;
  }
}
