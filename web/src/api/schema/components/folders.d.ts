// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

export interface schemas_folders {
    /** Filed */
    Filed: {
        /** Folder Id */
        folder_id: string;
        /** Mail Id */
        mail_id: string;
    };
    /** Filing */
    Filing: {
        /** Folder Id */
        folder_id: string;
    };
    /** FolderDeleted */
    FolderDeleted: {
        /** Folder Id */
        folder_id: string;
        /**
         * Moved To Archive
         * @description How many mails went to Archive.
         */
        moved_to_archive: number;
    };
    /** FolderList */
    FolderList: {
        /** Folders */
        folders: components["schemas"]["FolderView"][];
    };
    /** FolderName */
    FolderName: {
        /**
         * Name
         * @description Levels separated by `/` (`Projects/2026`): no empty level, control character, `*` or `%`; at most 16 levels of 255 characters.
         */
        name: string;
    };
    /**
     * FolderView
     * @description A folder of a person's own (core/mailboxes/personal.py).
     */
    FolderView: {
        /** Folder Id */
        folder_id: string;
        /** Messages */
        messages: number;
        /** Name */
        name: string;
        /** Unread */
        unread: number;
    };
}
