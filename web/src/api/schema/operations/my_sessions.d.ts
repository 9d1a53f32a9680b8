// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations_my_sessions_accept } from "./my_sessions/accept";
import type { operations_my_sessions_change } from "./my_sessions/change";
import type { operations_my_sessions_detail } from "./my_sessions/detail";
import type { operations_my_sessions_list_sessions } from "./my_sessions/list_sessions";
import type { operations_my_sessions_proposals } from "./my_sessions/proposals";
import type { operations_my_sessions_reject } from "./my_sessions/reject";
import type { operations_my_sessions_sync } from "./my_sessions/sync";

export interface operations_my_sessions
    extends operations_my_sessions_accept,
        operations_my_sessions_change,
        operations_my_sessions_detail,
        operations_my_sessions_list_sessions,
        operations_my_sessions_proposals,
        operations_my_sessions_reject,
        operations_my_sessions_sync {}
