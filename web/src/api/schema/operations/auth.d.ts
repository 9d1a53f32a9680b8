// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations_auth_change_password } from "./auth/change_password";
import type { operations_auth_get_mail_settings } from "./auth/get_mail_settings";
import type { operations_auth_list_logins } from "./auth/list_logins";
import type { operations_auth_login } from "./auth/login";
import type { operations_auth_logout } from "./auth/logout";
import type { operations_auth_revoke_login } from "./auth/revoke_login";
import type { operations_auth_whoami } from "./auth/whoami";

export interface operations_auth
    extends operations_auth_change_password,
        operations_auth_get_mail_settings,
        operations_auth_list_logins,
        operations_auth_login,
        operations_auth_logout,
        operations_auth_revoke_login,
        operations_auth_whoami {}
