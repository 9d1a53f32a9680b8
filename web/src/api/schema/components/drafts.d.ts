// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

export interface schemas_drafts {
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
}
