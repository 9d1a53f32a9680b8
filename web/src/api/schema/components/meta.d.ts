// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.

export interface schemas_meta {
    /** Version */
    Version: {
        /** Version */
        version: string;
    };
}
