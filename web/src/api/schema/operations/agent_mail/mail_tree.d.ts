// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../../components";

export interface operations_agent_mail_mail_tree {
    mail_tree_api_v1_mail__mail_id__tree_get: {
        parameters: {
            query?: {
                cursor?: string | null;
                direction?: "ancestors" | "descendants" | "around";
                include_body?: boolean;
                limit?: number;
            };
            header?: never;
            path: {
                mail_id: string;
            };
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
                    "application/json": components["schemas"]["TreeChunk"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["UnprocessableEntity"];
        };
    };
}
