// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

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
    /**
     * SearchHit
     * @description A mail found by search: the inbox's mail view and where the words matched.
     */
    SearchHit: {
        /** Action */
        action?: string | null;
        /** Action Sha256 */
        action_sha256?: string | null;
        /** Answered */
        answered?: boolean | null;
        /** Attachments */
        attachments?: components["schemas"]["AttachmentRef"][];
        /** Auto */
        auto: boolean;
        /**
         * Body
         * @description Full Markdown body (omitted in listings).
         */
        body?: string | null;
        /** Body Preview */
        body_preview: string;
        /** Cc */
        cc: string[];
        /** Cc Email */
        cc_email: string[];
        /**
         * Created At
         * Format: date-time
         */
        created_at: string;
        /** Decided At */
        decided_at?: string | null;
        /** Decided By */
        decided_by?: string | null;
        /** Decision */
        decision?: string | null;
        /** Decision Note */
        decision_note?: string | null;
        /** Delivery */
        delivery?: ("to" | "cc") | null;
        /** Expires At */
        expires_at?: string | null;
        /** Flagged */
        flagged?: boolean | null;
        /** From */
        from: string;
        /** From Email */
        from_email: string;
        /**
         * Keywords
         * @description Your IMAP keywords on it (`$Label1`, `$Junk`, …), sorted; null when you are not a recipient (and in tree chunks, which leave them out).
         */
        keywords?: string[] | null;
        /** Mail Id */
        mail_id: string;
        /** Mail Type */
        mail_type: string;
        /** Message Id */
        message_id: string;
        /** Options */
        options?: string[] | null;
        /** Parent Mail Id */
        parent_mail_id: string | null;
        /** Permission State */
        permission_state?: ("open" | "decided" | "expired") | null;
        /** Seq */
        seq: number;
        /** Session Alias */
        session_alias: string | null;
        /** Session Id */
        session_id: string;
        /** Snippet */
        snippet: string;
        /** Status */
        status?: ("unread" | "read" | "archived" | "deleted") | null;
        /** Subject */
        subject: string;
        /** To */
        to: string;
        /** To Email */
        to_email: string;
        /** @description The agent workspace `to` names; null for a human or a role. */
        to_workspace?: components["schemas"]["AddressedWorkspace"] | null;
    };
    /** SearchResults */
    SearchResults: {
        /** Mails */
        mails: components["schemas"]["SearchHit"][];
        /** Total */
        total: number;
        /**
         * Total Exact
         * @default true
         */
        total_exact?: boolean;
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
