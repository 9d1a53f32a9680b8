"""Every mail tool, in one list, and the one way to call them.

Platforms render `TOOLS` in their own format (MCP's `tools/list`, a platform's
tool registry); `call_tool` is the same for all: the arguments are checked
against the tool's JSON schema (Draft 2020-12) before anything is sent, and
every refusal becomes a `ToolError` whose message a model can act on — the
gateway's own message, which names what was wrong (the unknown alias, the
workspaces an agent has).
"""

from __future__ import annotations

import httpx
from jsonschema import Draft202012Validator

from bridges.client import GatewayError
from bridges.tools.addressing import list_contacts, session_participants, suggest_address
from bridges.tools.connection import connect_to_server
from bridges.tools.definition import Json, MailTool, ToolContext, ToolError
from bridges.tools.files import download_attachment, upload_attachment
from bridges.tools.mail import forward_mail, read_inbox, read_mail, read_thread, send_mail
from bridges.tools.permission import request_permission

TOOLS: tuple[MailTool, ...] = (
    send_mail,
    read_inbox,
    read_mail,
    read_thread,
    forward_mail,
    upload_attachment,
    download_attachment,
    suggest_address,
    list_contacts,
    session_participants,
    request_permission,
    connect_to_server,
)
BY_NAME = {tool.name: tool for tool in TOOLS}
_VALIDATORS = {tool.name: Draft202012Validator(tool.input_schema) for tool in TOOLS}


def checked_arguments(name: str, arguments: Json | None) -> Json:
    """The arguments, if they fit the tool's schema; else a ToolError naming each problem."""
    given = dict(arguments or {})
    problems = sorted(_VALIDATORS[name].iter_errors(given), key=lambda error: list(error.path))
    if problems:
        said = "; ".join(
            f"{'.'.join(str(p) for p in error.path) or 'arguments'}: {error.message}"
            for error in problems[:5]
        )
        raise ToolError(f"invalid arguments for {name}: {said}")
    return given


async def call_tool(context: ToolContext, name: str, arguments: Json | None) -> Json:
    tool = BY_NAME.get(name)
    if tool is None:
        raise ToolError(f"no tool {name!r}; the mail tools are {', '.join(BY_NAME)}")
    given = checked_arguments(name, arguments)
    try:
        return await tool.run(context, given)
    except GatewayError as refusal:
        raise ToolError(f"the gateway refused: {refusal.message} ({refusal.code})") from refusal
    except httpx.TransportError as lost:
        raise ToolError(
            f"the gateway cannot be reached ({type(lost).__name__}); try again, or call "
            "connect_to_server"
        ) from lost
