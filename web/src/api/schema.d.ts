// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.

export type { paths } from "./schema/paths";
export type { components } from "./schema/components";
export type { operations } from "./schema/operations";
