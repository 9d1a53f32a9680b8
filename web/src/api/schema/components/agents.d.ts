// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

export interface schemas_agents {
    /**
     * ActivityItem
     * @description One thing an agent did, for its page: a mail it sent (core/mail/agent_activity.py).
     */
    ActivityItem: {
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
        /**
         * Excerpt
         * @description The start of the body as one plain line.
         */
        excerpt: string;
        /** Mail Id */
        mail_id: string;
        /** Mail Type */
        mail_type: string;
        /**
         * Permission State
         * @description A permission request's state: open, decided or expired.
         */
        permission_state?: string | null;
        /** Session Alias */
        session_alias: string | null;
        /** Session Id */
        session_id: string;
        /** Subject */
        subject: string;
    };
    /** ActivityPage */
    ActivityPage: {
        /** Items */
        items: components["schemas"]["ActivityItem"][];
        /** Total */
        total: number;
    };
    /** AgentList */
    AgentList: {
        /** Agents */
        agents: components["schemas"]["AgentView"][];
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
}
