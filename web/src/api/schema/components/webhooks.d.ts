// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

export interface schemas_webhooks {
    /** DeliveryList */
    DeliveryList: {
        /** Deliveries */
        deliveries: components["schemas"]["WebhookDeliveryView"][];
    };
    /** ReplayBody */
    ReplayBody: {
        /** Event Id */
        event_id: number;
    };
    /** WebhookBody */
    WebhookBody: {
        /**
         * Description
         * @default
         */
        description?: string;
        /**
         * Events
         * @description The event types to deliver (all when left out).
         */
        events?: ("mail.received" | "permission.requested" | "permission.decided" | "question.asked" | "conversation.updated")[];
        /** Url */
        url: string;
    };
    /** WebhookCreated */
    WebhookCreated: {
        /**
         * Created At
         * Format: date-time
         */
        created_at: string;
        /** Description */
        description: string;
        /** Disabled Reason */
        disabled_reason: string;
        /** Enabled */
        enabled: boolean;
        /** Events */
        events: string[];
        /**
         * Failures
         * @description Deliveries given up on since the last one that arrived.
         */
        failures: number;
        /** Owner */
        owner: string;
        /**
         * Scope
         * @description `own`: the events addressed to its owner; `all`: everyone's (an admin's).
         * @enum {string}
         */
        scope: "own" | "all";
        /**
         * Secret
         * @description The `whsec_` signing secret (Standard Webhooks): shown this once.
         */
        secret: string;
        /** Url */
        url: string;
        /** Webhook Id */
        webhook_id: string;
    };
    /** WebhookDeliveryView */
    WebhookDeliveryView: {
        /** Attempts */
        attempts: number;
        /**
         * Created At
         * Format: date-time
         */
        created_at: string;
        /** Delivery Id */
        delivery_id: number;
        /** Event Id */
        event_id: number;
        /** Event Type */
        event_type: string;
        /** Finished At */
        finished_at: string | null;
        /** Last Error */
        last_error: string;
        /** Last Status */
        last_status: number | null;
        /** Next Attempt At */
        next_attempt_at: string | null;
        /**
         * State
         * @enum {string}
         */
        state: "pending" | "delivered" | "failed";
    };
    /** WebhookList */
    WebhookList: {
        /** Webhooks */
        webhooks: components["schemas"]["WebhookView"][];
    };
    /**
     * WebhookView
     * @description A webhook endpoint (core/webhooks/); its signing secret is shown only when made.
     */
    WebhookView: {
        /**
         * Created At
         * Format: date-time
         */
        created_at: string;
        /** Description */
        description: string;
        /** Disabled Reason */
        disabled_reason: string;
        /** Enabled */
        enabled: boolean;
        /** Events */
        events: string[];
        /**
         * Failures
         * @description Deliveries given up on since the last one that arrived.
         */
        failures: number;
        /** Owner */
        owner: string;
        /**
         * Scope
         * @description `own`: the events addressed to its owner; `all`: everyone's (an admin's).
         * @enum {string}
         */
        scope: "own" | "all";
        /** Url */
        url: string;
        /** Webhook Id */
        webhook_id: string;
    };
}
