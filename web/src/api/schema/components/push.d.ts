// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

export interface schemas_push {
    /** PushInfo */
    PushInfo: {
        /**
         * Public Key
         * @description The VAPID public key (base64url, an uncompressed P-256 point): the `applicationServerKey` of `PushManager.subscribe`.
         */
        public_key: string;
    };
    /** PushKeys */
    PushKeys: {
        /** Auth */
        auth: string;
        /** P256Dh */
        p256dh: string;
    };
    /**
     * PushSubscriptionView
     * @description A browser subscribed to Web Push (core/push/); the endpoint's path is a secret of
     *     the push service and is not shown, only its host.
     */
    PushSubscriptionView: {
        /**
         * Created At
         * Format: date-time
         */
        created_at: string;
        /**
         * Push Service
         * @description The host of the push service.
         */
        push_service: string;
        /** Subscription Id */
        subscription_id: string;
        /** User Agent */
        user_agent: string;
    };
    /**
     * SubscriptionBody
     * @description `PushSubscription.toJSON()` as the browser gives it.
     */
    SubscriptionBody: {
        /** Endpoint */
        endpoint: string;
        keys: components["schemas"]["PushKeys"];
    };
    /** SubscriptionList */
    SubscriptionList: {
        /** Subscriptions */
        subscriptions: components["schemas"]["PushSubscriptionView"][];
    };
}
