// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.

export interface schemas_attachments {
    /**
     * AttachmentView
     * @description An upload: `content_type` is what the uploader declared (downloads ignore it).
     */
    AttachmentView: {
        /** Attachment Id */
        attachment_id: string;
        /** Content Type */
        content_type: string;
        /** Filename */
        filename: string;
        /** Sha256 */
        sha256: string;
        /** Size */
        size: number;
    };
}
