// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

export interface schemas_agents {
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
