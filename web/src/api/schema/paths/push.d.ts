// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations } from "../operations";

export interface paths_push {
    "/api/v1/me/push": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Push Info */
        get: operations["push_info_api_v1_me_push_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/me/push/subscriptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List Push Subscriptions */
        get: operations["list_push_subscriptions_api_v1_me_push_subscriptions_get"];
        put?: never;
        /** Subscribe Push */
        post: operations["subscribe_push_api_v1_me_push_subscriptions_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/me/push/subscriptions/{subscription_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke Push Subscription */
        delete: operations["revoke_push_subscription_api_v1_me_push_subscriptions__subscription_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
