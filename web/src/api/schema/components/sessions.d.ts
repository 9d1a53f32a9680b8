// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

export interface schemas_sessions {
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
         * Reason
         * @description Why (a raised budget, say); carried in the `session_update` event.
         */
        reason?: string | null;
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
        /** @description The task list of its newest mail you may see that has one. */
        tasks?: components["schemas"]["TaskProgress"] | null;
        /**
         * Unread
         * @description Its mails delivered to you and unread (not in Trash).
         * @default 0
         */
        unread?: number;
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
    /**
     * TaskProgress
     * @description The Markdown task list of a conversation's newest mail that has one.
     */
    TaskProgress: {
        /** Done */
        done: number;
        /** Mail Id */
        mail_id: string;
        /** Total */
        total: number;
    };
}
