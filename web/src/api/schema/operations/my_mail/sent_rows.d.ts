// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../../components";

export interface operations_my_mail_sent_rows {
    sent_rows_api_v1_me_mail_sent_rows_get: {
        parameters: {
            query?: {
                limit?: number;
                /** @description Items to skip. */
                offset?: number;
            };
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
                    "application/json": components["schemas"]["MailRowList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["UnprocessableEntity"];
        };
    };
}
