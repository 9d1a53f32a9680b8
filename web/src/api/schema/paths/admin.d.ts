// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations } from "../operations";

export interface paths_admin {
    "/api/v1/admin/agents/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Configure Agent
         * @description An agent's default budget and whether it may send mail outside.
         */
        patch: operations["configure_agent_api_v1_admin_agents__name__patch"];
        trace?: never;
    };
    "/api/v1/admin/agents/{name}/outbound-allowlist": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read Allowlist */
        get: operations["read_allowlist_api_v1_admin_agents__name__outbound_allowlist_get"];
        /**
         * Replace Allowlist
         * @description Replace the whole list; mail to anyone else outside waits for a human's decision.
         */
        put: operations["replace_allowlist_api_v1_admin_agents__name__outbound_allowlist_put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List Users */
        get: operations["list_users_api_v1_admin_users_get"];
        put?: never;
        /** Create User */
        post: operations["create_user_api_v1_admin_users_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/users/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change User
         * @description Grant or withdraw the admin flag (the last admin keeps it, `403`) and outbound mail.
         */
        patch: operations["change_user_api_v1_admin_users__name__patch"];
        trace?: never;
    };
    "/api/v1/admin/users/{name}/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reset Password
         * @description Set another user's password: all their web logins end (an admin's own, but this one).
         */
        post: operations["reset_password_api_v1_admin_users__name__password_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
