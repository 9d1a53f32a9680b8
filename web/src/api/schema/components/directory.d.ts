// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

export interface schemas_directory {
    /**
     * AddressCheck
     * @description Whether a send to `address` would be delivered now; if not, the send's error.
     *     `reaches` says where it would go (null when it would not be delivered).
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
        reaches: components["schemas"]["AddressReach"] | null;
    };
    /**
     * AddressReach
     * @description Which conversation a mail to the address goes to, by the send's own routing:
     *     `new` (`.new`), `default` (the default conversation of sender and recipient;
     *     `conversation` is null until a first mail makes it), `alias` (`.alias`),
     *     `reply` (the conversation of the mail replied to).
     */
    AddressReach: {
        /**
         * By
         * @enum {string}
         */
        by: "new" | "default" | "alias" | "reply";
        conversation: components["schemas"]["ReachedConversation"] | null;
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
    /** ErrorView */
    ErrorView: {
        /** Code */
        code: string;
        /** Message */
        message: string;
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
    /**
     * ReachedConversation
     * @description The existing conversation a mail to an address would join.
     */
    ReachedConversation: {
        /** Budget Limit */
        budget_limit: number | "unlimited";
        /** Budget Remaining */
        budget_remaining: number | "unlimited";
        /** Budget Used */
        budget_used: number;
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
    };
}
