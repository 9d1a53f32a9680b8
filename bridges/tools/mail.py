"""Sending and reading: send_mail, read_inbox, read_mail, read_thread, forward_mail."""

from __future__ import annotations

from bridges.tools.definition import (
    ADDRESS,
    ID,
    Json,
    MailTool,
    ToolContext,
    described,
    integer,
    schema,
    text,
)
from bridges.tools.views import FULL_BODY_CHARS, mail_for_model, sent_for_model

MAX_BODY_CHARS = 500_000
ALIAS = {
    "type": "string",
    "minLength": 1,
    "maxLength": 64,
    "pattern": "^[A-Za-z0-9][A-Za-z0-9_-]*$",
}
_CC = {"type": "array", "items": ADDRESS, "maxItems": 50}
_TO = described(
    ADDRESS,
    "One recipient: `jianf@` (a human), `builder@ModelRouter` (an agent's workspace, "
    "its default conversation with you), `builder@ModelRouter.fix-leak` (the conversation "
    "with that alias), `builder@ModelRouter.new` (a new conversation). To answer a mail, "
    "use its `from` address, which names the conversation. Find addresses with "
    "suggest_address instead of guessing them.",
)
_FROM_WORKSPACE = text(
    "Which of your workspaces sends (by name); default: the one the mail you answer was "
    "addressed to, else your first.",
    200,
    1,
)


async def _send(context: ToolContext, arguments: Json) -> Json:
    return sent_for_model(await context.client.send(**arguments))


send_mail = MailTool(
    name="send_mail",
    description=(
        "Send a mail to a human or another agent. To answer a mail, pass its `mail_id` as "
        "`reply_to` and send to its `from` address: the answer stays in the same "
        "conversation. Mails you send on your own count against the conversation's "
        "budget. If you understand the task better than its subject says, propose a "
        "clearer conversation alias with `propose_alias` (a human accepts or rejects it; "
        "the alias does not change until then)."
    ),
    input_schema=schema(
        ["to", "subject", "body"],
        to=_TO,
        subject=text("The subject line.", 998),
        body=text("The text, in Markdown.", MAX_BODY_CHARS),
        cc=described(_CC, "More recipients, as addresses like `to`."),
        reply_to=described(ID, "The mail_id this mail answers."),
        session_alias=described(
            ALIAS, "An alias for the new conversation this mail opens (ignored for replies)."
        ),
        from_workspace=_FROM_WORKSPACE,
        mail_type={
            "type": "string",
            "enum": ["normal", "question", "final_summary"],
            "default": "normal",
            "description": "`question` when you need a human's answer to go on (the "
            "conversation then waits for it); `final_summary` for your final answer to a task.",
        },
        attachment_ids={
            "type": "array",
            "items": ID,
            "maxItems": 50,
            "description": "Files to attach: ids from upload_attachment.",
        },
        propose_alias=described(ALIAS, "A better alias for this conversation, proposed."),
        propose_reason=text("Why the proposed alias fits, for the human deciding.", 500),
    ),
    run=_send,
)


async def _read_inbox(context: ToolContext, arguments: Json) -> Json:
    listed = await context.client.inbox(
        arguments.get("status", "unread"),
        limit=arguments.get("limit", 10),
        mark_read=True,
        include_body=True,
    )
    return {"mails": [mail_for_model(mail) for mail in listed.mails], "total": listed.total}


read_inbox = MailTool(
    name="read_inbox",
    description=(
        "List the mails in your inbox, newest first, with their text. Every mail it lists is "
        "marked read, so the next call shows only what has arrived since. Use it when you are "
        "told new mail arrived, or to see what waits for you."
    ),
    input_schema=schema(
        [],
        status={
            "type": "string",
            "enum": ["unread", "all"],
            "default": "unread",
            "description": "`unread` (default): only mail you have not read; `all`: read too.",
        },
        limit=integer("How many mails at most.", 1, 50, 10),
    ),
    run=_read_inbox,
)


async def _read_mail(context: ToolContext, arguments: Json) -> Json:
    mail = await context.client.read(arguments["mail_id"])
    if mail.status == "unread":
        await context.client.mark_read(mail.mail_id)
        mail.status = "read"
    return mail_for_model(mail, body_limit=FULL_BODY_CHARS)


read_mail = MailTool(
    name="read_mail",
    description=(
        "Read one mail in full, by its mail_id (from a notification, read_inbox or "
        "read_thread); it is marked read. A permission request shows its options and, "
        "once decided, the decision and the human's note."
    ),
    input_schema=schema(["mail_id"], mail_id=described(ID, "The mail to read.")),
    run=_read_mail,
)


async def _read_thread(context: ToolContext, arguments: Json) -> Json:
    tree = await context.client.thread(
        arguments["mail_id"], limit=arguments.get("limit", 30), include_body=True
    )
    return {
        "mails": [mail_for_model(mail, body_limit=2_000) for mail in tree.mails],
        "root_mail_id": tree.root_mail_id,
        "more_before": tree.next_cursor_up is not None,
        "more_after": tree.next_cursor_down is not None,
    }


read_thread = MailTool(
    name="read_thread",
    description=(
        "Read the thread around a mail: the mails it answers (negative `depth`), the mail "
        "itself (`depth` 0) and the replies to it (positive `depth`), in reading order, "
        "each with `parent_mail_id`. Use it to see what was said before you answer."
    ),
    input_schema=schema(
        ["mail_id"],
        mail_id=described(ID, "A mail of the thread."),
        limit=integer("How many mails at most, around the mail.", 1, 100, 30),
    ),
    run=_read_thread,
)


async def _forward(context: ToolContext, arguments: Json) -> Json:
    return sent_for_model(await context.client.forward(**arguments))


forward_mail = MailTool(
    name="forward_mail",
    description=(
        "Forward a mail you sent or received to someone else, quoted, with its attachments, "
        "and an optional note of yours above it. It goes to the conversation its `to` address "
        "names (like send_mail), not the original's."
    ),
    input_schema=schema(
        ["mail_id", "to"],
        mail_id=described(ID, "The mail to forward."),
        to=_TO,
        cc=described(_CC, "More recipients."),
        body=text("Your note above the forwarded mail, in Markdown.", MAX_BODY_CHARS),
        subject=text("The subject; default `Fwd: <original subject>`.", 998),
        from_workspace=_FROM_WORKSPACE,
    ),
    run=_forward,
)
