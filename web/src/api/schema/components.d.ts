// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { schemas_admin } from "./components/admin";
import type { schemas_agents } from "./components/agents";
import type { schemas_attachments } from "./components/attachments";
import type { schemas_auth } from "./components/auth";
import type { schemas_directory } from "./components/directory";
import type { schemas_drafts } from "./components/drafts";
import type { schemas_external_addresses } from "./components/external_addresses";
import type { schemas_folders } from "./components/folders";
import type { schemas_keys } from "./components/keys";
import type { schemas_mail } from "./components/mail";
import type { schemas_mail_search } from "./components/mail_search";
import type { schemas_mail_tree } from "./components/mail_tree";
import type { schemas_meta } from "./components/meta";
import type { schemas_permissions } from "./components/permissions";
import type { schemas_push } from "./components/push";
import type { schemas_sessions } from "./components/sessions";
import type { schemas_shared } from "./components/shared";
import type { schemas_webhooks } from "./components/webhooks";
import type { responses } from "./components/responses";

export interface components {
    schemas: schemas;
    responses: responses;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}

export interface schemas
    extends schemas_admin,
        schemas_agents,
        schemas_attachments,
        schemas_auth,
        schemas_directory,
        schemas_drafts,
        schemas_external_addresses,
        schemas_folders,
        schemas_keys,
        schemas_mail,
        schemas_mail_search,
        schemas_mail_tree,
        schemas_meta,
        schemas_permissions,
        schemas_push,
        schemas_sessions,
        schemas_shared,
        schemas_webhooks {}
