// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations_my_mail_archive } from "./my_mail/archive";
import type { operations_my_mail_delete } from "./my_mail/delete";
import type { operations_my_mail_forward } from "./my_mail/forward";
import type { operations_my_mail_get } from "./my_mail/get";
import type { operations_my_mail_inbox } from "./my_mail/inbox";
import type { operations_my_mail_inbox_rows } from "./my_mail/inbox_rows";
import type { operations_my_mail_mail_tree } from "./my_mail/mail_tree";
import type { operations_my_mail_mark_read } from "./my_mail/mark_read";
import type { operations_my_mail_mark_unread } from "./my_mail/mark_unread";
import type { operations_my_mail_restore } from "./my_mail/restore";
import type { operations_my_mail_search } from "./my_mail/search";
import type { operations_my_mail_send } from "./my_mail/send";
import type { operations_my_mail_sent } from "./my_mail/sent";
import type { operations_my_mail_sent_rows } from "./my_mail/sent_rows";
import type { operations_my_mail_unarchive } from "./my_mail/unarchive";

export interface operations_my_mail
    extends operations_my_mail_archive,
        operations_my_mail_delete,
        operations_my_mail_forward,
        operations_my_mail_get,
        operations_my_mail_inbox,
        operations_my_mail_inbox_rows,
        operations_my_mail_mail_tree,
        operations_my_mail_mark_read,
        operations_my_mail_mark_unread,
        operations_my_mail_restore,
        operations_my_mail_search,
        operations_my_mail_send,
        operations_my_mail_sent,
        operations_my_mail_sent_rows,
        operations_my_mail_unarchive {}
