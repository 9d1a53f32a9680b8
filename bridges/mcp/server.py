"""The MCP server: the catalog's tools, listed and called over MCP.

Tool results are JSON, as text (every client shows it to its model) and as
`structuredContent` (for clients that read data); a refusal is a tool result
with `isError`, whose text is the reason, so the model reads it and can correct
itself (MCP specification, "Tools": errors in tool results, not protocol errors).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext

from bridges.tools.catalog import TOOLS, call_tool
from bridges.tools.definition import MailTool, ToolContext, ToolError

log = logging.getLogger("agentmail.mcp")
DISTRIBUTION = "agentmail-gateway"


def package_version() -> str:
    """The installed distribution's version (core/version.py's, through the wheel's
    metadata: bridges do not import core); `0+unknown` when it is not installed."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"


ADDRESSING = """\
These tools connect you to AgentMail, where humans and agents work together by mail.
Addresses have three parts, name@path.session: `jianf@` is a human, `builder@ModelRouter`
is agent builder's workspace ModelRouter, `builder@ModelRouter.fix-leak` the conversation
with the alias fix-leak, and `.new` opens a new conversation. To answer a mail, send to its
`from` with `reply_to` set to its mail_id. Never guess an address: use suggest_address or
list_contacts."""
INSTRUCTIONS = f"""{ADDRESSING} Ask a human with request_permission before an action that
needs approval, and act only on the decision it returns."""


def _text(result: Any) -> list[types.ContentBlock]:
    return [types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False, indent=1))]


def build_server(
    context: ToolContext,
    server_version: str | None = None,
    *,
    tools: Sequence[MailTool] = TOOLS,
    instructions: str = INSTRUCTIONS,
) -> Server[Any]:
    """The tools as an MCP server. A platform bridge serves a part of them in-process
    (`tools`): its platform's own permission prompts are forwarded by the bridge, so
    it leaves out `request_permission` and says nothing of it (`instructions`)."""
    listed = [
        types.Tool(name=tool.name, description=tool.description, input_schema=tool.input_schema)
        for tool in tools
    ]
    offered = sorted(tool.name for tool in tools)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            if params.name not in offered:
                raise ToolError(f"no tool {params.name!r}; the tools are {', '.join(offered)}")
            result = await call_tool(context, params.name, params.arguments)
        except ToolError as refused:
            log.info("tool %s refused: %s", params.name, refused)
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(refused))], is_error=True
            )
        except Exception:
            log.exception("tool %s failed", params.name)
            return types.CallToolResult(
                content=[
                    types.TextContent(
                        type="text",
                        text=f"{params.name} failed with an internal error (see the MCP "
                        "server's log); the request may or may not have reached the gateway",
                    )
                ],
                is_error=True,
            )
        return types.CallToolResult(content=_text(result), structured_content=result)

    return Server(
        "agentmail",
        version=server_version or package_version(),
        title="AgentMail",
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call,
    )
