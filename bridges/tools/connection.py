"""connect_to_server: check the link to the gateway and mend it.

The same function runs when the MCP server starts: a heartbeat says whether
the key works and is bound; a key not bound yet registers the agent (name and
workspaces from the configuration), after which the heartbeat is tried again.
"""

from __future__ import annotations

from bridges.tools.definition import MailTool, ToolContext, ToolError, schema
from bridges.tools.gateway_api import GatewayRefusal, Json


async def ensure_connected(context: ToolContext) -> Json:
    """Heartbeat, registering first when the key is not bound to an agent yet."""
    try:
        beat = await context.api.heartbeat()
    except GatewayRefusal as refusal:
        if refusal.status == 401:
            raise ToolError(
                f"the gateway refused the agent key ({refusal.message}): it is revoked, "
                "expired or unknown; an admin must issue a new one"
            ) from refusal
        if refusal.status != 403:
            raise
        identity = context.identity
        if identity is None or not identity.workspaces:
            raise ToolError(
                f"{refusal.message}; set AGENTMAIL_AGENT_NAME and give --workspace NAME=PATH "
                "so the agent can register"
            ) from refusal
        await context.api.register(identity.name, identity.workspace_list(), identity.platform)
        beat = await context.api.heartbeat()
    return {
        "gateway": context.gateway_url,
        "status": "connected",
        "agent_status": beat.get("agent_status"),
        "pending_mails": beat.get("pending_mails"),
        "sessions": beat.get("sessions", []),
    }


async def _connect(context: ToolContext, arguments: Json) -> Json:
    return await ensure_connected(context)


connect_to_server = MailTool(
    name="connect_to_server",
    description=(
        "Check the connection to the mail gateway and restore it: re-registers this agent if "
        "the gateway forgot it, and reports how many unread mails wait for you and in which "
        "conversations (with their remaining budgets). Call it when another mail tool says "
        "the gateway cannot be reached or the agent is not registered."
    ),
    input_schema=schema([]),
    run=_connect,
)
