// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../../components";

export interface operations_webhooks_list_webhooks_api_v1_admin_webhooks_get {
    list_webhooks_api_v1_admin_webhooks_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
}
