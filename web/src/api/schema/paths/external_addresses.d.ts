// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations } from "../operations";

export interface paths_external_addresses {
    "/api/v1/me/external-addresses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List External Addresses */
        get: operations["list_external_addresses_api_v1_me_external_addresses_get"];
        put?: never;
        /** Add External Address */
        post: operations["add_external_address_api_v1_me_external_addresses_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/me/external-addresses/{address_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete External Address */
        delete: operations["delete_external_address_api_v1_me_external_addresses__address_id__delete"];
        options?: never;
        head?: never;
        /** Change External Address */
        patch: operations["change_external_address_api_v1_me_external_addresses__address_id__patch"];
        trace?: never;
    };
    "/api/v1/me/external-addresses/{address_id}/code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send New Code */
        post: operations["send_new_code_api_v1_me_external_addresses__address_id__code_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/me/external-addresses/{address_id}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Verify External Address */
        post: operations["verify_external_address_api_v1_me_external_addresses__address_id__verify_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
