// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.

export interface components {
    schemas: {
        /**
         * AddressCheck
         * @description Whether a send to `address` would be delivered now; if not, the send's error.
         */
        AddressCheck: {
            /** Address */
            address: string;
            /** Deliverable */
            deliverable: boolean;
            /** Email */
            email: string | null;
            error: components["schemas"]["ErrorView"] | null;
            /** Kind */
            kind: ("human" | "agent") | null;
            /** Native */
            native: string | null;
        };
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
        /** AgentKeyBody */
        AgentKeyBody: {
            /**
             * Expires In
             * @description Seconds or text like '1h'.
             */
            expires_in?: string | number | null;
            /**
             * Key
             * @description Register a client-generated key instead.
             */
            key?: string | null;
            /**
             * Key Sha256
             * @description Register a client-generated key by its SHA-256 (hex) only: the key itself never leaves its client.
             */
            key_sha256?: string | null;
            /**
             * Label
             * @default
             */
            label?: string;
            /**
             * Lifecycle
             * @default permanent
             * @enum {string}
             */
            lifecycle?: "permanent" | "one_time" | "timed";
        };
        /** AgentList */
        AgentList: {
            /** Agents */
            agents: components["schemas"]["AgentView"][];
        };
        /** AgentSettings */
        AgentSettings: {
            /** Default Budget */
            default_budget: number | "unlimited";
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
        /**
         * AttachmentView
         * @description An upload: `content_type` is what the uploader declared (downloads ignore it).
         */
        AttachmentView: {
            /** Attachment Id */
            attachment_id: string;
            /** Content Type */
            content_type: string;
            /** Filename */
            filename: string;
            /** Sha256 */
            sha256: string;
            /** Size */
            size: number;
        };
        /** Candidate */
        Candidate: {
            /** Address */
            address: string;
            /** Description */
            description: string;
            /** Email */
            email: string;
            /**
             * Kind
             * @enum {string}
             */
            kind: "agent" | "human" | "conversation";
            /** Session Id */
            session_id?: string | null;
        };
        /** CandidateList */
        CandidateList: {
            /** Candidates */
            candidates: components["schemas"]["Candidate"][];
        };
        /** Contact */
        Contact: {
            /** Address */
            address: string;
            /** Addresses */
            addresses: string[];
            /** Email */
            email: string;
            /**
             * Kind
             * @enum {string}
             */
            kind: "agent" | "human";
            /** Last Interaction */
            last_interaction: string | null;
            /** Name */
            name: string;
            /** Shared Sessions */
            shared_sessions: number;
            /** Status */
            status: ("online" | "offline") | null;
        };
        /** ContactList */
        ContactList: {
            /** Contacts */
            contacts: components["schemas"]["Contact"][];
            /** Total */
            total: number;
        };
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
        /**
         * DraftInput
         * @description What a client saves; every field is optional, blank addresses count as absent.
         */
        DraftInput: {
            /**
             * Body
             * @default
             */
            body?: string;
            /**
             * Budget
             * @description Round-trip budget of a new one.
             */
            budget?: number | "unlimited" | null;
            /**
             * Cc
             * @description More recipients.
             */
            cc?: string[];
            /**
             * Reply To
             * @description mail_id this draft answers.
             */
            reply_to?: string | null;
            /**
             * Session Alias
             * @description Alias for a new one.
             */
            session_alias?: string | null;
            /**
             * Subject
             * @default
             */
            subject?: string;
            /**
             * To
             * @description One address, native or email form.
             */
            to?: string | null;
        };
        /** DraftList */
        DraftList: {
            /** Drafts */
            drafts: components["schemas"]["DraftView"][];
            /** Total */
            total: number;
        };
        /** DraftView */
        DraftView: {
            /**
             * Body
             * @description Full Markdown body (omitted in listings).
             */
            body?: string | null;
            /** Body Preview */
            body_preview: string;
            /**
             * Budget
             * @description null = the receiving agent's default.
             */
            budget: number | "unlimited" | null;
            /** Cc */
            cc: string[];
            /** Cc Email */
            cc_email: string[];
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Draft Id */
            draft_id: string;
            /** Reply To */
            reply_to: string | null;
            /** Session Alias */
            session_alias: string | null;
            /** Subject */
            subject: string;
            /** To */
            to: string | null;
            /** To Email */
            to_email: string | null;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /** ErrorDetail */
        ErrorDetail: {
            /**
             * Code
             * @description A stable snake_case word; docs/api.md lists them all.
             */
            code: string;
            /**
             * Message
             * @description For people: what went wrong and what to do instead.
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
        /** ErrorView */
        ErrorView: {
            /** Code */
            code: string;
            /** Message */
            message: string;
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
        /** IssuedKey */
        IssuedKey: {
            /** Expires At */
            expires_at: string | null;
            /**
             * Key
             * @description The key itself: shown once, never stored.
             */
            key: string | null;
            /** Key Id */
            key_id: string;
            /**
             * Lifecycle
             * @enum {string}
             */
            lifecycle: "permanent" | "one_time" | "timed";
        };
        /** KeyList */
        KeyList: {
            /** Keys */
            keys: components["schemas"]["KeyView"][];
        };
        /** KeyView */
        KeyView: {
            /** Active */
            active: boolean;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Expires At */
            expires_at: string | null;
            /** Key Id */
            key_id: string;
            /**
             * Kind
             * @enum {string}
             */
            kind: "agent" | "user";
            /** Label */
            label: string;
            /**
             * Lifecycle
             * @enum {string}
             */
            lifecycle: "permanent" | "one_time" | "timed";
            /**
             * Owner
             * @description The user, or the agent the key is bound to.
             */
            owner: string | null;
            /** Revoked At */
            revoked_at: string | null;
            /** Used At */
            used_at: string | null;
        };
        /**
         * LatestMail
         * @description The newest mail of a conversation the viewer may see, for a list row.
         */
        LatestMail: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Excerpt */
            excerpt: string;
            /** From */
            from: string;
            /** Mail Id */
            mail_id: string;
        };
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
        /** MailList */
        MailList: {
            /** Mails */
            mails: components["schemas"]["MailView"][];
            /** Total */
            total: number;
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
        /** ParticipantBrief */
        ParticipantBrief: {
            /**
             * Kind
             * @enum {string}
             */
            kind: "human" | "agent";
            /** Name */
            name: string;
            /** Online */
            online: boolean;
        };
        /** ParticipantList */
        ParticipantList: {
            /** Participants */
            participants: components["schemas"]["ParticipantView"][];
            /** Session Alias */
            session_alias: string | null;
            /** Session Id */
            session_id: string;
        };
        /** ParticipantView */
        ParticipantView: {
            /** Address */
            address: string;
            /** Email */
            email: string;
            /**
             * Kind
             * @enum {string}
             */
            kind: "agent" | "human";
            /** Name */
            name: string;
            /** Status */
            status: ("online" | "offline") | null;
            /** Workspace */
            workspace: string;
        };
        /** PasswordChange */
        PasswordChange: {
            /** Current Password */
            current_password: string;
            /** New Password */
            new_password: string;
        };
        /** PasswordReset */
        PasswordReset: {
            /** New Password */
            new_password: string;
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
        /** ProposalList */
        ProposalList: {
            /** Proposals */
            proposals: components["schemas"]["ProposalView"][];
        };
        /** ProposalView */
        ProposalView: {
            /** Alias */
            alias: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Decided At */
            decided_at: string | null;
            /** Decided By */
            decided_by: string | null;
            /** Mail Id */
            mail_id: string | null;
            /** Proposal Id */
            proposal_id: string;
            /** Proposed By */
            proposed_by: string;
            /** Reason */
            reason: string;
            /** Session Id */
            session_id: string;
            /**
             * State
             * @enum {string}
             */
            state: "pending" | "accepted" | "rejected";
        };
        /** RegisterBody */
        RegisterBody: {
            /** Name */
            name: string;
            /**
             * Platform
             * @default
             */
            platform?: string;
            /** Workspaces */
            workspaces: components["schemas"]["Workspace"][];
        };
        /** Registered */
        Registered: {
            agent: components["schemas"]["AgentView"];
            /** Agent Id */
            agent_id: string;
            /**
             * Agent Key
             * @description With an enrolment (one-time) key: the agent's permanent key, once.
             */
            agent_key?: string | null;
            /**
             * Status
             * @default registered
             * @constant
             */
            status?: "registered";
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
             * @description Bridge auto-forward, no round: only on a question or the one final_summary answering a mail addressed to you (reply_to).
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
             * @description Agents: a question, or the final summary of a task.
             * @default normal
             * @enum {string}
             */
            mail_type?: "normal" | "question" | "final_summary";
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
            /** Mail Id */
            mail_id: string;
            /** Message Id */
            message_id: string;
            /** Session Alias */
            session_alias: string | null;
            /** Session Id */
            session_id: string;
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
        /**
         * SessionChange
         * @description What a human may change on a conversation; fields left out stay as they are.
         */
        SessionChange: {
            /**
             * Budget Limit
             * @description New round-trip budget: a number of rounds or 'unlimited'.
             */
            budget_limit?: number | "unlimited" | null;
            /**
             * Clear Alias
             * @default false
             */
            clear_alias?: boolean;
            /**
             * Reset Budget Used
             * @description Start counting rounds from 0 again.
             * @default false
             */
            reset_budget_used?: boolean;
            /**
             * Session Alias
             * @description New alias; null with `clear_alias` removes it.
             */
            session_alias?: string | null;
            /** Status */
            status?: ("active" | "completed") | null;
            /** Subject */
            subject?: string | null;
        };
        /** SessionDetail */
        SessionDetail: {
            /** Mails */
            mails: components["schemas"]["MailView"][];
            session: components["schemas"]["SessionView"];
        };
        /** SessionList */
        SessionList: {
            /** Sessions */
            sessions: components["schemas"]["SessionView"][];
            /** Total */
            total: number;
        };
        /** SessionView */
        SessionView: {
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
            /** Created By */
            created_by: string;
            latest?: components["schemas"]["LatestMail"] | null;
            /** Mail Count */
            mail_count: number;
            /**
             * Participant Details
             * @description `participants` with their kind and presence.
             */
            participant_details?: components["schemas"]["ParticipantBrief"][];
            /** Participants */
            participants: string[];
            /** Session Alias */
            session_alias: string | null;
            /** Session Id */
            session_id: string;
            /**
             * Status
             * @enum {string}
             */
            status: "active" | "waiting" | "completed";
            /** Subject */
            subject: string;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /** SyncBody */
        SyncBody: {
            /**
             * Session Alias
             * @description The platform's slug for it.
             */
            session_alias?: string | null;
            /**
             * Title
             * @description The platform's title for it.
             */
            title?: string | null;
        };
        /** TreeChunk */
        TreeChunk: {
            /**
             * Direction
             * @enum {string}
             */
            direction: "ancestors" | "descendants" | "around";
            /**
             * Mail Id
             * @description The mail the chunk is around; depths count from it.
             */
            mail_id: string;
            /**
             * Mails
             * @description Reading order: ancestors root-side first, then the mail (around only), then descendants depth-first, replies oldest first. Only mails you may see.
             */
            mails: components["schemas"]["TreeMail"][];
            /**
             * Next Cursor Down
             * @description Pass with direction=descendants for the next chunk down; null when done.
             */
            next_cursor_down: string | null;
            /**
             * Next Cursor Up
             * @description Pass with direction=ancestors for the next chunk up; null when done.
             */
            next_cursor_up: string | null;
            /**
             * Root Mail Id
             * @description The root of the tree, when this chunk's walk up reached it; else null.
             */
            root_mail_id: string | null;
        };
        /** TreeMail */
        TreeMail: {
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
            /**
             * Depth
             * @description Steps from the mail asked about: 0 is that mail, -1 its parent, 1 a reply.
             */
            depth: number;
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
        /** UserChange */
        UserChange: {
            /** Is Admin */
            is_admin: boolean;
        };
        /** UserKeyBody */
        UserKeyBody: {
            /** Expires In */
            expires_in?: string | number | null;
            /**
             * Label
             * @default
             */
            label?: string;
            /**
             * Lifecycle
             * @default permanent
             * @enum {string}
             */
            lifecycle?: "permanent" | "one_time" | "timed";
        };
        /** UserList */
        UserList: {
            /** Users */
            users: components["schemas"]["UserView"][];
        };
        /** UserOut */
        UserOut: {
            user: components["schemas"]["UserView"];
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
            /** User Id */
            user_id: string;
        };
        /** Version */
        Version: {
            /** Version */
            version: string;
        };
        /** Workspace */
        Workspace: {
            /** Name */
            name: string;
            /**
             * Path
             * @default
             */
            path?: string;
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
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
