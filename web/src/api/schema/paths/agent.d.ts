// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations } from "../operations";

export interface paths_agent {
    "/api/v1/agent/outbound-allowlist": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Own Allowlist
         * @description The caller's own list, read-only: mail to others outside is held for a human.
         */
        get: operations["own_allowlist_api_v1_agent_outbound_allowlist_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
