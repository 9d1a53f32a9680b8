"""Finding addresses instead of guessing them: suggest_address, list_contacts,
session_participants.

The reference design learnt this in production: a model guessed
`opencode@/home`, which was not a workspace, and its mail opened a stray
conversation. Our gateway refuses such an address; these tools let the model
pick one that exists.
"""

from __future__ import annotations

from bridges.tools.definition import (
    ID,
    Json,
    MailTool,
    ToolContext,
    described,
    integer,
    schema,
    text,
)
from bridges.tools.views import as_json


async def _suggest(context: ToolContext, arguments: Json) -> Json:
    found = await context.client.suggest(
        arguments.get("query", ""), limit=arguments.get("limit", 10)
    )
    return {"candidates": [as_json(candidate) for candidate in found]}


suggest_address = MailTool(
    name="suggest_address",
    description=(
        "Find addresses that exist, from part of one: agents' workspaces "
        "(`builder@ModelRouter`, found by name, workspace or path), humans (`jianf@`) and the "
        "named conversations you take part in (`builder@ModelRouter.fix-leak`). Each comes "
        "with a description (a workspace's path and platform, a conversation's subject). "
        "Use it before writing to an address you have not seen in a mail."
    ),
    input_schema=schema(
        [],
        query=text("Part of an address, name or path; empty lists everything.", 1200),
        limit=integer("How many candidates at most.", 1, 100, 10),
    ),
    run=_suggest,
)


async def _contacts(context: ToolContext, arguments: Json) -> Json:
    found = await context.client.contacts(limit=arguments.get("limit", 20))
    return {"contacts": [as_json(contact) for contact in found]}


list_contacts = MailTool(
    name="list_contacts",
    description=(
        "List the people and agents you share a conversation with, the most recent first, "
        "each with the address to write to them, whether they are online, and how many "
        "conversations you share."
    ),
    input_schema=schema(
        [],
        limit=integer("How many contacts at most.", 1, 100, 20),
    ),
    run=_contacts,
)


async def _participants(context: ToolContext, arguments: Json) -> Json:
    return as_json(await context.client.participants(arguments["session_id"]))


session_participants = MailTool(
    name="session_participants",
    description=(
        "List who takes part in a conversation (by its session_id, as mails show it), each "
        "with the address that reaches them in this very conversation — use it to bring "
        "someone's answer into the right thread or to cc everyone."
    ),
    input_schema=schema(["session_id"], session_id=described(ID, "The conversation.")),
    run=_participants,
)
