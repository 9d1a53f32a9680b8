// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations_sessions_accept } from "./sessions/accept";
import type { operations_sessions_change } from "./sessions/change";
import type { operations_sessions_detail } from "./sessions/detail";
import type { operations_sessions_list_sessions } from "./sessions/list_sessions";
import type { operations_sessions_proposals } from "./sessions/proposals";
import type { operations_sessions_reject } from "./sessions/reject";
import type { operations_sessions_sync } from "./sessions/sync";

export interface operations_sessions
    extends operations_sessions_accept,
        operations_sessions_change,
        operations_sessions_detail,
        operations_sessions_list_sessions,
        operations_sessions_proposals,
        operations_sessions_reject,
        operations_sessions_sync {}
