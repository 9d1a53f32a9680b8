// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.

export interface schemas_mail {
    /** DeliveryState */
    DeliveryState: {
        /** Mail Id */
        mail_id: string;
        /**
         * Status
         * @enum {string}
         */
        status: "unread" | "read" | "archived" | "deleted";
    };
    /** ForwardRequest */
    ForwardRequest: {
        /**
         * Body
         * @description Your text, above the quoted original.
         * @default
         */
        body?: string;
        /**
         * Cc
         * @description More recipients.
         */
        cc?: string[];
        /**
         * From Workspace
         * @description Agents: the workspace sending.
         */
        from_workspace?: string | null;
        /**
         * Subject
         * @description Default: `Fwd: <original subject>`.
         */
        subject?: string | null;
        /**
         * To
         * @description One address, native or email form.
         */
        to: string;
    };
    /** SendRequest */
    SendRequest: {
        /**
         * Attachment Ids
         * @description Your own uploads (POST .../attachments) that this mail carries.
         */
        attachment_ids?: string[];
        /**
         * Auto
         * @description Bridge auto-forward, no round: only on a question or the one final answer (final_summary or turn_failed) to a mail addressed to you (reply_to).
         * @default false
         */
        auto?: boolean;
        /**
         * Body
         * @default
         */
        body?: string;
        /**
         * Budget
         * @description Round-trip budget of a new conversation.
         */
        budget?: number | "unlimited" | null;
        /**
         * Cc
         * @description More recipients.
         */
        cc?: string[];
        /**
         * From Workspace
         * @description Agents: the workspace sending.
         */
        from_workspace?: string | null;
        /**
         * Mail Type
         * @description Agents: a question, the final summary of a task, or `turn_failed`: the task's turn did not finish (interrupted, failed, timed out).
         * @default normal
         * @enum {string}
         */
        mail_type?: "normal" | "question" | "final_summary" | "turn_failed";
        /**
         * Propose Alias
         * @description Agents: propose a better alias for the conversation (a human decides).
         */
        propose_alias?: string | null;
        /**
         * Propose Reason
         * @description Why the proposed alias fits.
         */
        propose_reason?: string | null;
        /**
         * Reply To
         * @description mail_id this mail answers.
         */
        reply_to?: string | null;
        /**
         * Session Alias
         * @description Alias for a new conversation.
         */
        session_alias?: string | null;
        /**
         * Session Id
         * @description A conversation you take part in, to continue it (checked like an alias).
         */
        session_id?: string | null;
        /**
         * Subject
         * @default
         */
        subject?: string;
        /**
         * To
         * @description One address, native (`builder@ModelRouter`) or email form.
         */
        to: string;
    };
}
