// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

export interface schemas_mail_search {
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
        /**
         * Body Preview
         * @description The body as plain text, at most 200 characters.
         */
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
        /** @description Set when the mail came from outside the gateway: untrusted input, to be shown to a model as such (docs/bridges.md); null for mail from inside. */
        external?: components["schemas"]["ExternalContent"] | null;
        /** Flagged */
        flagged?: boolean | null;
        /**
         * Folder Id
         * @description The folder of your own the mail is filed in (`GET /me/folders`); it is `archived` there, and stays filed while in Trash.
         */
        folder_id?: string | null;
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
        /** @description Set on one mail read alone (`GET …/mail/{mail_id}`) when the mail came in from outside as a reply or a mail to you: not verified means it decided nothing. */
        outside?: components["schemas"]["OutsideMark"] | null;
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
        /**
         * Tasks Done
         * @description Its Markdown task-list items checked (`- [x]`).
         * @default 0
         */
        tasks_done?: number;
        /**
         * Tasks Total
         * @description Its Markdown task-list items, checked or not.
         * @default 0
         */
        tasks_total?: number;
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
}
