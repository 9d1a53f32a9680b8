// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations_my_drafts_delete } from "./my_drafts/delete";
import type { operations_my_drafts_get } from "./my_drafts/get";
import type { operations_my_drafts_list_drafts } from "./my_drafts/list_drafts";
import type { operations_my_drafts_replace } from "./my_drafts/replace";
import type { operations_my_drafts_save } from "./my_drafts/save";
import type { operations_my_drafts_send } from "./my_drafts/send";

export interface operations_my_drafts
    extends operations_my_drafts_delete,
        operations_my_drafts_get,
        operations_my_drafts_list_drafts,
        operations_my_drafts_replace,
        operations_my_drafts_save,
        operations_my_drafts_send {}
