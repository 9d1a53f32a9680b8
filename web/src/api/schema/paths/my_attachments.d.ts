// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations } from "../operations";

export interface paths_my_attachments {
    "/api/v1/me/attachments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload
         * @description Upload one file (multipart field `file`); send it with `attachment_ids`.
         */
        post: operations["upload_api_v1_me_attachments_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/me/attachments/{attachment_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download
         * @description The bytes, always as `application/octet-stream` attachment (never rendered
         *     inline); one byte range of them for `Range: bytes=a-b` (`206`).
         */
        get: operations["download_api_v1_me_attachments__attachment_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
