// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations_keys_issue_agent_key } from "./keys/issue_agent_key";
import type { operations_keys_issue_user_key } from "./keys/issue_user_key";
import type { operations_keys_list_agent_keys } from "./keys/list_agent_keys";
import type { operations_keys_list_user_keys } from "./keys/list_user_keys";
import type { operations_keys_revoke_agent_key } from "./keys/revoke_agent_key";
import type { operations_keys_revoke_user_key } from "./keys/revoke_user_key";

export interface operations_keys
    extends operations_keys_issue_agent_key,
        operations_keys_issue_user_key,
        operations_keys_list_agent_keys,
        operations_keys_list_user_keys,
        operations_keys_revoke_agent_key,
        operations_keys_revoke_user_key {}
