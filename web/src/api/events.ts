/**
 * The SSE events of `GET /api/v1/events/stream` (docs/api.md § Events). They are
 * not part of the OpenAPI document, so their payloads are written out here; more
 * fields may be added by the server, so every type is open.
 */
import type { Budget, PermissionState } from "./types";

export interface NewMailEvent {
  mail_id: string;
  session_id: string;
  session_alias: string | null;
  from: string;
  subject: string;
  mail_type: string;
  auto: boolean;
  created_at: string;
}

export interface PermissionDecisionEvent {
  mail_id: string;
  session_id: string;
  state: PermissionState;
  decision: string | null;
  note: string | null;
  decided_by: string | null;
  decided_at: string | null;
  action_sha256: string | null;
}

export interface SessionUpdateEvent {
  session_id: string;
  session_alias: string | null;
  subject: string;
  status: "active" | "waiting" | "completed";
  budget_limit: Budget;
  budget_used: number;
  updated_at: string;
  alias_proposal?: { proposal_id: string; alias: string; reason: string };
  /** A human's change: who made it, and why when they said (a raised budget). */
  changed_by?: string;
  reason?: string;
}

export interface AgentOnlineEvent {
  agent_name: string;
  status: "online" | "offline";
  last_seen: string | null;
}

export interface EventMap {
  new_mail: NewMailEvent;
  permission_decision: PermissionDecisionEvent;
  session_update: SessionUpdateEvent;
  agent_online: AgentOnlineEvent;
  resync: Record<string, never>;
}

export type EventName = keyof EventMap;
export const EVENT_NAMES: readonly EventName[] = [
  "new_mail",
  "permission_decision",
  "session_update",
  "agent_online",
  "resync",
];
