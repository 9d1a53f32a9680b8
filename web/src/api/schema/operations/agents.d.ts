// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations_agents_heartbeat } from "./agents/heartbeat";
import type { operations_agents_list_agents } from "./agents/list_agents";
import type { operations_agents_register } from "./agents/register";
import type { operations_agents_remove_workspace } from "./agents/remove_workspace";

export interface operations_agents
    extends operations_agents_heartbeat,
        operations_agents_list_agents,
        operations_agents_register,
        operations_agents_remove_workspace {}
