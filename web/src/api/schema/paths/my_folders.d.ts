// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations } from "../operations";

export interface paths_my_folders {
    "/api/v1/me/folders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Folders
         * @description Your folders, by name, each with its mails (not in Trash) and unread ones.
         */
        get: operations["list_folders_api_v1_me_folders_get"];
        put?: never;
        /** Create */
        post: operations["create_api_v1_me_folders_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/me/folders/{folder_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete
         * @description The folder goes; its mail goes to Archive (nothing is destroyed).
         */
        delete: operations["delete_api_v1_me_folders__folder_id__delete"];
        options?: never;
        head?: never;
        /**
         * Rename
         * @description A new name; folders inside it move along, its mail stays.
         */
        patch: operations["rename_api_v1_me_folders__folder_id__patch"];
        trace?: never;
    };
    "/api/v1/me/mail/{mail_id}/file": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * File
         * @description File a mail you received in a folder of yours (out of INBOX, Archive or Trash).
         */
        post: operations["file_api_v1_me_mail__mail_id__file_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
