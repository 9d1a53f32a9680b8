// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations_admin } from "./operations/admin";
import type { operations_agent } from "./operations/agent";
import type { operations_agent_attachments } from "./operations/agent_attachments";
import type { operations_agent_mail } from "./operations/agent_mail";
import type { operations_agents } from "./operations/agents";
import type { operations_auth } from "./operations/auth";
import type { operations_directory } from "./operations/directory";
import type { operations_events } from "./operations/events";
import type { operations_external_addresses } from "./operations/external_addresses";
import type { operations_keys } from "./operations/keys";
import type { operations_meta } from "./operations/meta";
import type { operations_my_attachments } from "./operations/my_attachments";
import type { operations_my_directory } from "./operations/my_directory";
import type { operations_my_drafts } from "./operations/my_drafts";
import type { operations_my_folders } from "./operations/my_folders";
import type { operations_my_mail } from "./operations/my_mail";
import type { operations_my_sessions } from "./operations/my_sessions";
import type { operations_permissions } from "./operations/permissions";
import type { operations_push } from "./operations/push";
import type { operations_sessions } from "./operations/sessions";
import type { operations_webhooks } from "./operations/webhooks";

export interface operations
    extends operations_admin,
        operations_agent,
        operations_agent_attachments,
        operations_agent_mail,
        operations_agents,
        operations_auth,
        operations_directory,
        operations_events,
        operations_external_addresses,
        operations_keys,
        operations_meta,
        operations_my_attachments,
        operations_my_directory,
        operations_my_drafts,
        operations_my_folders,
        operations_my_mail,
        operations_my_sessions,
        operations_permissions,
        operations_push,
        operations_sessions,
        operations_webhooks {}
