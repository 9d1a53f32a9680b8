// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

export interface schemas_keys {
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
}
