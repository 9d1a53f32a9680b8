// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { paths_admin } from "./paths/admin";
import type { paths_agent } from "./paths/agent";
import type { paths_agent_attachments } from "./paths/agent_attachments";
import type { paths_agent_mail } from "./paths/agent_mail";
import type { paths_agents } from "./paths/agents";
import type { paths_auth } from "./paths/auth";
import type { paths_directory } from "./paths/directory";
import type { paths_events } from "./paths/events";
import type { paths_external_addresses } from "./paths/external_addresses";
import type { paths_keys } from "./paths/keys";
import type { paths_meta } from "./paths/meta";
import type { paths_my_attachments } from "./paths/my_attachments";
import type { paths_my_directory } from "./paths/my_directory";
import type { paths_my_drafts } from "./paths/my_drafts";
import type { paths_my_folders } from "./paths/my_folders";
import type { paths_my_mail } from "./paths/my_mail";
import type { paths_my_sessions } from "./paths/my_sessions";
import type { paths_permissions } from "./paths/permissions";
import type { paths_push } from "./paths/push";
import type { paths_sessions } from "./paths/sessions";
import type { paths_webhooks } from "./paths/webhooks";

export interface paths
    extends paths_admin,
        paths_agent,
        paths_agent_attachments,
        paths_agent_mail,
        paths_agents,
        paths_auth,
        paths_directory,
        paths_events,
        paths_external_addresses,
        paths_keys,
        paths_meta,
        paths_my_attachments,
        paths_my_directory,
        paths_my_drafts,
        paths_my_folders,
        paths_my_mail,
        paths_my_sessions,
        paths_permissions,
        paths_push,
        paths_sessions,
        paths_webhooks {}
