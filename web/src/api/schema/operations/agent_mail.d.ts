// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.
import type { operations_agent_mail_archive } from "./agent_mail/archive";
import type { operations_agent_mail_delete } from "./agent_mail/delete";
import type { operations_agent_mail_forward } from "./agent_mail/forward";
import type { operations_agent_mail_get } from "./agent_mail/get";
import type { operations_agent_mail_inbox } from "./agent_mail/inbox";
import type { operations_agent_mail_inbox_rows } from "./agent_mail/inbox_rows";
import type { operations_agent_mail_mail_tree } from "./agent_mail/mail_tree";
import type { operations_agent_mail_mark_read } from "./agent_mail/mark_read";
import type { operations_agent_mail_mark_unread } from "./agent_mail/mark_unread";
import type { operations_agent_mail_restore } from "./agent_mail/restore";
import type { operations_agent_mail_search } from "./agent_mail/search";
import type { operations_agent_mail_send } from "./agent_mail/send";
import type { operations_agent_mail_sent } from "./agent_mail/sent";
import type { operations_agent_mail_sent_rows } from "./agent_mail/sent_rows";
import type { operations_agent_mail_unarchive } from "./agent_mail/unarchive";

export interface operations_agent_mail
    extends operations_agent_mail_archive,
        operations_agent_mail_delete,
        operations_agent_mail_forward,
        operations_agent_mail_get,
        operations_agent_mail_inbox,
        operations_agent_mail_inbox_rows,
        operations_agent_mail_mail_tree,
        operations_agent_mail_mark_read,
        operations_agent_mail_mark_unread,
        operations_agent_mail_restore,
        operations_agent_mail_search,
        operations_agent_mail_send,
        operations_agent_mail_sent,
        operations_agent_mail_sent_rows,
        operations_agent_mail_unarchive {}
