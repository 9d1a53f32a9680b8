// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

export interface schemas_auth {
    /** LoginBody */
    LoginBody: {
        /** Password */
        password: string;
        /** Username */
        username: string;
    };
    /** LoginList */
    LoginList: {
        /** Logins */
        logins: components["schemas"]["LoginView"][];
    };
    /**
     * LoginView
     * @description A web login (a browser's session cookie), as its user sees it in `GET /me/logins`.
     */
    LoginView: {
        /**
         * Created At
         * Format: date-time
         */
        created_at: string;
        /**
         * Current
         * @description The login this request came with.
         */
        current: boolean;
        /** Expires At */
        expires_at: string | null;
        /**
         * Last Used At
         * @description Written at most once a minute.
         */
        last_used_at: string | null;
        /** Login Id */
        login_id: string;
        /** User Agent */
        user_agent: string;
    };
    /** MailSettings */
    MailSettings: {
        /** Address */
        address: string;
        /** Email */
        email: string;
        imap: components["schemas"]["Server"];
        smtp: components["schemas"]["Server"];
        /** Username */
        username: string;
    };
    /**
     * MeLimits
     * @description The gateway's limits a client checks before it asks (an upload refused after
     *     25 MiB of it were sent wastes the person's time).
     */
    MeLimits: {
        /**
         * Max Attachment Bytes
         * @description Largest attachment upload (413 beyond).
         */
        max_attachment_bytes: number;
    };
    /** MeOut */
    MeOut: {
        limits: components["schemas"]["MeLimits"];
        user: components["schemas"]["UserView"];
    };
    /** PasswordChange */
    PasswordChange: {
        /** Current Password */
        current_password: string;
        /** New Password */
        new_password: string;
    };
    /** Port */
    Port: {
        /** Port */
        port: number;
        /**
         * Security
         * @enum {string}
         */
        security: "ssl/tls" | "starttls" | "none";
    };
    /**
     * Server
     * @description The recommended port first (RFC 8314 §3: implicit TLS where offered), then `ports`,
     *     every port the server offers.
     */
    Server: {
        /** Host */
        host: string;
        /** Port */
        port: number | null;
        /** Ports */
        ports: components["schemas"]["Port"][];
        /** Security */
        security: ("ssl/tls" | "starttls" | "none") | null;
    };
    /** SessionOut */
    SessionOut: {
        /** @description The human signed in, or null: no login (or one that has ended). */
        user: components["schemas"]["UserView"] | null;
    };
    /** UserOut */
    UserOut: {
        user: components["schemas"]["UserView"];
    };
}
