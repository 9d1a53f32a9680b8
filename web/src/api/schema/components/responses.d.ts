// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { components } from "../components";

export interface responses {
    /** @description Malformed request: invalid JSON, or a NUL character in the URL. */
    BadRequest: {
        headers: {
            [name: string]: unknown;
        };
        content: {
            "application/json": components["schemas"]["ErrorResponse"];
        };
    };
    /** @description Conflicts with the current state (a taken name or alias, already decided). */
    Conflict: {
        headers: {
            [name: string]: unknown;
        };
        content: {
            "application/json": components["schemas"]["ErrorResponse"];
        };
    };
    /** @description Authenticated, but not allowed to do this. */
    Forbidden: {
        headers: {
            [name: string]: unknown;
        };
        content: {
            "application/json": components["schemas"]["ErrorResponse"];
        };
    };
    /** @description No such object, or not visible to the caller. */
    NotFound: {
        headers: {
            [name: string]: unknown;
        };
        content: {
            "application/json": components["schemas"]["ErrorResponse"];
        };
    };
    /** @description The request body is over the limit. */
    PayloadTooLarge: {
        headers: {
            [name: string]: unknown;
        };
        content: {
            "application/json": components["schemas"]["ErrorResponse"];
        };
    };
    /** @description No byte of the content is in the range asked for (`Range: bytes=a-b`). */
    RangeNotSatisfiable: {
        headers: {
            /** @description `bytes *\/size`: the content's size. */
            "Content-Range"?: string;
            [name: string]: unknown;
        };
        content: {
            "application/json": components["schemas"]["ErrorResponse"];
        };
    };
    /** @description Too many requests: a rate limit or the conversation's budget. */
    TooManyRequests: {
        headers: {
            /** @description Seconds until a rate-limited request may succeed. */
            "Retry-After"?: number;
            [name: string]: unknown;
        };
        content: {
            "application/json": components["schemas"]["ErrorResponse"];
        };
    };
    /** @description No valid credentials: a bearer key or the login cookie. */
    Unauthorized: {
        headers: {
            /** @description `Bearer`. */
            "WWW-Authenticate"?: string;
            [name: string]: unknown;
        };
        content: {
            "application/json": components["schemas"]["ErrorResponse"];
        };
    };
    /** @description Invalid input: a wrong type, a missing field, or a refused value. */
    UnprocessableEntity: {
        headers: {
            [name: string]: unknown;
        };
        content: {
            "application/json": components["schemas"]["ErrorResponse"];
        };
    };
    /** @description Wrong content type for this endpoint. */
    UnsupportedMediaType: {
        headers: {
            [name: string]: unknown;
        };
        content: {
            "application/json": components["schemas"]["ErrorResponse"];
        };
    };
}
