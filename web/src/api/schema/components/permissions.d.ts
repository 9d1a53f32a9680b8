// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.

export interface schemas_permissions {
    /** DecideBody */
    DecideBody: {
        /** Decision */
        decision: string;
        /** Mail Id */
        mail_id: string;
        /** Note */
        note?: string | null;
    };
    /** Decided */
    Decided: {
        /** Action Sha256 */
        action_sha256: string | null;
        /** Decision */
        decision: string;
        /** Mail Id */
        mail_id: string;
        /**
         * Status
         * @default decided
         */
        status?: string;
    };
    /** PermissionRequest */
    PermissionRequest: {
        /**
         * Action
         * @description The exact action; its sha256 is returned.
         */
        action?: string | null;
        /**
         * Auto
         * @description Bridge auto-forward: never counts as a round.
         * @default false
         */
        auto?: boolean;
        /**
         * Cc
         * @description Others who see the request; only `to` decides it (403 for a cc).
         */
        cc?: string[];
        /**
         * Context
         * @default
         */
        context?: string;
        /**
         * Expires In
         * @description Seconds, or text like '30m'.
         */
        expires_in?: string | number | null;
        /** From Workspace */
        from_workspace?: string | null;
        /** Options */
        options?: string[];
        /** Question */
        question: string;
        /** Reply To */
        reply_to?: string | null;
        /** Session Id */
        session_id?: string | null;
        /**
         * To
         * @description The human who decides.
         */
        to: string;
    };
}
