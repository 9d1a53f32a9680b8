// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations_admin_change_user } from "./admin/change_user";
import type { operations_admin_configure_agent } from "./admin/configure_agent";
import type { operations_admin_create_user } from "./admin/create_user";
import type { operations_admin_list_users } from "./admin/list_users";
import type { operations_admin_reset_password } from "./admin/reset_password";

export interface operations_admin
    extends operations_admin_change_user,
        operations_admin_configure_agent,
        operations_admin_create_user,
        operations_admin_list_users,
        operations_admin_reset_password {}
