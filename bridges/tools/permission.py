"""request_permission: ask a human, and wait for the decision.

For MCP agents that have no bridge. A bridged platform's own permission prompts
are forwarded by its bridge instead, never left to a tool the model might
forget to call. The request expires when the tool stops
waiting, so a late decision can never approve an action the model gave up on.
"""

from __future__ import annotations

import asyncio

from bridges.client import GatewayError, Mail
from bridges.runtime.subjects import permission_subject
from bridges.tools.decisions import woken
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

FIRST_LOOK_SECONDS = 0.25
LOOK_AT_LEAST_EVERY_SECONDS = 5.0
GRACE_SECONDS = 5.0  # for the gateway to close an expired request


def _outcome(request: Mail) -> Json:
    return {
        "mail_id": request.mail_id,
        "session_id": request.session_id,
        "state": request.permission_state,
        "decision": request.decision,
        "note": request.decision_note,
        "decided_by": request.decided_by,
        "action": request.action,
    }


async def _subject(context: ToolContext, question: str, reply_to: object) -> str:
    """The question as the request's subject line, naming the conversation of the task
    it is for (`[needs decision] #fix-login: …`), as the bridges' requests do."""
    alias, task_subject = None, ""
    if isinstance(reply_to, str):
        try:
            task = await context.client.read(reply_to)
        except GatewayError:
            pass  # the request itself says why (it names the same mail)
        else:
            alias, task_subject = task.session_alias, task.subject
    return permission_subject(alias, task_subject, question)


async def _request(context: ToolContext, arguments: Json) -> Json:
    timeout = arguments.get("timeout_seconds", 300)
    body = {key: value for key, value in arguments.items() if key != "timeout_seconds"}
    body["question"] = await _subject(context, str(body["question"]), body.get("reply_to"))
    asked = await context.client.request_permission(**body, expires_in=timeout)
    mail_id = asked.mail_id
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout + GRACE_SECONDS
    pause = FIRST_LOOK_SECONDS
    with context.decisions.watching(mail_id) as decided:
        while True:
            decided.clear()  # before reading: a decision arriving meanwhile still wakes us
            request = await context.client.read(mail_id)
            left = deadline - loop.time()
            if request.permission_state != "open" or left <= 0:
                return _outcome(request)
            if not await woken(decided, min(pause, left)):
                pause = min(pause * 2, LOOK_AT_LEAST_EVERY_SECONDS)


request_permission = MailTool(
    name="request_permission",
    description=(
        "Ask a human for permission before you do something that needs it, and wait for "
        "the answer: the human gets a mail with the numbered options and decides in the web "
        "UI or by replying with an option. Put the exact action (the command, the file, the "
        "change) in `action`: the decision is bound to it. Returns `state` `decided` with "
        "the `decision` and the human's `note`, or `expired` if nobody decided within "
        "`timeout_seconds` — then do not act. Only humans decide; ask the one who gave you "
        "the task (the `from` of its mail)."
    ),
    input_schema=schema(
        ["to", "question"],
        to=described(ADDRESS, "The human who decides, e.g. `jianf@` or a mail's `from`."),
        question=text("The question, one line: what you want to do and why.", 998, 1),
        options={
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 200},
            "minItems": 1,
            "maxItems": 20,
            "description": 'The choices offered; default ["approve", "reject"].',
        },
        action=text("The exact action asked for, e.g. the command line.", 10_000),
        context=text("What the human needs to know to decide, in Markdown.", 20_000),
        reply_to=described(ID, "The mail of the task this is for: the request joins its thread."),
        session_id=described(ID, "The conversation to ask in (default: reply_to's)."),
        timeout_seconds=integer(
            "How long to wait for the decision; the request expires then.", 10, 3600, 300
        ),
    ),
    run=_request,
)
