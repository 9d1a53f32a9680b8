// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

export interface schemas_external_addresses {
    /** AddressList */
    AddressList: {
        /** Addresses */
        addresses: components["schemas"]["ExternalAddressView"][];
    };
    /** Choices */
    Choices: {
        /**
         * Other Mail
         * @description Send other mail there (default: no).
         */
        other_mail?: boolean | null;
        /**
         * Requests
         * @description Send permission requests and questions there (default: yes).
         */
        requests?: boolean | null;
    };
    /** Code */
    Code: {
        /**
         * Code
         * @description The 6 digits.
         */
        code: string;
    };
    /**
     * ExternalAddressView
     * @description A mailbox of mine outside the gateway (core/replies/addresses.py).
     */
    ExternalAddressView: {
        /**
         * Address
         * @description An RFC 5321 mailbox, the domain lower-cased.
         */
        address: string;
        /** Address Id */
        address_id: string;
        /**
         * Created At
         * Format: date-time
         */
        created_at: string;
        /**
         * Other Mail
         * @description Other mail to me is also sent here (once verified).
         */
        other_mail: boolean;
        /**
         * Requests
         * @description Permission requests and questions to me are also sent here (once verified).
         */
        requests: boolean;
        /** Verified */
        verified: boolean;
        /** Verified At */
        verified_at: string | null;
    };
    /** NewAddress */
    NewAddress: {
        /**
         * Address
         * @description An RFC 5321 mailbox: `me@example.com`.
         */
        address: string;
    };
}
