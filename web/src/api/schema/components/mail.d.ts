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
    /** MailRowList */
    MailRowList: {
        /**
         * Has More
         * @description Rows after this page: ask with `offset` + `limit`.
         */
        has_more: boolean;
        /** Rows */
        rows: components["schemas"]["MailRowView"][];
        /**
         * Total
         * @description Mails in the list, counted up to 1,000.
         */
        total: number;
        /**
         * Total Exact
         * @description False: more than `total` (counting stops there).
         */
        total_exact: boolean;
    };
    /**
     * MailRowView
     * @description A mail as a list row shows it; `GET …/mail/{mail_id}` has the rest.
     */
    MailRowView: {
        /** Answered */
        answered?: boolean | null;
        /** Attachment Count */
        attachment_count: number;
        /** Auto */
        auto: boolean;
        /**
         * Created At
         * Format: date-time
         */
        created_at: string;
        /**
         * Delivery
         * @description Null in Sent.
         */
        delivery: ("to" | "cc") | null;
        /**
         * Excerpt
         * @description The body as plain text, at most 200 characters.
         */
        excerpt: string;
        /** Flagged */
        flagged?: boolean | null;
        /** Folder Id */
        folder_id?: string | null;
        /** From */
        from: string;
        /** Mail Id */
        mail_id: string;
        /** Mail Type */
        mail_type: string;
        /** Permission State */
        permission_state: ("open" | "decided" | "expired") | null;
        /** Session Alias */
        session_alias: string | null;
        /** Session Id */
        session_id: string;
        /** Status */
        status?: ("unread" | "read" | "archived" | "deleted") | null;
        /** Subject */
        subject: string;
        /** Tasks Done */
        tasks_done: number;
        /** Tasks Total */
        tasks_total: number;
        /** To */
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
         * @description More recipients, in the same forms as `to`.
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
         * @description One address, native (`builder@ModelRouter`) or email form; outside the gateway `mailto:x@example.com` (a sender enabled for outbound mail only).
         */
        to: string;
    };
}
