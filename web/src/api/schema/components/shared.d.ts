// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

export interface schemas_shared {
    /**
     * AddressedWorkspace
     * @description The agent workspace a mail is addressed to (`to`), so a bridge need not parse it.
     */
    AddressedWorkspace: {
        /** Name */
        name: string;
        /**
         * Path
         * @description Its registered path; null if removed since.
         */
        path: string | null;
    };
    /** AgentView */
    AgentView: {
        /** Agent Id */
        agent_id: string;
        /** Agent Name */
        agent_name: string;
        /**
         * Created At
         * Format: date-time
         */
        created_at: string;
        /** Default Budget */
        default_budget: number | "unlimited";
        /** Last Seen */
        last_seen: string | null;
        /**
         * Outbound Mail
         * @default false
         */
        outbound_mail?: boolean;
        /** Platform */
        platform: string;
        /**
         * Status
         * @enum {string}
         */
        status: "online" | "offline";
        /** Workspaces */
        workspaces: components["schemas"]["WorkspaceView"][];
    };
    /** Allowlist */
    Allowlist: {
        /**
         * Entries
         * @description Mailboxes (`bob@example.com`), domains (`example.com`) and subdomain patterns (`*.example.com`) the agent may mail directly; sorted, canonical.
         */
        entries: string[];
    };
    /**
     * AttachmentRef
     * @description An attachment as a mail lists it; download it by `attachment_id`.
     */
    AttachmentRef: {
        /** Attachment Id */
        attachment_id: string;
        /** Filename */
        filename: string;
        /** Sha256 */
        sha256: string;
        /** Size */
        size: number;
    };
    /** ErrorDetail */
    ErrorDetail: {
        /**
         * Code
         * @description A stable snake_case word; docs/api.md lists them all.
         */
        code: string;
        /**
         * Fields
         * @description The inputs the refusal is about, when it is about particular ones (every 422 of a request's shape; some refusals of values). Left out when empty.
         */
        fields?: components["schemas"]["FieldError"][];
        /**
         * Message
         * @description For developers and logs: what went wrong and what to do instead, in English. A client that shows refusals to people says them from `code` and `fields` in its own words.
         */
        message: string;
    };
    /**
     * ErrorResponse
     * @description Every refusal of the API, whatever its status.
     */
    ErrorResponse: {
        error: components["schemas"]["ErrorDetail"];
    };
    /**
     * ExternalContent
     * @description A mail that came from outside the gateway: what its content is worth.
     */
    ExternalContent: {
        /**
         * Authentication Results
         * @description The Authentication-Results (RFC 8601) this gateway recorded when the mail came in from the internet; null when it evaluated none (imported mail).
         */
        authentication_results?: string | null;
        /**
         * Sender
         * @description Who it says it is from, `mailto:x@example.com`.
         */
        sender: string;
    };
    /**
     * FieldError
     * @description One input a refusal is about, as data a client can put in its own words.
     */
    FieldError: {
        /**
         * Code
         * @description What is wrong with it; docs/api.md lists the words.
         * @enum {string}
         */
        code: "missing" | "too_long" | "too_short" | "too_large" | "too_small" | "format" | "type" | "choice" | "unknown" | "invalid" | "wrong" | "taken" | "reserved";
        /**
         * Field
         * @description The input's dotted name: `subject`, `cc.2`, `workspaces.0.path`, `limit`.
         */
        field: string;
        /**
         * Limit
         * @description The bound passed: characters or items for `too_long` and `too_short`, the largest or smallest value allowed for `too_large` and `too_small`.
         */
        limit?: number;
    };
    /**
     * HeldRecipients
     * @description An agent's outside recipients not on its allowlist: not sent until a human
     *     approves the permission request `request_id` (docs/external-mail.md).
     */
    HeldRecipients: {
        /** Recipients */
        recipients: string[];
        /** Request Id */
        request_id: string;
    };
    /** MailList */
    MailList: {
        /** Mails */
        mails: components["schemas"]["MailView"][];
        /** Total */
        total: number;
    };
    /** MailView */
    MailView: {
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
    /**
     * OutsideMark
     * @description What the gateway found of a mail it stored from outside (an `outside_replies`
     *     row: core/replies/inbound.py): whether it was proven, whether it decided, and why not.
     */
    OutsideMark: {
        /**
         * Authentication Results
         * @description The Authentication-Results recorded.
         */
        authentication_results: string;
        /**
         * Decided
         * @description It decided a permission request or a question.
         */
        decided: boolean;
        /**
         * Reason
         * @description `verified`, or why it is not a decision (English).
         */
        reason: string;
        /**
         * Reason Code
         * @description The reason as a stable word, for a client to say in its language.
         * @enum {string}
         */
        reason_code: "verified" | "other_address" | "no_domain_proof" | "already_used" | "address_gone" | "not_a_reply" | "other";
        /**
         * Sender
         * @description The From address as written.
         */
        sender: string;
        /**
         * Verified
         * @description All the checks held (the reason is `verified`).
         */
        verified: boolean;
    };
    /** SendResult */
    SendResult: {
        /** Budget Limit */
        budget_limit: number | "unlimited";
        /** Budget Remaining */
        budget_remaining: number | "unlimited";
        /** Budget Used */
        budget_used: number;
        /**
         * Created At
         * Format: date-time
         */
        created_at: string;
        /** @description Outside recipients held for a human's decision (an agent's, off its outbound allowlist); the others were queued at once. */
        held?: components["schemas"]["HeldRecipients"] | null;
        /** Mail Id */
        mail_id: string;
        /** Message Id */
        message_id: string;
        /** Session Alias */
        session_alias: string | null;
        /** Session Id */
        session_id: string;
    };
    /** UserView */
    UserView: {
        /** Address */
        address: string;
        /**
         * Created At
         * Format: date-time
         */
        created_at: string;
        /** Email */
        email: string;
        /** Is Admin */
        is_admin: boolean;
        /** Name */
        name: string;
        /**
         * Outbound Mail
         * @default false
         */
        outbound_mail?: boolean;
        /** User Id */
        user_id: string;
    };
    /** WorkspaceView */
    WorkspaceView: {
        /** Address */
        address: string;
        /** Email */
        email: string;
        /** Name */
        name: string;
        /** Path */
        path: string;
    };
}
