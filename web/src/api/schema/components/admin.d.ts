// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

export interface schemas_admin {
    /** AgentSettings */
    AgentSettings: {
        /** Default Budget */
        default_budget?: number | "unlimited" | null;
        /**
         * Outbound Mail
         * @description May send mail outside the gateway (mailto: recipients).
         */
        outbound_mail?: boolean | null;
    };
    /** AllowlistChange */
    AllowlistChange: {
        /**
         * Entries
         * @description The whole new list (at most 200 entries of at most 256 characters); an empty list takes every entry away.
         */
        entries: string[];
    };
    /** NewUser */
    NewUser: {
        /**
         * Is Admin
         * @default false
         */
        is_admin?: boolean;
        /** Name */
        name: string;
        /** Password */
        password: string;
    };
    /** PasswordReset */
    PasswordReset: {
        /** New Password */
        new_password: string;
    };
    /** UserChange */
    UserChange: {
        /** Is Admin */
        is_admin?: boolean | null;
        /**
         * Outbound Mail
         * @description May send mail outside the gateway (mailto: recipients).
         */
        outbound_mail?: boolean | null;
    };
    /** UserList */
    UserList: {
        /** Users */
        users: components["schemas"]["UserView"][];
    };
}
